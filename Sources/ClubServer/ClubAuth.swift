import DropboxWire
import Foundation
import Hummingbird
import HTTPTypes
import NIOCore

/// Hummingbird's basic context plus the request's connection: the authenticator closes it to
/// cut a revoked member's request, and counts failed tokens by its peer's address.
struct ClubRequestContext: RequestContext {
    var coreContext: CoreRequestContextStorage
    let channel: any Channel

    init(source: ApplicationRequestContextSource) {
        coreContext = CoreRequestContextStorage(source: source)
        channel = source.channel
    }

    /// The client's address, as failed tokens are counted ("unknown" for a test channel).
    var clientAddress: String { channel.remoteAddress?.ipAddress ?? "unknown" }
}

/// Requires `Authorization: Bearer <token>` speaking for a member (or the shared token), lets a
/// member do what their role allows, and runs the handler with their name in `Caller.member`
/// and their role in `CallerRole.role`.
///
/// An address that sends too many wrong tokens is answered 429 without its token being looked
/// at (AuthThrottle). A reader's write is refused before its handler runs (nothing reaches the
/// disk) with the `no_write_permission` error of that endpoint's union, as Dropbox answers a
/// write to a read-only shared folder.
struct BearerAuth: RouterMiddleware {
    typealias Context = ClubRequestContext
    let authenticator: Authenticator
    /// Paths served without a token (a token sent there anyway is ignored).
    var exempt: Set<String> = []
    /// Paths under these served without a token too (share links, `/s/`), unless a dot
    /// segment could make them mean a path elsewhere.
    var exemptPrefixes: [String] = []
    /// Paths served without a token; a good token sent there ties the request to its member (a
    /// removed member's longpoll ends), any other is ignored.
    var optional: Set<String> = []
    /// The served folder, where a reader's request to join must find its club encrypted.
    var servedRoot: String?

    /// Member management: admins only.
    static let adminPrefix = Endpoint.membersPrefix

    /// Every endpoint that changes the folder or its links, each with the tags a reader's
    /// attempt is refused with (its route's own `WriteError` place).
    static let writes: [String: [ErrorTag]] = [
        Endpoint.upload.route: [],
        Endpoint.sessionStart.route: [.noWritePermission],
        Endpoint.sessionAppend.route: [.noWritePermission],
        Endpoint.sessionFinish.route: [.path, .noWritePermission],
        Endpoint.delete.route: [.pathWrite, .noWritePermission],
        Endpoint.move.route: [.to, .noWritePermission],
        Endpoint.copy.route: [.to, .noWritePermission],
        Endpoint.createFolder.route: [.path, .noWritePermission],
        Endpoint.restore.route: [.pathWrite, .noWritePermission],
        Endpoint.addTag.route: [.path, .noWritePermission],
        Endpoint.removeTag.route: [.path, .noWritePermission],
        Endpoint.clubAddTag.route: [.path, .noWritePermission],
        Endpoint.clubRemoveTag.route: [.path, .noWritePermission],
        Endpoint.clubAddTagsBatch.route: [.path, .noWritePermission],
        Endpoint.clubUploadBatch.route: [.path, .noWritePermission],
        Endpoint.createSharedLink.route: [.sharedLinkAccessDenied],
        Endpoint.revokeSharedLink.route: [.sharedLinkAccessDenied],
    ]

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        let path = request.uri.path
        if exempt.contains(path) { return try await next(request, context) }
        if exemptPrefixes.contains(where: { path.hasPrefix($0) }), !path.split(separator: "/").contains(where: { $0 == "." || $0 == ".." }) {
            return try await next(request, context)
        }
        let header = request.headers[.authorization]
        if optional.contains(path) {
            // Served to anyone, as Dropbox serves longpolls; a good token ties the request to its
            // member (so it can be cut), any other is ignored, as Dropbox ignores it.
            let tokenHash = header.flatMap { $0.hasPrefix("Bearer ") ? MemberBook.hash(String($0.dropFirst(7))) : nil }
            // A removed member's token is refused, so their client's retry cannot wait on unseen.
            if let tokenHash, authenticator.wasRevoked(tokenHash) {
                return ClubAPI.response(for: authenticator.removedMember(forTokenHash: tokenHash).map(APIError.removedMember) ?? .unauthorized())
            }
            guard let tokenHash, let grant = authenticator.grant(forTokenHash: tokenHash) else { return try await next(request, context) }
            return try await run(request, context, tokenHash: tokenHash, grant: grant, next: next)
        }
        let address = context.clientAddress
        if case .shut(let retryAfter) = authenticator.gate(address) {
            return ClubAPI.response(for: .rateLimited(retryAfter: retryAfter))
        }
        guard let header, header.hasPrefix("Bearer ") else { return ClubAPI.response(for: .unauthorized()) }
        let tokenHash = MemberBook.hash(String(header.dropFirst(7)))
        guard let grant = authenticator.grant(forTokenHash: tokenHash) else {
            // A removed member's token is no guess: told who they were, and not counted as one.
            if let name = authenticator.removedMember(forTokenHash: tokenHash) { return ClubAPI.response(for: .removedMember(name)) }
            authenticator.failed(address, what: "token")
            return ClubAPI.response(for: .unauthorized())
        }
        if let tags = Self.writes[path], !grant.role.canWrite, !Self.isRequestToJoin(request, servedRoot: servedRoot) {
            let refusal: APIError = tags.isEmpty ? .uploadPath([.noWritePermission]) : .endpoint(tags)
            return ClubAPI.response(for: refusal.saying("\(grant.name) is a reader in this club: reading only, no changes"))
        }
        if path.hasPrefix(Self.adminPrefix), !grant.role.canManage {
            return ClubAPI.response(for: .forbidden("only a club admin manages members; \(grant.name) is \(grant.role.withArticle)"))
        }
        return try await run(request, context, tokenHash: tokenHash, grant: grant, next: next)
    }

    /// A reader's one write: its own request to join an encrypted club (ClubKit's
    /// `ClubKeyFiles.request(for:)`: an `upload` of `FOLDER/.clubkeys/requests/NAME.json`), so
    /// an admin's `members admit` finds it; a reader was refused it, and so could never be
    /// admitted. Nothing else under `.clubkeys` (the keys and the roster stay an editor's to
    /// write), nothing deeper, no dot segment, a small body with its length said (a request is a
    /// few hundred bytes), and only into a club that is encrypted: its `.clubkeys/club.json` is
    /// in `servedRoot` (a reader cannot make a plain club's folder look encrypted). Like any
    /// member's, a request can be written over: what an admin admits is checked by its
    /// fingerprint (`members admit` shows it).
    static func isRequestToJoin(_ request: Request, servedRoot: String?) -> Bool {
        guard request.uri.path == Endpoint.upload.route,
              let length = request.headers[.contentLength].flatMap(Int.init), length <= maxRequestToJoin,
              let path = try? ClubAPI.argument(request, what: "upload").string("path") else { return false }
        let parts = path.split(separator: "/", omittingEmptySubsequences: false)
        guard parts.count >= 4, parts.first == "", !parts.dropFirst().contains(where: { $0.isEmpty || $0 == "." || $0 == ".." }),
              parts[parts.count - 3] == Substring(ClubAPI.clubKeysFolder), parts[parts.count - 2] == "requests" else { return false }
        let name = parts[parts.count - 1]
        guard name.count > 5, name.hasSuffix(".json"), !name.hasPrefix("."), let servedRoot else { return false }
        let keys = parts.dropLast(2).joined(separator: "/")
        return FileManager.default.fileExists(atPath: servedRoot + keys + "/club.json")
    }

    /// The largest request to join a reader may write, in bytes.
    static let maxRequestToJoin = 16 * 1024

    /// Runs the handler as the member, entered in the ledger until its answer's last byte is out.
    private func run(_ request: Request, _ context: Context, tokenHash: String, grant: Authenticator.Grant,
                     next: (Request, Context) async throws -> Response) async throws -> Response {
        let id = authenticator.enter(tokenHash: tokenHash, grant: grant, channel: context.channel)
        var response: Response
        do {
            response = try await Caller.$member.withValue(grant.name) {
                try await CallerRole.$role.withValue(grant.role) { try await next(request, context) }
            }
        } catch {
            authenticator.leave(id)
            throw error
        }
        // A download's bytes are written after the handler returns: the request stays in the
        // ledger (and so can be cut) until its last byte is out.
        let body = response.body
        let authenticator = self.authenticator
        response.body = ResponseBody(contentLength: body.contentLength) { writer in
            defer { authenticator.leave(id) }
            try await body.write(writer)
        }
        return response
    }

    /// Takes the same time for every wrong token of a given length, so timing leaks nothing.
    static func constantTimeEqual(_ a: [UInt8], _ b: [UInt8]) -> Bool {
        var difference = UInt8(a.count == b.count ? 0 : 1)
        for index in 0..<max(a.count, b.count) {
            let x = index < a.count ? a[index] : 0
            let y = index < b.count ? b[index] : 0
            difference |= x ^ y
        }
        return difference == 0 && !b.isEmpty
    }
}
