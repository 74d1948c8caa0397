import ByteClubConfig
import Foundation
import Logging
import Remote

/// Which club a command or the app talks to, as the shell was told: the backend flags, a
/// remote named in config.toml, or neither (config.toml's default remote, else the embedded
/// club).
public struct ClubTarget: Sendable {
    /// The backend the flags name, when they name one.
    public enum Flags: Sendable {
        /// No flag names a backend.
        case none
        /// `--data-dir`: the embedded club over this folder.
        case embedded(root: URL)
        /// `--server URL`, with its `--pin` when given.
        case club(url: URL, pin: String?)
        /// `--dropbox`.
        case dropbox
        /// `--webdav URL --user NAME`.
        case webdav(url: URL, user: String)
    }

    public var flags: Flags
    /// `--remote NAME`.
    public var remote: String?
    /// `--token`: wins over a remote's own token and BYTECLUB_TOKEN.
    public var token: String?
    /// Dropbox's hosts replaced (tests): its API, and the OAuth token endpoint.
    public var dropboxAPI: URL?
    public var oauthTokenURL: URL?

    public init(flags: Flags, remote: String?, token: String?, dropboxAPI: URL? = nil, oauthTokenURL: URL? = nil) {
        self.flags = flags
        self.remote = remote
        self.token = token
        self.dropboxAPI = dropboxAPI
        self.oauthTokenURL = oauthTokenURL
    }

    var namesBackend: Bool {
        if case .none = flags { return false }
        return true
    }
}

/// What connecting may have to ask the person at the terminal (the shell asks it its way).
public struct ConnectQuestions: Sendable {
    /// The key to pin for an https club server with none yet (trust on first use), given the
    /// remote and the config it is in when it is a named one; nil when the system's CAs vouch
    /// for the server.
    public var pin: @Sendable (URL, RemoteConfig?, ClubConfig?) async throws -> String?
    /// A WebDAV user's password at a URL (after the environment and `password_command`).
    public var password: @Sendable (_ user: String, _ url: URL) throws -> String

    public init(pin: @escaping @Sendable (URL, RemoteConfig?, ClubConfig?) async throws -> String?,
                password: @escaping @Sendable (_ user: String, _ url: URL) throws -> String) {
        self.pin = pin
        self.password = password
    }
}

/// Connecting, once for both shells (issue 54): a named remote or the flags become a
/// ``BackendChoice``, the backend is made (``Backend/connect(_:connection:retry:limits:serverLogLevel:offlineStart:firstUsePin:)``),
/// and an encrypted club gets its keyring in front (``EncryptedClubs/open(_:)``).
///
/// Errors: a config.toml problem is a `ConfigError`, a backend that cannot be made a
/// ``BackendError``, and a remote's own failures their `RemoteError`.
public enum ClubConnector {
    /// The remote from config.toml this target uses, or nil: `remote`, else the config's
    /// `default` when no flag names the backend. No config file means the flags as given, and
    /// the config is not read at all when a flag names the backend.
    public static func resolveRemote(_ target: ClubTarget, configFile: URL = Paths.config) throws(ConfigError) -> (ClubConfig, RemoteConfig)? {
        if target.remote == nil && target.namesBackend { return nil }
        guard let config = try ClubConfig.load(from: configFile) else {
            guard let remote = target.remote else { return nil }
            throw ConfigError(file: configFile, line: nil, key: nil, message: "no such file, so no remote named \"\(remote)\" (see byteclub remotes)")
        }
        if let remote = target.remote { return (config, try config.remote(named: remote)) }
        guard let name = config.defaultName else { return nil }
        return (config, try config.remote(named: name, key: "default"))
    }

    /// Connects to `target`, starting the embedded server if that is it; an encrypted club
    /// comes with its keyring in front unless `plain`. Call `close` when done.
    ///
    /// `serverLogLevel` is the embedded server's (the app logs its access lines; scripts keep
    /// it quiet). `retry` is how long requests keep trying. `offlineStart` (the app, `search`,
    /// `outbox`): a WebDAV server that cannot be reached still gives a backend, for a start from
    /// the cache (a club server's store never asks at connect).
    public static func connect(_ target: ClubTarget, connection: ConnectionOptions, questions: ConnectQuestions, retry: RetryPolicy = RetryPolicy(),
                               limits: ListingLimits = .standard, serverLogLevel: Logger.Level = .warning, offlineStart: Bool = false,
                               plain: Bool = false) async throws -> Backend {
        var backend: Backend
        if let (config, remote) = try resolveRemote(target) {
            backend = try await connect(remote, in: config, target: target, connection: connection, questions: questions, retry: retry,
                                        limits: limits, serverLogLevel: serverLogLevel, offlineStart: offlineStart)
        } else {
            let choice: BackendChoice
            switch target.flags {
            case .webdav(let url, let user): choice = .webdav(url: url, user: user, password: try questions.password(user, url))
            case .dropbox: choice = .dropbox(api: target.dropboxAPI, tokenURL: target.oauthTokenURL)
            case .club(let url, let pin): choice = .club(url: url, token: target.token, pin: pin)
            case .embedded(let root): choice = .embedded(root: root)
            case .none: choice = .embedded(root: Paths.defaultClub)
            }
            // A bare --server over https without --pin is asked about once.
            backend = try await Backend.connect(choice, connection: connection, retry: retry, limits: limits, serverLogLevel: serverLogLevel,
                                                offlineStart: offlineStart) { url in try await questions.pin(url, nil, nil) }
        }
        guard !plain else { return backend }
        do {
            return try await EncryptedClubs.open(backend)
        } catch {
            await backend.close()
            throw error
        }
    }

    /// A named remote: a club or Dropbox remote connects exactly as the flags it stands for
    /// would; a WebDAV one with its password from the environment, `password_command` or the
    /// question. The remote's folder, download folder and name go with the backend.
    private static func connect(_ remote: RemoteConfig, in config: ClubConfig, target: ClubTarget, connection: ConnectionOptions,
                                questions: ConnectQuestions, retry: RetryPolicy, limits: ListingLimits, serverLogLevel: Logger.Level,
                                offlineStart: Bool) async throws -> Backend {
        var backend: Backend
        switch remote.kind {
        case .club:
            guard let url = remote.url else { throw incomplete(remote, in: config, "a url") }
            var pin = remote.pin
            if pin == nil, url.scheme?.lowercased() == "https" { pin = try await questions.pin(url, remote, config) }
            // An explicit --token wins; then the remote's own; then BYTECLUB_TOKEN (connect's fallback).
            let token = try target.token ?? config.token(for: remote)
            if token == nil, (Paths.variable("BYTECLUB_TOKEN") ?? "").isEmpty {
                throw ConfigError(file: config.file, line: ConfigLines.line(of: ["remote", remote.name], in: config.text), key: "remote.\(remote.name)",
                                  message: "remote \"\(remote.name)\" needs a token: token_command = \"…\" (or --token, or BYTECLUB_TOKEN)")
            }
            backend = try await Backend.connect(.club(url: url, token: token, pin: pin), connection: connection, retry: retry, limits: limits,
                                                serverLogLevel: serverLogLevel)
        case .dropbox:
            backend = try await Backend.connect(.dropbox(api: target.dropboxAPI, tokenURL: target.oauthTokenURL), connection: connection, retry: retry, limits: limits,
                                                serverLogLevel: serverLogLevel)
        case .webdav:
            // The config's check makes both present for a webdav remote.
            guard let url = remote.url, let user = remote.user else { throw incomplete(remote, in: config, "a url and a user") }
            // BYTECLUB_WEBDAV_PASSWORD, then password_command, then the question.
            let password = try config.password(for: remote) ?? questions.password(user, url)
            backend = try await Backend.connectWebDAV(url: url, user: user, password: password, connection: connection, retry: retry,
                                                      limits: limits, offlineStart: offlineStart)
        }
        backend.folder = remote.folder
        backend.downloadDirectory = remote.downloadDirectory
        backend.label = remote.name
        return backend
    }

    private static func incomplete(_ remote: RemoteConfig, in config: ClubConfig, _ what: String) -> ConfigError {
        ConfigError(file: config.file, line: ConfigLines.line(of: ["remote", remote.name], in: config.text), key: "remote.\(remote.name)",
                    message: "remote \"\(remote.name)\" needs \(what)")
    }
}
