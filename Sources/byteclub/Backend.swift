import ArgumentParser
import ClubServer
import Foundation
import Logging
import Remote
import SampleClub

/// Which club folder to talk to: `--server URL --token T`, `--dropbox`, or (by default) the
/// embedded server over `--data-dir`.
struct BackendOptions: ParsableArguments {
    @Option(help: "A club server, e.g. http://192.168.1.20:8421.") var server: String?
    @Option(help: "The club server's token (or set BYTECLUB_TOKEN).") var token: String?
    @Option(help: ArgumentHelp("The club server's key fingerprint, as `byteclub serve` prints it; only that key is accepted.", valueName: "sha256//…"))
    var pin: String?
    @Flag(help: "Use your Dropbox (after `byteclub login dropbox`).") var dropbox = false
    @Option(help: "A WebDAV folder, e.g. https://cloud.example.org/remote.php/dav/files/ray/ (password from BYTECLUB_WEBDAV_PASSWORD or a prompt).")
    var webdav: String?
    @Option(help: "The WebDAV user name (with --webdav).") var user: String?
    @Option(help: "A remote named in $XDG_CONFIG_HOME/byteclub/config.toml (see `byteclub remotes`).") var remote: String?
    @Option(help: "The embedded club folder (default: $XDG_DATA_HOME/byteclub/club).") var dataDir: String?
    @Option(help: "Bandwidth limit per transfer, e.g. 500K or 2M (bytes per second).") var bwlimit: String?
    @Option(help: "Seconds without any data before a request fails.") var timeout: Double = 60
    @Option(help: .hidden) var dropboxApi: String?
    @Option(help: .hidden) var oauthTokenUrl: String?
    /// The most entries a listing gathers before it stops (tests lower it; default 1,000,000).
    @Option(help: .hidden) var listingLimit: Int?

    func validate() throws {
        if server != nil && dropbox { throw ValidationError("use either --server or --dropbox, not both") }
        try validateWebDAV()
        try validateRemote()
        if let server {
            guard let url = URL(string: server), ["http", "https"].contains(url.scheme ?? ""), url.host != nil else {
                throw ValidationError("--server must be an http:// or https:// URL, e.g. http://192.168.1.20:8421")
            }
        }
        if let pin {
            guard pin.hasPrefix("sha256//"), Data(base64Encoded: String(pin.dropFirst(8)))?.count == 32 else {
                throw ValidationError("--pin must be sha256// and a base64 SHA-256, as `byteclub serve` prints it")
            }
            guard server.flatMap(URL.init(string:))?.scheme?.lowercased() == "https" else {
                throw ValidationError("--pin needs an https:// --server: a pinned club is never reached over plain HTTP")
            }
        }
        if let bwlimit, Self.parseRate(bwlimit) == nil { throw ValidationError("bad --bwlimit '\(bwlimit)': use e.g. 500K, 2M or 1048576") }
        guard timeout > 0, timeout.isFinite else { throw ValidationError("--timeout must be a positive number of seconds") }
        if let listingLimit, listingLimit < 1 { throw ValidationError("--listing-limit must be at least 1") }
    }

    /// "500K" → 512000 bytes per second.
    static func parseRate(_ text: String) -> Int64? {
        let trimmed = text.trimmingCharacters(in: .whitespaces).uppercased()
        let units: [(String, Double)] = [("G", 1_073_741_824), ("M", 1_048_576), ("K", 1024), ("B", 1)]
        for (suffix, factor) in units where trimmed.hasSuffix(suffix) {
            guard let value = Double(trimmed.dropLast()), value > 0 else { return nil }
            return Int64(value * factor)
        }
        guard let value = Int64(trimmed), value > 0 else { return nil }
        return value
    }

    var connection: ConnectionOptions {
        ConnectionOptions(idleTimeout: timeout, bandwidthLimit: bwlimit.flatMap(Self.parseRate), userAgent: "byteclub/\(ByteClub.configuration.version)",
                          pinnedPublicKey: pin)
    }

    /// Connects, starting the embedded server if that is the backend. Call `close` when done.
    ///
    /// `serverLogLevel` is the embedded server's: the UI logs its access lines to byteclub.log
    /// (`.info`); scripts, whose log is stderr, keep it quiet. `retry` is how long requests keep
    /// trying: scripts wait out long outages, the UI reports within seconds (and keeps drafts).
    ///
    /// `offlineStart` (the app): a WebDAV server that cannot be reached still gives a backend,
    /// for a start from the cache (a club server's store never asks at connect).
    func connect(serverLogLevel: Logger.Level = .warning, retry: RetryPolicy = RetryPolicy(), offlineStart: Bool = false) async throws -> Backend {
        // --remote NAME, or the config's default when no flag names the backend.
        if let configured = try await connectConfigured(serverLogLevel: serverLogLevel, retry: retry, offlineStart: offlineStart) {
            return configured
        }
        let limits = listingLimit.map { ListingLimits(maxEntries: $0) } ?? .standard
        if let webdav, let url = URL(string: webdav) {
            let password = try WebDAVPassword.obtain(user: user ?? "", url: url)
            return try await Self.connectWebDAV(url: url, user: user ?? "", password: password, connection: connection, retry: retry, limits: limits,
                                                offlineStart: offlineStart)
        }
        if dropbox {
            let endpoints = dropboxApi.flatMap(URL.init(string:)).map(DropboxEndpoints.club) ?? .dropbox
            var oauth = OAuthEndpoints.dropbox
            if let tokenURL = oauthTokenUrl.flatMap(URL.init(string:)) { oauth.token = tokenURL }
            let file = TokenFile(url: Paths.tokens)
            let stored = try file.load()
            let tokens = try OAuthTokens(file: file, client: OAuthClient(appKey: stored.appKey, endpoints: oauth))
            let store = DropboxStore(displayName: "dropbox", endpoints: endpoints, tokens: tokens, connection: connection, retry: retry,
                                     listingLimits: limits)
            // One quick question, not the caller's retries: offline, the fallback below serves.
            var once = RetryPolicy()
            once.maxAttempts = 1
            let asker = DropboxStore(displayName: "dropbox", endpoints: endpoints, tokens: tokens, connection: connection, retry: once)
            let account = await Self.dropboxAccount(stored, file: file, store: asker)
            // Where this login's folders were before: under the fallback name while its id was
            // unknown, and under plain `dropbox` before each account had folders of its own.
            let fallback = Self.fallbackAccount(stored)
            return Backend(store: store, server: nil, account: account, formerAccounts: account == fallback ? [nil] : [fallback, nil])
        }
        if let server, let url = URL(string: server) {
            guard let secret = token ?? Paths.environment["BYTECLUB_TOKEN"], !secret.isEmpty else {
                throw ValidationError("--server needs --token (or BYTECLUB_TOKEN)")
            }
            var connection = connection
            if pin == nil, url.scheme?.lowercased() == "https" {
                // A named remote's pin came through connectConfigured; a bare --server is asked about once.
                connection.pinnedPublicKey = try await FirstUse.pin(for: url, remote: nil, config: nil)
            }
            return Backend(store: DropboxStore(displayName: url.absoluteString, endpoints: .club(url), tokens: StaticToken(secret),
                                               connection: connection, retry: retry, listingLimits: limits), server: nil)
        }
        // Embedded: our own server on 127.0.0.1, a random port and a random token.
        let root = dataDir.map { URL(fileURLWithPath: $0) } ?? Paths.defaultClub
        do {
            try SampleClub.seed(into: root)
        } catch {
            throw ValidationError("cannot set up the club folder \(root.path): \(error.localizedDescription)")
        }
        let secret = Self.randomToken()
        var configuration = ClubServerConfiguration(root: root.path, token: secret, logger: Logger(label: "byteclub.embedded"))
        configuration.logger.logLevel = serverLogLevel
        let server = try await ClubServer.start(configuration)
        let store = DropboxStore(displayName: "embedded", endpoints: .club(server.baseURL), tokens: StaticToken(secret), connection: connection, retry: retry,
                                 listingLimits: limits)
        return Backend(store: store, server: server, embeddedRoot: root)
    }

    /// Whose Dropbox this is, for the outbox's and the cache's folder names: the `account_id`
    /// kept at login; for a token file from before it was kept, asked once of Dropbox
    /// (`users/get_current_account`) and written into the file. Offline with such an old file, a
    /// hash of the refresh token stands in: one login never shares another's folders, even then.
    static func dropboxAccount(_ stored: StoredTokens, file: TokenFile, store: DropboxStore) async -> String {
        if let id = stored.accountID, !id.isEmpty { return id }
        if let account = try? await store.currentAccount() {
            // Reread: asking may have refreshed the access token, which is in the file now.
            if var latest = try? file.load(), latest.refreshToken == stored.refreshToken {
                latest.accountID = account.id
                try? file.save(latest)
            }
            return account.id
        }
        return fallbackAccount(stored)
    }

    /// What stands in for an account id that is not known yet: a hash of the refresh token.
    static func fallbackAccount(_ stored: StoredTokens) -> String {
        "login-" + String(UInt64(bitPattern: Int64(stored.refreshToken.hashValueStable)), radix: 16)
    }

    static func randomToken() -> String {
        var generator = SystemRandomNumberGenerator()
        return (0..<32).map { _ in String(format: "%02x", UInt8.random(in: 0...255, using: &generator)) }.joined()
    }
}

/// A connected store, whatever its kind (a club server, Dropbox, WebDAV), and the embedded
/// server behind it if there is one.
struct Backend: Sendable {
    let store: any RemoteStore
    let server: ClubServer?
    /// The app folder (a named remote's `folder`).
    var folder = "/byteclub"
    /// Where the UI saves downloads when `--download-dir` is not given (a named remote's `download_dir`).
    var downloadDirectory: URL?
    /// The embedded club's folder (nil for every other kind).
    var embeddedRoot: URL?
    /// Whose Dropbox (its account id); nil for every other kind, where the URL names the club.
    var account: String?

    /// Account names this club's folders may still be under (nil: none, the plain `dropbox`).
    var formerAccounts: [String?] = []

    /// The name of this club's outbox and offline-cache folders (``Paths/key(displayName:embeddedRoot:folder:account:)``).
    var key: String { Paths.key(displayName: store.displayName, embeddedRoot: embeddedRoot, folder: folder, account: account) }

    /// Moves this club's outbox and cache from a name they had before (``formerAccounts``) to
    /// ``key``, so nothing queued while the account id was unknown (an older token file used
    /// offline), or before each account had folders of its own, is stranded there. Only into a
    /// folder that does not exist yet: what is there already is never mixed with another.
    func adoptFormerFolders() {
        let manager = FileManager.default
        for former in formerAccounts {
            let old = Paths.key(displayName: store.displayName, embeddedRoot: embeddedRoot, folder: folder, account: former)
            guard old != key else { continue }
            for (from, to) in [(Paths.outbox(old), Paths.outbox(key)), (Paths.cache(old), Paths.cache(key))]
            where manager.fileExists(atPath: from.path) && !manager.fileExists(atPath: to.path) {
                try? manager.createDirectory(at: to.deletingLastPathComponent(), withIntermediateDirectories: true)
                try? manager.moveItem(at: from, to: to)
            }
        }
    }

    func close() async {
        await server?.stop()
    }
}
