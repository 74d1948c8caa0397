import DropboxWire
import Foundation

// Share links over Dropbox v2: `sharing/create_shared_link_with_settings`,
// `sharing/list_shared_links` and `sharing/revoke_shared_link`, on Dropbox and the club server.

extension DropboxStore: SharingStore {
    public func createSharedLink(_ path: String, expires: Date?) async throws(RemoteError) -> (link: RemoteSharedLink, existed: Bool) {
        var settings: [String: Any] = ["requested_visibility": "public"]
        if let expires { settings["expires"] = DropboxTimestamp.format(expires) }
        let body: Data
        do { body = try JSONSerialization.data(withJSONObject: ["path": path, "settings": settings]) } catch { throw .local("cannot encode the request") }
        // Making the same link twice answers the first: safe to retry.
        let made: (SharedLinkMetadata?, Bool)
        do {
            made = try await makeLink(path: path, body: body)
        } catch .server(409, let summary) where summary.hasPrefix("settings_error") {
            // Dropbox's Basic accounts cannot set an expiry, for one.
            throw .local("The server will not make this link with these settings (\(summary.replacingOccurrences(of: "/..", with: ""))); try without --expires")
        } catch .server(409, let summary) where summary.hasPrefix("email_not_verified") {
            throw .local("Dropbox makes share links only once the account's email address is verified")
        }
        if let link = made.0 { return (try Self.remote(link), made.1) }
        // Dropbox may leave the existing link out of the error: ask for it.
        guard let link = try await sharedLinks(path).first else { throw .server(status: 409, detail: "shared_link_already_exists, but no link is listed") }
        return (link, true)
    }

    /// One `create_shared_link_with_settings`: the new link, or the existing one (if the error
    /// carried it) with `true`.
    private func makeLink(path: String, body: Data) async throws(RemoteError) -> (SharedLinkMetadata?, Bool) {
        try await withRetries(idempotent: true) { () async throws(RemoteError) -> (SharedLinkMetadata?, Bool) in
            let request = try await self.request(.createSharedLink, json: true)
            let reply = await self.exchange(request, body: .data(body))
            if case .httpStatus(409, let errorBody)? = reply.error, Self.errorSummary(errorBody).hasPrefix("shared_link_already_exists") {
                return (Self.existingLink(errorBody), true)
            }
            try self.check(reply, path: path)
            return (try Self.decode(SharedLinkMetadata.self, from: reply.body), false)
        }
    }

    public func sharedLinks(_ path: String?) async throws(RemoteError) -> [RemoteSharedLink] {
        var argument: [String: Any] = [:]
        if let path {
            argument["path"] = path
            argument["direct_only"] = true
        }
        var links: [RemoteSharedLink] = []
        // Real Dropbox pages; a bounded number of them (a club has a handful of links).
        for _ in 0..<100 {
            let page = try await rpc(.listSharedLinks, argument, path: path ?? "", idempotent: true, decoding: ListSharedLinksResult.self)
            for link in page.links { links.append(try Self.remote(link)) }
            guard page.hasMore, let cursor = page.cursor else { return links }
            argument["cursor"] = cursor
        }
        return links
    }

    public func revokeSharedLink(url: String) async throws(RemoteError) {
        do {
            _ = try await rpc(.revokeSharedLink, ["url": url], path: url, idempotent: true, decoding: JSONNull.self)
        } catch .server(409, let summary) where summary.hasPrefix("shared_link_not_found") || summary.hasPrefix("shared_link_malformed") {
            throw .notFound(url)
        }
    }

    static func existingLink(_ body: Data) -> SharedLinkMetadata? {
        struct Body: Decodable { var error: SharedLinkAlreadyExists }
        return (try? JSONDecoder().decode(Body.self, from: body))?.error.metadata
    }

    /// Checks what a server says before it reaches a person: a link must be an http(s) URL.
    static func remote(_ link: SharedLinkMetadata) throws(RemoteError) -> RemoteSharedLink {
        guard let url = URL(string: link.url), let scheme = url.scheme?.lowercased(), scheme == "https" || scheme == "http", url.host != nil else {
            throw .server(status: 0, detail: "the server answered a share link that is not an http(s) URL")
        }
        return RemoteSharedLink(url: link.url, name: link.name, path: link.pathLower, expires: link.expires)
    }
}

/// The JSON `null` that calls returning nothing answer.
struct JSONNull: Decodable, Sendable {
    init(from decoder: any Decoder) throws {
        guard try decoder.singleValueContainer().decodeNil() else {
            throw DecodingError.dataCorrupted(.init(codingPath: [], debugDescription: "expected null"))
        }
    }
}
