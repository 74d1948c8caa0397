import Foundation
import Logging
import Transfer

extension WebDAVStore {
    /// Makes a store for the WebDAV folder at `url`, signed in as `user` with `password`.
    ///
    /// This is the one way the CLI (flags or a config file's remote) makes a WebDAV store:
    /// 1. a PROPFIND of the root without credentials learns the server's scheme from its 401 challenge:
    ///    Basic is then sent with every request at once (as `curl -u` does), Digest answers each
    ///    challenge; a server that asks for nothing gets the password only if it ever asks;
    /// 2. a PROPFIND with them checks the password (`.unauthorized` when refused), and an
    ///    OPTIONS reads the `DAV:` classes, which decide how saves are protected (LOCK works on
    ///    class 2).
    ///
    /// The password goes to curl only (``Credentials``): it is in no URL, header dictionary,
    /// log line or error message.
    public static func connect(url: URL, user: String, password: String, connection: ConnectionOptions = ConnectionOptions(),
                               retry: RetryPolicy = RetryPolicy(), logger: Logger = Logger(label: "byteclub.webdav"),
                               listingLimits: ListingLimits = .standard) async throws(RemoteError) -> WebDAVStore {
        try checkScheme(url)
        let root = folderURL(url)
        let probe = WebDAVStore(root: root, configuration: connection.sessionConfiguration, retry: retry, logger: logger, listingLimits: listingLimits)
        // PROPFIND, not OPTIONS: servers answer OPTIONS (a CORS preflight) without asking who you are.
        let challenge = try await probe.withRetries(idempotent: true) { () async throws(RemoteError) -> HTTPResponse? in
            let reply = await probe.exchange("PROPFIND", root, headers: ["Depth": "0", "Content-Type": "application/xml; charset=utf-8"],
                                             body: .data(propfindBody))
            if let error = reply.error, reply.status != 401 { throw remoteError(error, response: reply.response, path: "", method: "PROPFIND") }
            return reply.response
        }
        var configuration = connection.sessionConfiguration
        configuration.credentials = Credentials(user: user, password: password, schemes: schemes(challenge, inTheClear: isCleartext(root)))
        let store = WebDAVStore(root: root, configuration: configuration, retry: retry, logger: logger, listingLimits: listingLimits)
        // The root must be a folder we may list: this is where a wrong password shows. (Its
        // answer is not parsed: a `get` then never touches the XML parser at all.)
        _ = try await store.withRetries(idempotent: true) { () async throws(RemoteError) -> Reply in
            let reply = try await store.send("PROPFIND", root, path: "", headers: ["Depth": "0", "Content-Type": "application/xml; charset=utf-8"],
                                             body: .data(propfindBody))
            guard reply.status == 207 else { throw RemoteError.server(status: reply.status, detail: "PROPFIND on the WebDAV root answered \(reply.status), not a multistatus") }
            return reply
        }
        _ = try await store.serverCapabilities()
        logger.debug("WebDAV at \(store.displayName): \(configuration.credentials?.schemes == .basic ? "Basic" : "Digest or Basic")")
        return store
    }

    /// A store for the WebDAV folder at `url` made without asking the server anything: for the
    /// app's start while the server cannot be reached (it starts from its cache, as for a club).
    ///
    /// With no challenge read, curl picks Basic or Digest from each request's 401 (a round trip
    /// more per request than a connected store; over plain http to another machine it prefers
    /// Digest, as ``connect(url:user:password:connection:retry:logger:listingLimits:)`` does), a
    /// refused password shows at the first request that reaches the server, and the `DAV:`
    /// classes are asked before the first protected write, as always.
    public static func unverified(url: URL, user: String, password: String, connection: ConnectionOptions = ConnectionOptions(),
                                  retry: RetryPolicy = RetryPolicy(), logger: Logger = Logger(label: "byteclub.webdav"),
                                  listingLimits: ListingLimits = .standard) throws(RemoteError) -> WebDAVStore {
        try checkScheme(url)
        var configuration = connection.sessionConfiguration
        configuration.credentials = Credentials(user: user, password: password, schemes: .any)
        return WebDAVStore(root: folderURL(url), configuration: configuration, retry: retry, logger: logger, listingLimits: listingLimits)
    }

    /// Refuses a URL that is not http(s) with a host.
    private static func checkScheme(_ url: URL) throws(RemoteError) {
        guard let scheme = url.scheme?.lowercased(), ["http", "https"].contains(scheme), url.host != nil else {
            throw .local("a WebDAV URL must be http:// or https://, e.g. https://cloud.example.org/remote.php/dav/files/ray/")
        }
    }

    /// The schemes to offer after an unauthenticated request's answer: Basic at once when the
    /// server offers it (no extra round trip per request), else Digest; both (curl picks after
    /// the challenge) when it asked for none. `inTheClear` (plain http to another machine):
    /// Digest whenever it is offered, since a Basic password could be read off the wire.
    static func schemes(_ response: HTTPResponse?, inTheClear: Bool = false) -> Credentials.Schemes {
        guard let response, response.statusCode == 401 else { return .any }
        let offered = response.headerFields.filter { $0.name.caseInsensitiveCompare("WWW-Authenticate") == .orderedSame }
            .map { $0.value.lowercased() }
        let basic = offered.contains(where: { $0.hasPrefix("basic") || $0.contains(", basic") })
        let digest = offered.contains(where: { $0.hasPrefix("digest") })
        if digest, inTheClear || !basic { return .digest }
        return basic ? .basic : .any
    }

    /// Whether requests to `url` cross the network unencrypted: http to a host other than this
    /// machine's loopback.
    static func isCleartext(_ url: URL) -> Bool {
        guard url.scheme?.lowercased() == "http" else { return false }
        let host = (url.host ?? "").lowercased().trimmingCharacters(in: CharacterSet(charactersIn: "[]"))
        return !(host == "localhost" || host == "::1" || host.hasPrefix("127."))
    }

    /// The server's capabilities, asked once with OPTIONS on the root and kept.
    public func serverCapabilities() async throws(RemoteError) -> WebDAVCapabilities {
        if let known = capabilities.withLock({ $0 }) { return known }
        let found = try await withRetries(idempotent: true) { () async throws(RemoteError) -> WebDAVCapabilities in
            let reply = try await send("OPTIONS", root, path: "")
            return WebDAVCapabilities(davHeader: reply.header("DAV"))
        }
        capabilities.withLock { $0 = found }
        return found
    }
}
