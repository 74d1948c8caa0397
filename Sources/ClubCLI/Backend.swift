import ArgumentParser
import ByteClubConfig
import ClubKit
import ClubServer
import Foundation
import Logging
import Remote
import SampleClub

/// Which club folder to talk to: `--server URL --token T`, `--dropbox`, or (by default) the
/// embedded server over `--data-dir`.
public struct BackendOptions: ParsableArguments, Sendable {
    public init() {}

    @Option(help: "A club server, e.g. http://192.168.1.20:8421.") var server: String?
    @Option(help: "The club server's token (or set BYTECLUB_TOKEN).") var token: String?
    @Option(help: ArgumentHelp("The club server's key fingerprint, as `byteclub serve` prints it; only that key is accepted.", valueName: "sha256//…"))
    var pin: String?
    @Flag(help: "Use your Dropbox (after `byteclub login dropbox`).") var dropbox = false
    @Option(help: "A WebDAV folder, e.g. https://cloud.example.org/remote.php/dav/files/ray/ (password from BYTECLUB_WEBDAV_PASSWORD or a prompt).")
    public var webdav: String?
    @Option(help: "The WebDAV user name (with --webdav).") var user: String?
    @Option(help: "A remote named in $XDG_CONFIG_HOME/byteclub/config.toml (see `byteclub remotes`).") var remote: String?
    @Option(help: "The embedded club folder (default: $XDG_DATA_HOME/byteclub/club).") var dataDir: String?
    @Option(help: "Bandwidth limit per transfer, e.g. 500K or 2M (bytes per second).") var bwlimit: String?
    @Option(help: "Seconds without any data before a request fails.") public var timeout: Double = 60
    @Option(help: .hidden) var dropboxApi: String?
    @Option(help: .hidden) var oauthTokenUrl: String?
    /// The most entries a listing gathers before it stops (tests lower it; default 1,000,000).
    @Option(help: .hidden) var listingLimit: Int?

    public func validate() throws {
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
        ConnectionOptions(idleTimeout: timeout, bandwidthLimit: bwlimit.flatMap(Self.parseRate), userAgent: "byteclub/\(ClubCLI.version)",
                          pinnedPublicKey: pin)
    }

    /// What the flags say to connect to (``ClubConnector``).
    var target: ClubTarget {
        let flags: ClubTarget.Flags
        if let webdav, let url = URL(string: webdav) {
            flags = .webdav(url: url, user: user ?? "")
        } else if dropbox {
            flags = .dropbox
        } else if let server, let url = URL(string: server) {
            flags = .club(url: url, pin: pin)
        } else if let dataDir {
            flags = .embedded(root: URL(fileURLWithPath: dataDir))
        } else {
            flags = .none
        }
        return ClubTarget(flags: flags, remote: remote, token: token, dropboxAPI: dropboxApi.flatMap(URL.init(string:)),
                          oauthTokenURL: oauthTokenUrl.flatMap(URL.init(string:)))
    }

    /// Connects (``ClubConnector``), starting the embedded server if that is the backend; an
    /// encrypted club with its keyring in front, unless `plain`. Call `close` when done.
    ///
    /// `serverLogLevel` is the embedded server's: the UI logs its access lines to byteclub.log
    /// (`.info`); scripts, whose log is stderr, keep it quiet. `retry` is how long requests keep
    /// trying: scripts wait out long outages, the UI reports within seconds (and keeps drafts).
    /// `offlineStart` (the app): a WebDAV server that cannot be reached still gives a backend.
    public func connect(serverLogLevel: Logger.Level = .warning, retry: RetryPolicy = RetryPolicy(), offlineStart: Bool = false,
                 plain: Bool = false) async throws -> Backend {
        let questions = ConnectQuestions(pin: { url, remote, config in try await FirstUse.pin(for: url, remote: remote, config: config) },
                                         password: { user, url in try WebDAVPassword.obtain(user: user, url: url) })
        do {
            return try await ClubConnector.connect(target, connection: connection, questions: questions, retry: retry, limits: limits,
                                                   serverLogLevel: serverLogLevel, offlineStart: offlineStart, plain: plain)
        } catch let error as ConfigError {
            throw Remotes.exit(error)
        } catch let error as BackendError {
            throw ValidationError(error.description)
        }
    }

    /// The most entries a listing gathers (`--listing-limit`, for tests).
    var limits: ListingLimits { listingLimit.map { ListingLimits(maxEntries: $0) } ?? .standard }
}
