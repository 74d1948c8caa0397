import ArgumentParser
import ClubKit
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
    func connectPlain(serverLogLevel: Logger.Level = .warning, retry: RetryPolicy = RetryPolicy(), offlineStart: Bool = false) async throws -> Backend {
        // --remote NAME, or the config's default when no flag names the backend.
        if let configured = try await connectConfigured(serverLogLevel: serverLogLevel, retry: retry, offlineStart: offlineStart) {
            return configured
        }
        let choice: BackendChoice
        if let webdav, let url = URL(string: webdav) {
            choice = .webdav(url: url, user: user ?? "", password: try WebDAVPassword.obtain(user: user ?? "", url: url))
        } else if dropbox {
            choice = .dropbox(api: dropboxApi.flatMap(URL.init(string:)), tokenURL: oauthTokenUrl.flatMap(URL.init(string:)))
        } else if let server, let url = URL(string: server) {
            choice = .club(url: url, token: token, pin: pin)
        } else {
            choice = .embedded(root: dataDir.map { URL(fileURLWithPath: $0) } ?? Paths.defaultClub)
        }
        do {
            // A named remote's pin came through connectConfigured; a bare --server is asked about once.
            return try await Backend.connect(choice, connection: connection, retry: retry, limits: limits, serverLogLevel: serverLogLevel,
                                             offlineStart: offlineStart) { url in try await FirstUse.pin(for: url, remote: nil, config: nil) }
        } catch let error as BackendError {
            throw ValidationError(error.description)
        }
    }

    /// The most entries a listing gathers (`--listing-limit`, for tests).
    var limits: ListingLimits { listingLimit.map { ListingLimits(maxEntries: $0) } ?? .standard }
}
