import ByteClubConfig
import ClubServer
import DropboxWire
import Durable
import Foundation
import Transfer

/// Why a call to a club server's own endpoints, or a step of joining, did not go through.
public enum ClubCallError: Error, Equatable, CustomStringConvertible {
    /// The server answered with a refusal: its HTTP status and words.
    case refused(host: String, status: Int, text: String)
    /// The server was not reached (or its key was not the pinned one).
    case unreachable(String)
    /// What was asked cannot be done here, as the words say; nothing was sent.
    case refusedHere(String)

    public var description: String {
        switch self {
        case .refused(let host, let status, let text): "\(host) refused (HTTP \(status)): \(text)"
        case .unreachable(let why): why
        case .refusedHere(let why): why
        }
    }
}

/// One JSON call to a club server's own endpoints (join, members), over the pinned key.
public struct ClubCall: Sendable {
    public var server: URL
    public var pin: String?
    public var token: String?

    public init(server: URL, pin: String?, token: String?) {
        self.server = server
        self.pin = pin
        self.token = token
    }

    public func post(_ endpoint: Endpoint, _ body: [String: any Sendable]) async throws(ClubCallError) -> [String: Any] {
        var configuration = SessionConfiguration.ephemeral
        configuration.pinnedPublicKey = pin
        configuration.timeoutIntervalForRequest = 30
        let session = Session(configuration: configuration, delegateQueue: DispatchQueue(label: "byteclub.clubcall"))
        defer { session.finishTasksAndInvalidate() }
        var headers = ["Content-Type": "application/json"]
        if let token { headers["Authorization"] = "Bearer " + token }
        guard let json = try? JSONSerialization.data(withJSONObject: body) else { throw .refusedHere("the request could not be written as JSON") }
        let request = Request(url: server.appendingPathComponent(endpoint.relativePath), method: "POST", headers: headers, body: json)
        let data: Data
        do {
            (data, _) = try await session.data(for: request)
        } catch .httpStatus(let status, let body) {
            let text = String(decoding: body.prefix(500), as: UTF8.self).replacingOccurrences(of: "Error: ", with: "")
            throw .refused(host: server.host ?? "the server", status: status, text: text)
        } catch {
            throw .unreachable(error.description)
        }
        guard let object = try? JSONSerialization.jsonObject(with: data) as? [String: Any] else {
            throw .refusedHere("the server's answer was not JSON")
        }
        return object
    }
}

/// Joining a club with an invite (`byteclub join`).
public enum ClubInvites {
    /// Who the invite made us, and the remote written for the club.
    public struct Joined: Sendable, Equatable {
        public var member: String
        public var role: String
    }

    /// Redeems `invite` for a token of one's own and writes the club as remote `name`: the
    /// token into a 0600 file beside the other secrets, the remote (URL and pinned key) into
    /// config.toml, as its default when `existing` names none.
    public static func redeem(_ invite: Invite, as name: String, existing: ClubConfig?) async throws(ClubCallError) -> Joined {
        if existing?.remotes[name] != nil {
            throw .refusedHere("config.toml already has a remote named \"\(name)\"; choose another with --name")
        }
        let answer = try await ClubCall(server: invite.server, pin: invite.pin, token: nil).post(.join, ["secret": invite.secret])
        guard let token = answer["token"] as? String, let member = answer["name"] as? String, let role = answer["role"] as? String else {
            throw .refusedHere("the server's answer to the invite was not understood")
        }
        let tokenFile = Paths.state.appendingPathComponent("remotes/\(name).token")
        do {
            try SecretFile.write(token + "\n", to: tokenFile)
            try ClubRemoteWriter.append(name: name, url: invite.server, pin: invite.pin, tokenFile: tokenFile, makeDefault: existing?.defaultName == nil)
        } catch {
            throw .refusedHere("joined as \(member), but could not write the remote: \(error)")
        }
        return Joined(member: member, role: role)
    }
}

/// A secret on disk: its folder 0700, the file 0600 from its first byte.
public enum SecretFile {
    public static func write(_ text: String, to file: URL) throws {
        try PrivateFiles.folder(file.deletingLastPathComponent())
        let fd = PrivateFiles.open(file.path, O_WRONLY | O_CREAT | O_TRUNC)
        guard fd >= 0 else { throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO) }
        defer { close(fd) }
        let bytes = Array(text.utf8)
        guard Foundation.write(fd, bytes, bytes.count) == bytes.count else { throw POSIXError(.EIO) }
    }
}

/// Adds a `[remote.NAME]` table to config.toml as text, so the comments and order of what is
/// there stay as the user wrote them.
public enum ClubRemoteWriter {
    public static func append(name: String, url: URL, pin: String?, tokenFile: URL, makeDefault: Bool) throws {
        let file = Paths.config
        try PrivateFiles.folder(file.deletingLastPathComponent())
        var text = (try? String(contentsOf: file, encoding: .utf8)) ?? ""
        var table = "[remote.\(name)]\ntype = \"club\"\nurl = \(quoted(url.absoluteString))\n"
        if let pin { table += "pin = \(quoted(pin))\n" }
        table += "token_file = \(quoted(tokenFile.path))\n"
        if makeDefault {
            // A top-level key must come before the first table.
            text = "default = \(quoted(name))\n" + text
        }
        if !text.isEmpty, !text.hasSuffix("\n") { text += "\n" }
        text += (text.isEmpty ? "" : "\n") + table
        try DurableFile.write(Data(text.utf8), to: file)
    }

    private static func quoted(_ text: String) -> String {
        "\"" + text.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "\"", with: "\\\"") + "\""
    }
}

/// Where a club server can be reached and its key, as `serve` last recorded them in
/// ROOT/.byteclub/server.json, so `members add --root` makes invites while it runs or not.
public struct ServerAddress: Codable, Sendable, Equatable {
    public var url: URL
    public var pin: String?

    public init(url: URL, pin: String?) {
        self.url = url
        self.pin = pin
    }

    public static func file(root: String) -> String { root + "/.byteclub/server.json" }

    public static func record(_ address: ServerAddress, root: String) {
        guard let data = try? JSONEncoder().encode(address) else { return }
        try? DurableFile.write(data, to: file(root: root))
    }

    /// The address for an invite: `--url` (with the recorded or on-disk key), else the recorded one.
    public static func forInvites(root: String, url: String?) throws(ClubCallError) -> ServerAddress {
        let recorded = FileManager.default.contents(atPath: file(root: root)).flatMap { try? JSONDecoder().decode(ServerAddress.self, from: $0) }
        let certificate = (try? String(contentsOfFile: root + "/.byteclub/tls/cert.pem", encoding: .utf8)).flatMap { try? ServerIdentity.pin(ofCertificatePEM: $0) }
        if let url {
            guard let parsed = URL(string: url), ["https", "http"].contains(parsed.scheme?.lowercased() ?? ""), parsed.host != nil else {
                throw ClubCallError.refusedHere("--url must be the server's https://HOST:PORT")
            }
            let pin = parsed.scheme?.lowercased() == "https" ? recorded?.pin ?? certificate : nil
            if parsed.scheme?.lowercased() == "https", pin == nil {
                throw ClubCallError.refusedHere("no key fingerprint known for \(root): start `byteclub serve --root \(root)` once first")
            }
            return ServerAddress(url: parsed, pin: pin)
        }
        guard let recorded else {
            throw ClubCallError.refusedHere("the server has not run from \(root) yet, so its address is unknown: start it once, or give --url https://HOST:PORT")
        }
        return recorded
    }

    /// The URL members reach a server on `host` at: for a wildcard address, this machine's
    /// first LAN address (else its host name).
    public static func advertised(scheme: String, host: String, port: Int) -> URL {
        let chosen = ["0.0.0.0", "::", ""].contains(host) ? (lanAddresses().first ?? ProcessInfo.processInfo.hostName) : host
        let shown = chosen.contains(":") ? "[\(chosen)]" : chosen
        return URL(string: "\(scheme)://\(shown):\(port)") ?? URL(string: "\(scheme)://127.0.0.1:\(port)")!
    }

    /// The names a new certificate is made for, beside localhost and the loopback addresses.
    public static func hostNames(listening host: String) -> [String] {
        [host, ProcessInfo.processInfo.hostName] + lanAddresses()
    }

    /// This machine's IPv4 addresses other than loopback.
    public static func lanAddresses() -> [String] {
        var list: UnsafeMutablePointer<ifaddrs>?
        guard getifaddrs(&list) == 0, let first = list else { return [] }
        defer { freeifaddrs(list) }
        var found: [String] = []
        for entry in sequence(first: first, next: { $0.pointee.ifa_next }) {
            guard let address = entry.pointee.ifa_addr, address.pointee.sa_family == sa_family_t(AF_INET) else { continue }
            var text = [CChar](repeating: 0, count: Int(INET_ADDRSTRLEN))
            address.withMemoryRebound(to: sockaddr_in.self, capacity: 1) { pointer in
                var bytes = pointer.pointee.sin_addr
                _ = inet_ntop(AF_INET, &bytes, &text, socklen_t(INET_ADDRSTRLEN))
            }
            let string = String(decoding: text.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
            if !string.hasPrefix("127.") { found.append(string) }
        }
        return found
    }
}
