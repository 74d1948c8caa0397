import Agent
import ArgumentParser
import ClubKit
import ClubServer
import Foundation
import Logging
import Remote
import SampleClub

/// Between the command line and the background agent: which club the flags name, as the
/// agent's ``AgentRemote``, and (in the agent) the store for it.
extension BackendOptions {
    /// The club as the agent needs it, with its secret resolved here (flags, BYTECLUB_TOKEN,
    /// BYTECLUB_WEBDAV_PASSWORD or the prompt), so the agent never asks anyone anything.
    /// A named remote from config.toml is resolved to its kind, URL and secret the same way.
    func agentRemote() throws -> AgentRemote {
        var options = self
        if let (config, remote) = try resolveRemote() {
            options.remote = nil
            switch remote.kind {
            case .club:
                options.server = remote.url?.absoluteString
                options.pin = remote.pin
                if options.token == nil { options.token = try config.token(for: remote) }
            case .dropbox:
                options.dropbox = true
            case .webdav:
                options.webdav = remote.url?.absoluteString
                options.user = remote.user
                if let password = try config.password(for: remote) {
                    return try options.agentRemote(webdavPassword: password)
                }
            }
        }
        return try options.agentRemote(webdavPassword: nil)
    }

    private func agentRemote(webdavPassword: String?) throws -> AgentRemote {
        let limit = bandwidthLimit
        if let webdav, let url = URL(string: webdav) {
            let password = try webdavPassword ?? WebDAVPassword.obtain(user: user ?? "", url: url)
            return AgentRemote(kind: .webdav, key: "webdav:" + (user ?? "") + "@" + webdav, url: webdav, secret: password, user: user,
                               bandwidthLimit: limit, idleTimeout: timeout)
        }
        if dropbox {
            return AgentRemote(kind: .dropbox, key: "dropbox:" + (dropboxApi ?? "") + Paths.tokens.path, url: dropboxApi,
                               bandwidthLimit: limit, idleTimeout: timeout)
        }
        if let server {
            guard let secret = token ?? Paths.environment["BYTECLUB_TOKEN"], !secret.isEmpty else {
                throw ValidationError("--server needs --token (or BYTECLUB_TOKEN)")
            }
            return AgentRemote(kind: .club, key: "club:" + server, url: server, secret: secret, bandwidthLimit: limit, idleTimeout: timeout, pin: pin)
        }
        let root = (dataDir.map { URL(fileURLWithPath: $0) } ?? Paths.defaultClub).standardizedFileURL.path
        return AgentRemote(kind: .embedded, key: "embedded:" + root, dataDir: root, bandwidthLimit: limit, idleTimeout: timeout)
    }

    /// `--bwlimit` in bytes a second, for a transfer handed to the agent (which keeps it).
    var bandwidthLimit: Int64? { bwlimit.flatMap(Self.parseRate) }

    /// The agent's place for the club these flags name.
    static func agentPlace(_ remote: AgentRemote) throws -> AgentPlace {
        try AgentPlace(key: remote.key, stateFolder: Paths.state)
    }
}

/// The agent's stores. Uploads above 4 MiB go in 4 MiB session chunks (Dropbox's smallest),
/// so a killed agent costs at most one chunk: the journal marks each acknowledged one.
enum AgentStores {
    static let chunk: Int64 = 4 << 20

    static func make(_ remote: AgentRemote) async throws -> any RemoteStore {
        let connection = ConnectionOptions(idleTimeout: remote.idleTimeout ?? 60, bandwidthLimit: remote.bandwidthLimit,
                                           userAgent: "byteclub-agent/\(ByteClub.configuration.version)", pinnedPublicKey: remote.pin)
        switch remote.kind {
        case .club:
            guard let text = remote.url, let url = URL(string: text), let secret = remote.secret else {
                throw AgentError.refused("a club needs its URL and token")
            }
            return DropboxStore(displayName: url.absoluteString, endpoints: .club(url), tokens: StaticToken(secret),
                                connection: connection, singleUploadLimit: chunk, chunkSize: chunk)
        case .embedded:
            let (url, secret) = try await EmbeddedClubs.shared.server(for: URL(fileURLWithPath: remote.dataDir ?? Paths.defaultClub.path))
            return DropboxStore(displayName: "embedded", endpoints: .club(url), tokens: StaticToken(secret),
                                connection: connection, singleUploadLimit: chunk, chunkSize: chunk)
        case .webdav:
            guard let text = remote.url, let url = URL(string: text) else { throw AgentError.refused("a WebDAV folder needs its URL") }
            return try await Backend.connectWebDAV(url: url, user: remote.user ?? "", password: remote.secret ?? "",
                                                   connection: connection, retry: RetryPolicy()).store
        case .dropbox:
            var arguments = ["--dropbox"]
            if let api = remote.url { arguments += ["--dropbox-api", api] }
            if let limit = remote.bandwidthLimit { arguments += ["--bwlimit", String(limit)] }
            return try await BackendOptions.parse(arguments).connect().store
        }
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
            try SampleClub.seed(into: root)
            let secret = Backend.randomToken()
            var configuration = ClubServerConfiguration(root: root.path, token: secret, logger: Logger(label: "byteclub.agent.embedded"))
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
