import DropboxWire
import Foundation
import HTTPTypes
import Hummingbird
import NIOCore

/// Share links for people outside the club: `sharing/create_shared_link_with_settings`,
/// `sharing/list_shared_links` and `sharing/revoke_shared_link`, as Dropbox's spec
/// (`sharing_links.stone`) has them; the links themselves are served by `GET /s/<token>/<name>`
/// (ClubAPI+SharedFile).
///
/// A link is public and read-only, opens one file (never a folder), and follows the file by
/// its id through moves and renames, as Dropbox's do. Deleting the file ends its links at once.
extension ClubAPI {
    func addSharingRoutes(to router: Router<ClubRequestContext>) {
        let api = self
        let endpoints: [(String, @Sendable (Arguments, String) async throws -> String)] = [
            (Endpoint.createSharedLink.route, createSharedLink),
            (Endpoint.listSharedLinks.route, listSharedLinks),
            (Endpoint.revokeSharedLink.route, revokeSharedLink),
        ]
        for (path, handler) in endpoints {
            router.post(RouterPath(path)) { request, _ in
                await api.respond { _ in
                    let body = try await api.jsonBody(request)
                    let object = try JSON.object(Data(buffer: body), what: path)
                    let text = try await handler(Arguments(object: object, what: path), api.linkBase(request))
                    return Response(status: .ok, headers: [.contentType: "application/json"], body: .init(byteBuffer: ByteBuffer(string: text)))
                }
            }
        }
        router.get("/s/**") { request, _ in await api.sharedFile(request) }
        router.head("/s/**") { request, _ in await api.sharedFile(request).createHeadResponse() }
    }

    // MARK: - Endpoints

    private func createSharedLink(_ arguments: Arguments, base: String) async throws -> String {
        let target = try await readPath(try arguments.string("path"))
        let expires = try linkSettings(try arguments.object("settings"))
        let file = try await fileMetadata(target)
        let (link, existed) = try await makeLink(file: file, expires: expires)
        let metadata = SharedLinkMetadata(file: file, url: Self.url(of: link, base: base), expires: link.expiryDate)
        if existed {
            // Dropbox answers an existing link as an error that carries it; clients take it from there.
            var text = #"{"error":{".tag":"shared_link_already_exists","shared_link_already_exists":{".tag":"metadata","metadata":"#
            text += Self.json(metadata) + #"}},"error_summary":"shared_link_already_exists/metadata/.."}"#
            throw APIError(status: .conflict, contentType: "application/json", body: Data(text.utf8))
        }
        return Self.json(metadata)
    }

    private func makeLink(file: FileMetadata, expires: Date?) async throws -> (SharedLink, Bool) {
        // The link names the file by its id: an id given out only by this lookup (a file put
        // there by hand) must be on disk before the link is, or a restart would orphan it.
        await store.flushIdentifiers()
        do {
            return try await sharedLinks.make(fileID: file.id, name: file.name, expires: expires)
        } catch {
            configuration.logger.error("cannot save shared links: \(error)")
            throw APIError(status: .internalServerError, contentType: "text/plain; charset=utf-8", body: Data("Cannot save the link.".utf8))
        }
    }

    private func listSharedLinks(_ arguments: Arguments, base: String) async throws -> String {
        // Every list is answered in one page, so no cursor of ours exists to continue.
        if try arguments.optionalString("cursor") != nil { throw APIError.endpoint([.reset]) }
        let links: [SharedLink]
        if let text = try arguments.optionalString("path") {
            let file = try await fileMetadata(try await readPath(text))
            links = await sharedLinks.live(fileID: file.id)
        } else {
            links = await sharedLinks.live()
        }
        var answered: [SharedLinkMetadata] = []
        var gone = Set<String>()
        for link in links.sorted(by: { $0.created < $1.created }) {
            guard let path = await store.path(forID: link.fileID), let file = try? await fileMetadata(path) else {
                gone.insert(link.fileID)
                continue
            }
            answered.append(SharedLinkMetadata(file: file, url: Self.url(of: link, base: base), expires: link.expiryDate))
        }
        if !gone.isEmpty { await sharedLinks.forget(fileIDs: gone) }
        return Self.json(ListSharedLinksResult(links: answered))
    }

    private func revokeSharedLink(_ arguments: Arguments, base: String) async throws -> String {
        let text = try arguments.string("url")
        guard let token = Self.token(inURL: text) else { throw APIError.endpoint([.sharedLinkMalformed]) }
        // The token alone is not enough: a URL naming another server (scheme, host, port or
        // path prefix) is not one of our links, even when its token is.
        guard Self.isOurs(text, bases: linkBases(base)) else { throw APIError.endpoint([.sharedLinkNotFound]) }
        let removed: Bool
        do {
            removed = try await sharedLinks.revoke(token: token)
        } catch {
            // Gone in memory already (it no longer opens anything); only the file lags.
            configuration.logger.error("cannot save shared links: \(error)")
            removed = true
        }
        guard removed else { throw APIError.endpoint([.sharedLinkNotFound]) }
        return "null"
    }

    // MARK: - Helpers

    /// A `ReadPath`: a path, or a file's `id:…`.
    private func readPath(_ text: String) async throws -> DropboxPath {
        if text.hasPrefix("id:") {
            guard let path = await store.path(forID: text) else { throw APIError.notFound }
            return path
        }
        do { return try DropboxPath.checked(text) } catch { throw APIError.malformedPath() }
    }

    /// Only files are shared: the link serves bytes, and a folder has none.
    private func fileMetadata(_ path: DropboxPath) async throws -> FileMetadata {
        guard !path.isRoot else { throw APIError.notFile.saying("Only files can be shared.") }
        switch try await store.metadata(path) {
        case .file(let file): return file
        default: throw APIError.notFile.saying("Only files can be shared, not folders.")
        }
    }

    /// The expiry asked for, after checking the settings a club server can honour: public
    /// links to download, with or without an expiry. Anything else is Dropbox's
    /// `settings_error/not_authorized` (as for an account without those features).
    private func linkSettings(_ settings: Arguments?) throws -> Date? {
        guard let settings else { return nil }
        let notAuthorized = APIError.endpoint([.settingsError, .notAuthorized])
        for key in ["requested_visibility", "audience"] {
            if let visibility = try settings.decode(LinkVisibility.self, key), visibility != .public {
                throw notAuthorized.saying("A club server makes public links only.")
            }
        }
        if let access = try settings.decode(LinkAccess.self, "access"), access != .viewer {
            throw notAuthorized.saying("Shared links are read-only.")
        }
        if try settings.bool("require_password", default: false) { throw notAuthorized.saying("A club server cannot make links with a password.") }
        if !(try settings.bool("allow_download", default: true)) { throw notAuthorized.saying("A shared link always allows downloading.") }
        guard let text = try settings.optionalString("expires") else { return nil }
        guard let date = DropboxTimestamp.parse(text) else { throw APIError.badRequest("settings.expires: not a timestamp: \(text)") }
        guard date.timeIntervalSinceNow > 0 else {
            throw APIError.endpoint([.settingsError, .invalidSettings]).saying("The expiry is in the past.")
        }
        return date
    }

    /// Who a link's recipient may be: `RequestedLinkAccessLevel`.
    private enum LinkAccess: String, WireUnion {
        case viewer, editor, max, `default`
    }

    static func json<T: Encodable>(_ value: T) -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return (try? encoder.encode(value)).map { String(decoding: $0, as: UTF8.self) } ?? "{}"
    }

    /// `BASE/s/<token>/<name>`, the name percent-encoded (RFC 3986 unreserved characters kept).
    static func url(of link: SharedLink, base: String) -> String {
        base + "/s/" + link.token + "/" + percentEncoded(link.name)
    }

    static func percentEncoded(_ text: String) -> String {
        var out = ""
        for byte in text.utf8 {
            let scalar = Unicode.Scalar(byte)
            if scalar.isASCII, scalar.properties.isAlphabetic || ("0"..."9").contains(scalar) || "-._~".unicodeScalars.contains(scalar) {
                out.unicodeScalars.append(scalar)
            } else {
                out += String(format: "%%%02X", byte)
            }
        }
        return out
    }

    /// The token of a link URL of ours (its path ends `/s/<token>/<name>`), or nil.
    static func token(inURL text: String) -> String? {
        guard let url = URL(string: text), let scheme = url.scheme?.lowercased(), scheme == "http" || scheme == "https" else { return nil }
        let parts = url.path.split(separator: "/", omittingEmptySubsequences: false)
        guard parts.count >= 4, parts[parts.count - 3] == "s" else { return nil }
        let token = String(parts[parts.count - 2])
        return isTokenShaped(token) ? token : nil
    }

    /// Every base a link of this server may have been given: as this caller reached it, the
    /// public URL, and the address it listens on.
    func linkBases(_ base: String) -> [String] {
        let host = configuration.host.contains(":") ? "[\(configuration.host)]" : configuration.host
        return [base, configuration.publicURL?.absoluteString, "\(configuration.scheme)://\(host):\(configuration.port)"].compactMap { $0 }
    }

    /// Whether a link URL is under one of `bases`: the same scheme, host (any case) and port
    /// (the scheme's default when absent), and its path below the base's path.
    static func isOurs(_ text: String, bases: [String]) -> Bool {
        guard let link = URLComponents(string: text) else { return false }
        func origin(_ components: URLComponents) -> (String, String, Int)? {
            guard let scheme = components.scheme?.lowercased(), let host = components.host?.lowercased(), !host.isEmpty else { return nil }
            return (scheme, host, components.port ?? (scheme == "https" ? 443 : 80))
        }
        guard let linkOrigin = origin(link), link.user == nil, link.password == nil else { return false }
        return bases.contains { base in
            guard let components = URLComponents(string: base), let baseOrigin = origin(components), baseOrigin == linkOrigin else { return false }
            let prefix = components.path.hasSuffix("/") ? String(components.path.dropLast()) : components.path
            return link.path.hasPrefix(prefix + "/s/")
        }
    }

    /// What `FolderFiles.randomToken(bytes: 18)` makes: 24 base64url characters.
    static func isTokenShaped(_ token: Substring) -> Bool {
        token.utf8.count == 24 && token.utf8.allSatisfy { byte in
            (byte >= 0x30 && byte <= 0x39) || (byte >= 0x41 && byte <= 0x5A) || (byte >= 0x61 && byte <= 0x7A) || byte == 0x2D || byte == 0x5F
        }
    }

    static func isTokenShaped(_ token: String) -> Bool { isTokenShaped(token[...]) }

    /// Where links point: `--public-url` if given (a server behind a proxy), else this server
    /// as the caller reached it (its `Host`), else the address it listens on.
    func linkBase(_ request: Request) -> String {
        if let publicURL = configuration.publicURL {
            let text = publicURL.absoluteString
            return text.hasSuffix("/") ? String(text.dropLast()) : text
        }
        if let host = request.head.authority, Self.isHostShaped(host) {
            return configuration.scheme + "://" + host
        }
        let host = configuration.host.contains(":") ? "[\(configuration.host)]" : configuration.host
        return "\(configuration.scheme)://\(host):\(configuration.port)"
    }

    /// A `Host` header fit to put in a URL: a name or address, and a port.
    static func isHostShaped(_ host: String) -> Bool {
        !host.isEmpty && host.utf8.count <= 255 && host.utf8.allSatisfy { byte in
            (byte >= 0x30 && byte <= 0x3A) || (byte >= 0x41 && byte <= 0x5A) || (byte >= 0x61 && byte <= 0x7A) || byte == 0x2D || byte == 0x2E
                || byte == 0x5B || byte == 0x5D
        }
    }
}
