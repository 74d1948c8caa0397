import ArgumentParser
import ClubKit
import ClubServer
import DropboxWire
import Durable
import Foundation
import Logging

/// `byteclub serve`: share a folder with club members over the Dropbox v2 API subset.
struct Serve: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "serve",
        abstract: "Share a folder with your club (a Dropbox-v2-compatible server).",
        discussion: """
        ROOT must be a folder that exists (--create makes a new one): a mistyped --root is refused \
        rather than started as a new club with a new key. Members see ROOT/byteclub/, the club's \
        folder (Dropbox path /byteclub): notes at the top of ROOT are not theirs to see, and serve \
        says so, with the commands that move them there.

        The server speaks HTTPS with a certificate of its own, made on first start and kept \
        (0600) in ROOT/.byteclub/tls/; it prints the key's fingerprint, which members pin. \
        --tls-cert/--tls-key use a real certificate instead. --insecure-http speaks plain HTTP \
        (behind a TLS-terminating reverse proxy): tokens then cross the network in the clear.

        Members live in ROOT/.byteclub/members.json: `byteclub members add NAME --root ROOT` \
        prints a one-time invite, which `byteclub join INVITE` redeems on the member's machine. \
        Roles: reader, editor, admin. Removing a member or changing a role takes effect at once. \
        A club with no members yet has one shared token: --token, or BYTECLUB_TOKEN, or one \
        generated once and kept (mode 0600) in ROOT/.byteclub/token.

        --member NAME=TOKEN (repeatable) still gives an editor a token of their own, for scripts; \
        it puts the token where `ps` shows it. With members and no --token (or BYTECLUB_TOKEN), \
        only members' tokens are accepted.

        --chaos injects faults for testing clients, e.g.
          --chaos drop=0.05,429=0.05,5xx=0.05,slow=0.05,truncate=0.05 --chaos-seed 7
        drop: cut the connection mid-body; 429: rate limit with Retry-After; 5xx: 500/503; \
        slow: trickle the response; truncate: cut JSON answers in half; stall: say nothing \
        for five minutes (clients must time out).

        Connections: one with no request in progress closes after --idle-timeout; headers must \
        arrive within --header-timeout (else 408); a body stalled for --body-timeout is dropped. \
        Past --max-connections, or --max-connections-per-client from one address, new ones get \
        503 with Retry-After. Behind a reverse proxy every client has the proxy's address: use \
        --max-connections-per-client 0 there.

        Share links (`byteclub share`) are served at /s/TOKEN/NAME to anyone with the URL, no \
        token needed. Their URLs begin with the address members reach the server at, or with \
        --public-url (e.g. https://club.example.org) behind a reverse proxy.
        """
    )

    @Option(help: "The folder to share (members see its byteclub/ folder); it must exist unless --create is given.") var root: String
    @Flag(help: "Make the --root folder if it does not exist: a new club.") var create = false
    @Option(help: "The address to listen on. Use 0.0.0.0 to share on your LAN.") var host: String = "127.0.0.1"
    @Option(help: "The port; 0 picks a free one.") var port: Int = 8421
    @Option(help: "The bearer token clients must send (default: BYTECLUB_TOKEN or a stored one).") var token: String?
    @Flag(help: "Speak plain HTTP, not HTTPS (behind a TLS-terminating reverse proxy). Tokens cross the network unencrypted.")
    var insecureHttp = false
    @Option(help: ArgumentHelp("A PEM certificate (chain) to serve instead of the server's own.", valueName: "FILE")) var tlsCert: String?
    @Option(help: ArgumentHelp("The PEM private key of --tls-cert.", valueName: "FILE")) var tlsKey: String?
    @Option(name: .customLong("member"), help: ArgumentHelp("A member and their own token (repeatable).", valueName: "NAME=TOKEN"))
    var memberSpecs: [String] = []
    @Option(help: "Fault injection for testing clients (see above).") var chaos: String?
    @Option(help: "Seed for --chaos, to replay a run.") var chaosSeed: UInt64 = 1
    @Option(help: "Log level: trace, debug, info, notice, warning, error.") var logLevel: String = "info"
    @Option(help: "Seconds a connection with no request in progress stays open.") var idleTimeout: Double = Self.defaults.idleTimeout.seconds
    @Option(help: "Seconds a request's headers may take to arrive (then 408).") var headerTimeout: Double = Self.defaults.headerTimeout.seconds
    @Option(help: "Seconds a request body may make no progress (then it is dropped).") var bodyTimeout: Double = Self.defaults.bodyTimeout.seconds
    @Option(help: "Open connections at most (more get 503 + Retry-After).") var maxConnections: Int = Self.defaults.maxConnections
    @Option(help: "Open connections per client address at most; 0: no cap (use behind a reverse proxy).")
    var maxConnectionsPerClient: Int = Self.defaults.maxConnectionsPerClient
    @Option(help: "Bytes of request line and headers at most (more get 431).") var maxHeaderBytes: Int = Self.defaults.maxHeaderBytes
    @Option(help: "Remove upload sessions idle for this many hours (with their files).") var sessionExpiry: Double = Double(ClubServerConfiguration.defaultSessionExpiry.components.seconds) / 3600

    @Option(help: "Longpolls waiting at once at most; more are answered at once with a backoff.")
    var maxLongpolls: Int = ClubServerConfiguration(root: "", token: "").maxLongpolls
    @Option(help: "Days of revision history kept (older revisions and deleted files' histories are pruned daily); 0 keeps all.")
    var historyDays: Int = ClubServerConfiguration(root: "", token: "").historyDays

    @Option(help: ArgumentHelp("The base of share links' URLs, for a server behind a reverse proxy (default: the address members use).", valueName: "URL"))
    var publicURL: String?

    private static let defaults = ConnectionLimits()

    func validate() throws {
        guard (0...65535).contains(port) else { throw ValidationError("--port must be between 0 and 65535") }
        guard Logger.Level(rawValue: logLevel) != nil else { throw ValidationError("unknown --log-level \(logLevel)") }
        if let chaos { _ = try ChaosSpec(parsing: chaos) }
        if let token, token.isEmpty { throw ValidationError("--token must not be empty") }
        _ = try members()
        try validateLimits()
        guard sessionExpiry >= 0.001, sessionExpiry <= 87_600 else { throw ValidationError("--session-expiry must be between 0.001 and 87600 hours") }
        guard maxLongpolls >= 1 else { throw ValidationError("--max-longpolls must be at least 1") }
        guard (0...36_500).contains(historyDays) else { throw ValidationError("--history-days must be between 0 (keep all) and 36500") }
        _ = try publicBase()
        if (tlsCert == nil) != (tlsKey == nil) { throw ValidationError("--tls-cert and --tls-key go together") }
        if insecureHttp, tlsCert != nil { throw ValidationError("--insecure-http serves plain HTTP: leave out --tls-cert and --tls-key") }
    }

    private func validateLimits() throws {
        for (name, seconds) in [("--idle-timeout", idleTimeout), ("--header-timeout", headerTimeout), ("--body-timeout", bodyTimeout)] {
            guard seconds >= 0.1, seconds <= 86_400 else { throw ValidationError("\(name) must be between 0.1 and 86400 seconds") }
        }
        guard maxConnections >= 1 else { throw ValidationError("--max-connections must be at least 1") }
        guard maxConnectionsPerClient >= 0 else { throw ValidationError("--max-connections-per-client must be 0 (no cap) or more") }
        guard (1024...(16 << 20)).contains(maxHeaderBytes) else { throw ValidationError("--max-header-bytes must be between 1024 and 16777216") }
    }

    /// The `--member` options, parsed and checked (distinct tokens, none equal to --token).
    func members() throws -> [ClubMember] {
        do {
            let members = try memberSpecs.map { text throws(MemberError) in try ClubMember(parsing: text) }
            try ClubMember.validate(members, sharedToken: token)
            return members
        } catch {
            throw ValidationError(error.description)
        }
    }

    /// `--public-url`, checked: an http(s) URL with a host and no query or fragment.
    func publicBase() throws -> URL? {
        guard let publicURL else { return nil }
        guard let url = URL(string: publicURL), let scheme = url.scheme?.lowercased(), scheme == "http" || scheme == "https",
              url.host?.isEmpty == false, url.query == nil, url.fragment == nil else {
            throw ValidationError("--public-url must be an http or https URL such as https://club.example.org (got \(publicURL))")
        }
        return url
    }

    /// The connection options as the server's limits.
    var limits: ConnectionLimits {
        var limits = ConnectionLimits()
        limits.idleTimeout = .milliseconds(Int64(idleTimeout * 1000))
        limits.headerTimeout = .milliseconds(Int64(headerTimeout * 1000))
        limits.bodyTimeout = .milliseconds(Int64(bodyTimeout * 1000))
        limits.maxConnections = maxConnections
        limits.maxConnectionsPerClient = maxConnectionsPerClient
        limits.maxHeaderBytes = maxHeaderBytes
        return limits
    }

    func run() async throws {
        let level = Logger.Level(rawValue: logLevel) ?? .info
        LoggingSystem.bootstrap { label in
            var handler = StreamLogHandler.standardError(label: label)
            handler.logLevel = level
            return handler
        }
        let rootPath = URL(fileURLWithPath: root).standardizedFileURL.path
        try prepareRoot(rootPath)
        let members = try members()
        warnAboutSecrets()
        let registry = MemberRegistry(root: rootPath)
        let registered: Bool
        do {
            registered = try !registry.current().members.isEmpty
        } catch {
            throw ValidationError("\(error)")
        }
        let secret: String
        do {
            let given = token ?? ProcessInfo.processInfo.environment["BYTECLUB_TOKEN"].flatMap { $0.isEmpty ? nil : $0 }
            // A club of members needs no shared token unless one is asked for.
            secret = try given ?? (members.isEmpty && !registered ? ServerTokenFile.loadOrCreate(root: rootPath) : "")
        } catch {
            throw ValidationError("cannot set up the token under \(rootPath)/.byteclub: \(error)")
        }
        do { try ClubMember.validate(members, sharedToken: secret) } catch { throw ValidationError(error.description) }
        var configuration = ClubServerConfiguration(root: rootPath, token: secret, logger: Logger(label: "byteclub.serve"))
        configuration.host = host
        configuration.port = port
        configuration.chaosSeed = chaosSeed
        configuration.sessionExpiry = .milliseconds(Int64(sessionExpiry * 3_600_000))
        configuration.chaos = try chaos.map { try ChaosSpec(parsing: $0) }
        configuration.limits = limits
        configuration.members = members
        configuration.maxLongpolls = maxLongpolls
        configuration.historyDays = historyDays
        configuration.publicURL = try publicBase()
        configuration.keepsMembers = true
        configuration.tls = try identity(stateDirectory: rootPath + "/.byteclub")
        let host = self.host
        let scheme = configuration.scheme
        let pin = configuration.tls?.pin
        do {
            try await ClubServer.run(configuration) { port, realRoot in
                let shownHost = host.contains(":") ? "[\(host)]" : host
                var lines = "byteclub serve: listening on \(scheme)://\(shownHost):\(port) (root \(realRoot))\n"
                if let pin { lines += "byteclub serve: key fingerprint \(pin)\n" }
                // Where `members add --root` makes invites point while this server runs.
                ServerAddress.record(ServerAddress(url: ServerAddress.advertised(scheme: scheme, host: host, port: port), pin: pin), root: realRoot)
                // Unbuffered, so a script reading the pipe sees the lines at once.
                FileHandle.standardOutput.write(Data(lines.utf8))
            }
        } catch let error as ClubServerError {
            if case .portInUse = error {
                say("\(error.description); stop what listens there, or give another --port (0 picks a free one)")
                throw Exit.network.code
            }
            throw ValidationError(error.description)
        }
    }
}

extension Serve {
    /// The root checked before anything is written under it (``ServedRoot``): one that does not
    /// exist is refused without --create (exit 3), a file is refused (exit 4). Notes at its top
    /// with no `byteclub/` folder beside them are said on stderr, with how to move them.
    func prepareRoot(_ rootPath: String) throws {
        do throws(ServedRoot.Problem) {
            try ServedRoot.prepare(rootPath, create: create)
        } catch {
            say(error.description)
            switch error {
            case .missing: throw Exit.notFound.code
            case .notAFolder: throw Exit.conflict.code
            case .cannotCreate: throw Exit.noMatch.code
            }
        }
        if let advice = ServedRoot.strayNotesAdvice(root: rootPath) {
            FileHandle.standardError.write(Data("byteclub serve: \(TerminalSafe.escape(advice))\n".utf8))
        }
    }

    /// The certificate to serve: --tls-cert/--tls-key, else the server's own (made on first
    /// start); nil with --insecure-http.
    func identity(stateDirectory: String) throws -> ServerIdentity? {
        if insecureHttp {
            FileHandle.standardError.write(Data("byteclub serve: warning: --insecure-http: plain HTTP, so members' tokens and notes cross the network unencrypted; use it only behind a TLS-terminating proxy\n".utf8))
            return nil
        }
        do {
            if let tlsCert, let tlsKey { return try ServerIdentity.load(certificate: tlsCert, key: tlsKey) }
            return try ServerIdentity.loadOrCreate(stateDirectory: stateDirectory, hostNames: ServerAddress.hostNames(listening: host))
        } catch {
            throw ValidationError("cannot set up TLS: \(error)")
        }
    }

    /// Secrets on the command line are readable by every user of the machine (`ps`, /proc).
    func warnAboutSecrets() {
        if token != nil || !memberSpecs.isEmpty {
            let flags = [token != nil ? "--token" : nil, memberSpecs.isEmpty ? nil : "--member"].compactMap { $0 }.joined(separator: " and ")
            FileHandle.standardError.write(Data("byteclub serve: warning: \(flags) put a token on the command line, where `ps` shows it to every user of this machine; prefer BYTECLUB_TOKEN or `byteclub members add`\n".utf8))
        }
    }
}

/// The generated token, kept in ROOT/.byteclub/token with mode 0600.
enum ServerTokenFile {
    static func loadOrCreate(root: String) throws -> String {
        let directory = root + "/.byteclub"
        let path = directory + "/token"
        if let data = FileManager.default.contents(atPath: path),
           let text = String(data: data, encoding: .utf8)?.trimmingCharacters(in: .whitespacesAndNewlines), !text.isEmpty {
            return text
        }
        try PrivateFiles.folder(directory)
        var generator = SystemRandomNumberGenerator()
        let bytes = (0..<32).map { _ in UInt8.random(in: 0...255, using: &generator) }
        let token = Data(bytes).base64EncodedString().replacingOccurrences(of: "+", with: "-")
            .replacingOccurrences(of: "/", with: "_").replacingOccurrences(of: "=", with: "")
        let fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
        guard fd >= 0 else { throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO) }
        defer { close(fd) }
        let line = token + "\n"
        guard write(fd, line, line.utf8.count) == line.utf8.count else { throw POSIXError(.EIO) }
        return token
    }
}

private extension Duration {
    /// As fractional seconds, for an option's default.
    var seconds: Double {
        Double(components.seconds) + Double(components.attoseconds) / 1e18
    }
}
