import ClubServer
import Durable
import Foundation
import Logging
import Remote
import SampleClub

/// A connected store, whatever its kind (a club server, Dropbox, WebDAV), and the embedded
/// server behind it if there is one.
public struct Backend: Sendable {
    public var store: any RemoteStore
    public let server: ClubServer?
    /// The app folder (a named remote's `folder`).
    public var folder = "/byteclub"
    /// Where the UI saves downloads when `--download-dir` is not given (a named remote's `download_dir`).
    public var downloadDirectory: URL?
    /// The embedded club's folder (nil for every other kind).
    public var embeddedRoot: URL?
    /// Whose Dropbox (its account id); nil for every other kind, where the URL names the club.
    public var account: String?

    /// Account names this club's folders may still be under (nil: none, the plain `dropbox`).
    public var formerAccounts: [String?] = []
    /// What the status bar calls this club: `embedded`, `club`, `dropbox`, `webdav`, or the name
    /// of the config.toml remote it came from. Never the URL: the user knows a club by its
    /// name, and a URL can be long and carry a path. (``key`` still comes from the URL.)
    public var label: String

    public init(store: any RemoteStore, server: ClubServer?, label: String, embeddedRoot: URL? = nil, account: String? = nil,
                formerAccounts: [String?] = []) {
        self.store = store
        self.server = server
        self.label = label
        self.embeddedRoot = embeddedRoot
        self.account = account
        self.formerAccounts = formerAccounts
    }

    /// The name of this club's drafts, outbox and offline-cache folders (``Paths/key(displayName:embeddedRoot:folder:account:)``).
    public var key: String { Paths.key(displayName: store.displayName, embeddedRoot: embeddedRoot, folder: folder, account: account) }

    /// Moves this club's drafts, outbox and cache from a name they had before
    /// (``formerAccounts``) to ``key``, so nothing queued while the account id was unknown (an
    /// older token file used offline), or before each account had folders of its own, is
    /// stranded there. Only into a folder that does not exist yet: what is there already is
    /// never mixed with another. Then takes this club's drafts from the folder every club
    /// shared before drafts were per club (``adoptOlderDrafts()``).
    public func adoptFormerFolders() {
        let manager = FileManager.default
        for former in formerAccounts {
            let old = Paths.key(displayName: store.displayName, embeddedRoot: embeddedRoot, folder: folder, account: former)
            guard old != key else { continue }
            for (from, to) in [(Paths.drafts(old), Paths.drafts(key)), (Paths.outbox(old), Paths.outbox(key)), (Paths.cache(old), Paths.cache(key))]
            where manager.fileExists(atPath: from.path) && !manager.fileExists(atPath: to.path) {
                try? PrivateFiles.folder(to.deletingLastPathComponent())
                try? manager.moveItem(at: from, to: to)
            }
        }
        adoptOlderDrafts()
    }

    public func close() async {
        await server?.stop()
    }
}

/// Why a backend could not be made, in words the command line prints as they are.
public enum BackendError: Error, Equatable, CustomStringConvertible {
    /// `--server` without a token (nor BYTECLUB_TOKEN).
    case serverNeedsToken
    /// The embedded club's folder could not be made or seeded.
    case cannotSetUpClub(path: String, reason: String)

    public var description: String {
        switch self {
        case .serverNeedsToken: "--server needs --token (or BYTECLUB_TOKEN)"
        case .cannotSetUpClub(let path, let reason): "cannot set up the club folder \(path): \(reason)"
        }
    }
}

/// Which folder to connect to, as plain values (the executable's flags, or a named remote,
/// become one of these).
public enum BackendChoice: Sendable {
    /// The embedded server over `root`.
    case embedded(root: URL)
    /// A club server at `url`; `token` nil means BYTECLUB_TOKEN. `pin`: the key fingerprint.
    case club(url: URL, token: String?, pin: String?)
    /// The user's Dropbox through the tokens kept at login; `api` and `tokenURL` replace
    /// Dropbox's hosts (tests).
    case dropbox(api: URL?, tokenURL: URL?)
    /// A WebDAV folder.
    case webdav(url: URL, user: String, password: String)
}

extension Backend {
    /// Connects to `choice`, starting the embedded server if that is it. Call `close` when done.
    ///
    /// `serverLogLevel` is the embedded server's. `retry` is how long requests keep trying.
    /// `offlineStart` (the app): a WebDAV server that cannot be reached still gives a backend,
    /// for a start from the cache. `firstUsePin`: asked for an https club server given without a
    /// pin (trust on first use; nil: none).
    public static func connect(_ choice: BackendChoice, connection: ConnectionOptions, retry: RetryPolicy = RetryPolicy(),
                               limits: ListingLimits = .standard, serverLogLevel: Logger.Level = .warning, offlineStart: Bool = false,
                               firstUsePin: @Sendable (URL) async throws -> String? = { _ in nil }) async throws -> Backend {
        switch choice {
        case .webdav(let url, let user, let password):
            return try await connectWebDAV(url: url, user: user, password: password, connection: connection, retry: retry, limits: limits,
                                           offlineStart: offlineStart)
        case .dropbox(let api, let tokenURL):
            let endpoints = api.map(DropboxEndpoints.club) ?? .dropbox
            var oauth = OAuthEndpoints.dropbox
            if let tokenURL { oauth.token = tokenURL }
            let file = TokenFile(url: Paths.tokens)
            let stored = try file.load()
            let tokens = try OAuthTokens(file: file, client: OAuthClient(appKey: stored.appKey, endpoints: oauth))
            // Dropbox mode, even against a stand-in (`--dropbox-api`): none of a club's own routes.
            let store = DropboxStore(displayName: "dropbox", endpoints: endpoints, tokens: tokens, connection: connection, retry: retry,
                                     listingLimits: limits, speaksClub: false)
            // One quick question, not the caller's retries: offline, the fallback below serves.
            var once = RetryPolicy()
            once.maxAttempts = 1
            let asker = DropboxStore(displayName: "dropbox", endpoints: endpoints, tokens: tokens, connection: connection, retry: once,
                                     speaksClub: false)
            let account = await DropboxAccount.resolve(stored, file: file, store: asker)
            // Where this login's folders were before: under the fallback name while its id was
            // unknown, and under plain `dropbox` before each account had folders of its own.
            let fallback = DropboxAccount.fallback(stored)
            return Backend(store: store, server: nil, label: "dropbox", account: account, formerAccounts: account == fallback ? [nil] : [fallback, nil])
        case .club(let url, let token, let pin):
            guard let secret = token ?? Paths.variable("BYTECLUB_TOKEN"), !secret.isEmpty else { throw BackendError.serverNeedsToken }
            var connection = connection
            if let pin {
                connection.pinnedPublicKey = pin
            } else if url.scheme?.lowercased() == "https" {
                connection.pinnedPublicKey = try await firstUsePin(url)
            }
            return Backend(store: DropboxStore(displayName: url.absoluteString, endpoints: .club(url), tokens: StaticToken(secret),
                                               connection: connection, retry: retry, listingLimits: limits), server: nil, label: "club")
        case .embedded(let root):
            // Our own server on 127.0.0.1, a random port and a random token.
            do {
                try Paths.makeDataFolder(for: root)
                try SampleClub.seed(into: root)
            } catch {
                throw BackendError.cannotSetUpClub(path: root.path, reason: error.localizedDescription)
            }
            let secret = randomToken()
            var configuration = embeddedConfiguration(root: root, secret: secret, label: "byteclub.embedded")
            configuration.logger.logLevel = serverLogLevel
            let server = try await ClubServer.start(configuration)
            let store = DropboxStore(displayName: "embedded", endpoints: .club(server.baseURL), tokens: StaticToken(secret), connection: connection,
                                     retry: retry, listingLimits: limits)
            return Backend(store: store, server: server, label: "embedded", embeddedRoot: root)
        }
    }

    /// A backend on the WebDAV folder at `url`: the one step from (url, user, password) to a
    /// connected store, for flags and named remotes alike. Checks the password at once: a
    /// refused one fails here with `.unauthorized` (exit 5).
    ///
    /// `offlineStart` (the app): a server that cannot be reached at all is no reason to stop,
    /// since the app starts from its cache as it does for a club server; the store is then made
    /// without asking the server (``WebDAVStore/unverified(url:user:password:connection:retry:logger:listingLimits:)``),
    /// and the app says offline and catches up when the server is back. Scripts keep failing
    /// at once (exit 6).
    public static func connectWebDAV(url: URL, user: String, password: String, connection: ConnectionOptions, retry: RetryPolicy,
                                     limits: ListingLimits = .standard, offlineStart: Bool = false) async throws -> Backend {
        // For an offline start the first questions are asked once: a server that refuses the
        // connection is away, and trying it again and again would only run into the deadline
        // below, which would then be said as a timeout ("sent nothing for 2 s") where the
        // truth is "connection refused". The store keeps that policy: an offline start's callers
        // (the app, search, links, outbox) leave what they could not send waiting.
        var probing = retry
        if offlineStart { probing.retriesUnreachable = false }
        let connecting: @Sendable () async -> Result<WebDAVStore, RemoteError> = { [probing] in
            do throws(RemoteError) {
                return .success(try await WebDAVStore.connect(url: url, user: user, password: password, connection: connection, retry: probing,
                                                              listingLimits: limits))
            } catch {
                return .failure(error)
            }
        }
        // The app draws its first frame only once it has a store: a server that takes longer
        // than `probeLimit` to say how it signs in is treated as away for the start (the app
        // starts from its cache and says so); the store made then asks as it goes.
        let outcome = offlineStart ? await firstOf(connecting, orAfter: probeLimit) : await connecting()
        switch outcome {
        case .success(let store):
            return Backend(store: store, server: nil, label: "webdav")
        case .failure(let error):
            guard offlineStart, error.isUnreachable else { throw error }
            // The probe's own deadline is not the user's --timeout: said as what it is.
            let why: String
            if case .stalled(let seconds) = error { why = "no answer within \(Int(seconds)) s" } else { why = error.message }
            Logger(label: "byteclub").notice("the WebDAV server cannot be reached (\(why)): starting from the cache")
            let store = try WebDAVStore.unverified(url: url, user: user, password: password, connection: connection, retry: retry,
                                                   listingLimits: limits)
            return Backend(store: store, server: nil, label: "webdav")
        }
    }

    /// How long the app waits for a WebDAV server's first answers before it starts from its cache.
    public static let probeLimit: Duration = .seconds(2)

    /// `work`'s answer, or a stall once `limit` has passed first (the work is then cancelled).
    static func firstOf(_ work: @escaping @Sendable () async -> Result<WebDAVStore, RemoteError>,
                        orAfter limit: Duration) async -> Result<WebDAVStore, RemoteError> {
        await withTaskGroup(of: Result<WebDAVStore, RemoteError>?.self) { group in
            group.addTask { await work() }
            group.addTask {
                try? await Task.sleep(for: limit)
                return Task.isCancelled ? nil : .failure(.stalled(seconds: Double(limit.components.seconds)))
            }
            var answer: Result<WebDAVStore, RemoteError> = .failure(.cancelled)
            for await result in group {
                guard let result else { continue }
                answer = result
                break
            }
            group.cancelAll()
            return answer
        }
    }

    /// The embedded club's server over `root`: its one member is this machine's user
    /// (``LocalMember``), with `secret` as their token, so the club names who made each change
    /// as any club of members does (`sharing_info.modified_by`): "you" in `log`, your own
    /// changes known as yours in the app, your name in a template's `{{author}}`. Every process
    /// that serves the folder (the app, a command, the agent) names the same member, so the
    /// same account: the id comes from the name, not the token.
    public static func embeddedConfiguration(root: URL, secret: String, label: String) -> ClubServerConfiguration {
        var configuration = ClubServerConfiguration(root: root.path, token: "", logger: Logger(label: label))
        configuration.members = [ClubMember(name: LocalMember.name(), token: secret)]
        return configuration
    }

    /// 32 random bytes as hex: the embedded server's token, an agent's secret.
    public static func randomToken() -> String {
        var generator = SystemRandomNumberGenerator()
        return (0..<32).map { _ in String(format: "%02x", UInt8.random(in: 0...255, using: &generator)) }.joined()
    }
}

/// Whose Dropbox a login is, for the names of its outbox and cache folders.
public enum DropboxAccount {
    /// The `account_id` kept at login; for a token file from before it was kept, asked once of
    /// Dropbox (`users/get_current_account`) and written into the file. Offline with such an
    /// old file, ``fallback(_:)`` stands in: one login never shares another's folders, even then.
    public static func resolve(_ stored: StoredTokens, file: TokenFile, store: DropboxStore) async -> String {
        if let id = stored.accountID, !id.isEmpty { return id }
        if let account = try? await store.currentAccount() {
            // Reread: asking may have refreshed the access token, which is in the file now.
            if var latest = try? file.load(), latest.refreshToken == stored.refreshToken {
                latest.accountID = account.id
                try? file.save(latest)
            }
            return account.id
        }
        return fallback(stored)
    }

    /// What stands in for an account id that is not known yet: a hash of the refresh token.
    public static func fallback(_ stored: StoredTokens) -> String {
        "login-" + String(UInt64(bitPattern: Int64(stored.refreshToken.hashValueStable)), radix: 16)
    }
}
