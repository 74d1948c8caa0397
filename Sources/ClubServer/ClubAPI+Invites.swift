import DropboxWire
import Foundation
import Hummingbird
import NIOCore

/// Joining by invite, and member management for an admin elsewhere (`members --remote NAME`).
///
/// `Endpoint.join` needs no token (the invite's secret is the credential) and counts
/// failures against the caller's address as a wrong token does. `Endpoint.membersPrefix` routes are
/// for admins only (BearerAuth). Each change takes effect at once: the requests in flight of a
/// member removed or given another role are cut before the answer goes.
extension ClubAPI {
    static let joinPath = Endpoint.join.route

    func addMemberRoutes(to router: Router<ClubRequestContext>) {
        let api = self
        router.post(RouterPath(Self.joinPath)) { request, context in
            await api.respond { _ in try await api.join(request, address: context.clientAddress) }
        }
        let endpoints: [(String, @Sendable (Arguments, Request) async throws -> Any)] = [
            (Endpoint.listMembers.route, { _, _ in try api.listMembers() }),
            (Endpoint.addMember.route, api.addMember),
            (Endpoint.changeMemberRole.route, { arguments, _ in try api.changeRole(arguments) }),
            (Endpoint.removeMember.route, { arguments, _ in try api.removeMember(arguments) }),
        ]
        for (path, handler) in endpoints {
            router.post(RouterPath(path)) { request, _ in
                await api.respond { _ in
                    let body = try await api.jsonBody(request)
                    let object = try JSON.object(Data(buffer: body), what: path)
                    let result = try await handler(Arguments(object: object, what: path), request)
                    return Response(status: .ok, headers: [.contentType: "application/json"], body: .init(byteBuffer: ByteBuffer(data: JSON.data(result))))
                }
            }
        }
    }

    private var registry: MemberRegistry {
        get throws(APIError) {
            guard let registry = authenticator.registry else { throw .badRequest("this server keeps no members (it was started without a member registry)") }
            return registry
        }
    }

    private func join(_ request: Request, address: String) async throws -> Response {
        if case .shut(let retryAfter) = authenticator.gate(address) { throw APIError.rateLimited(retryAfter: retryAfter) }
        let body = try await jsonBody(request)
        let secret = try Arguments(object: try JSON.object(Data(buffer: body), what: "join"), what: "join").string("secret")
        do {
            let (token, member) = try registry.redeem(secret: secret)
            await store.showAuthors()
            configuration.logger.notice("members: \(member.name) joined as \(member.role.rawValue)")
            let object: [String: Any] = ["token": token, "name": member.name, "role": member.role.rawValue, "member_id": member.memberID]
            return Response(status: .ok, headers: [.contentType: "application/json"], body: .init(byteBuffer: ByteBuffer(data: JSON.data(object))))
        } catch let error as MemberError {
            authenticator.failed(address, what: "invite")
            throw APIError.forbidden(error.description)
        }
    }

    private func listMembers() throws -> Any {
        MemberRegistry.listing(try registry.current())
    }

    private func addMember(_ arguments: Arguments, _ request: Request) throws -> Any {
        let name = try arguments.string("name")
        let role = try memberRole(arguments)
        let hours = (arguments.object["hours"] as? NSNumber)?.doubleValue ?? MemberRegistry.defaultInviteHours
        guard let server = URL(string: linkBase(request)) else { throw APIError.badRequest("members/add: cannot tell this server's address") }
        let invite = try managing { try registry.invite(name, role: role, hours: hours, server: server, pin: configuration.tls?.pin, actor: actor) }
        return ["invite": invite.text, "name": name, "role": role.rawValue]
    }

    private func changeRole(_ arguments: Arguments) throws -> Any {
        let name = try arguments.string("name")
        let role = try memberRole(arguments)
        try managing { try registry.setRole(name, role, actor: actor) }
        authenticator.revokeStale()
        return ["name": name, "role": role.rawValue]
    }

    private func removeMember(_ arguments: Arguments) throws -> Any {
        let name = try arguments.string("name")
        try managing { try registry.remove(name, actor: actor) }
        authenticator.revokeStale()
        return ["name": name, "removed": true]
    }

    private func memberRole(_ arguments: Arguments) throws -> MemberRole {
        do {
            return try MemberRole(parsing: try arguments.optionalString("role") ?? MemberRole.editor.rawValue)
        } catch let error as MemberError {
            throw APIError.badRequest(error.description)
        }
    }

    /// A registry change, its refusals (no such member, a name taken) as 409 plain text.
    private func managing<T>(_ change: () throws -> T) throws -> T {
        do {
            return try change()
        } catch let error as MemberError {
            throw APIError(status: .conflict, contentType: "text/plain; charset=utf-8", body: Data("Error: \(error.description)".utf8))
        }
    }

    /// Who the audit log says made a change over the API: the admin's member name.
    private var actor: String { Caller.member ?? ClubMember.sharedName }
}
