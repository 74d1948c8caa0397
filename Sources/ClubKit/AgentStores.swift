import Agent
import ClubServer
import Foundation
import Logging
import Remote
import SampleClub

/// The agent's stores. Uploads above 4 MiB go in 4 MiB session chunks (Dropbox's smallest),
/// so a killed agent costs at most one chunk: the journal marks each acknowledged one.
public enum AgentStores {
    public static let chunk: Int64 = 4 << 20

    /// The store for `remote`; `version` goes in the User-Agent (`byteclub-agent/VERSION`).
    public static func make(_ remote: AgentRemote, version: String) async throws -> any RemoteStore {
        let store = try await plain(remote, version: version)
        // An encrypted club's transfers are sealed and opened here as the commands' are.
        let folder = remote.folder ?? "/byteclub"
        let key = Paths.key(displayName: store.displayName, embeddedRoot: remote.dataDir.map { URL(fileURLWithPath: $0) }, folder: folder)
        return try await EncryptedStore.wrapping(store, folder: folder, key: key)
    }

    static func plain(_ remote: AgentRemote, version: String) async throws -> any RemoteStore {
        let connection = ConnectionOptions(idleTimeout: remote.idleTimeout ?? 60, bandwidthLimit: remote.bandwidthLimit,
                                           userAgent: "byteclub-agent/\(version)", pinnedPublicKey: remote.pin)
        switch remote.kind {
        case .club:
            guard let text = remote.url, let url = URL(string: text), let secret = remote.secret else {
                throw AgentError.refused("a club needs its URL and token")
            }
            return DropboxStore(displayName: url.absoluteString, endpoints: .club(url), tokens: StaticToken(secret),
                                connection: connection, retry: retry, singleUploadLimit: chunk, chunkSize: chunk)
        case .embedded:
            let (url, secret) = try await EmbeddedClubs.shared.server(for: URL(fileURLWithPath: remote.dataDir ?? Paths.defaultClub.path))
            return DropboxStore(displayName: "embedded", endpoints: .club(url), tokens: StaticToken(secret),
                                connection: connection, retry: retry, singleUploadLimit: chunk, chunkSize: chunk)
        case .webdav:
            guard let text = remote.url, let url = URL(string: text) else { throw AgentError.refused("a WebDAV folder needs its URL") }
            return try await Backend.connectWebDAV(url: url, user: remote.user ?? "", password: remote.secret ?? "",
                                                   connection: connection, retry: retry).store
        case .dropbox:
            // The login's tokens on this machine, as `--dropbox` (with `--dropbox-api`) reads them.
            return try await Backend.connect(.dropbox(api: remote.url.flatMap(URL.init(string:)), tokenURL: nil), connection: connection,
                                             retry: retry).store
        }
    }

    /// The agent's tries: it works in the background, where no one waits for an answer, so a
    /// server that refuses connections (restarting) is tried as long as any outage is, not given
    /// up on within a second as a command in a terminal does (Remote's `refusedAttempts`).
    static var retry: RetryPolicy {
        var retry = RetryPolicy()
        retry.refusedAttempts = retry.maxAttempts
        return retry
    }
}

/// The agent's embedded club servers: the app's ends with the app, so the agent serves the
/// folder itself, once, however many stores (one per bandwidth limit) reach it.
actor EmbeddedClubs {
    static let shared = EmbeddedClubs()
    private var servers: [String: Task<(URL, String), any Error>] = [:]

    func server(for root: URL) async throws -> (URL, String) {
        if let running = servers[root.path] { return try await running.value }
        let starting = Task { () async throws -> (URL, String) in
            try Paths.makeDataFolder(for: root)
            try SampleClub.seed(into: root)
            let secret = Backend.randomToken()
            var configuration = Backend.embeddedConfiguration(root: root, secret: secret, label: "byteclub.agent.embedded")
            configuration.logger.logLevel = .warning
            let server = try await ClubServer.start(configuration)
            return (server.baseURL, secret)
        }
        servers[root.path] = starting
        do {
            return try await starting.value
        } catch {
            servers[root.path] = nil
            throw error
        }
    }
}
