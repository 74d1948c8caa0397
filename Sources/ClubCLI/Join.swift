import ArgumentParser
import ByteClubConfig
import ClubKit
import ClubServer
import DropboxWire
import Foundation
import Durable
import Transfer

/// `byteclub join INVITE [--name club]`: redeems a one-time invite for a token of one's own and
/// writes a named club remote (its URL and pinned key) into config.toml, the token into a 0600
/// file beside the other secrets.
struct Join: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "join",
        abstract: "Join a club with the one-line invite its admin gave you.",
        discussion: """
        The invite (from `byteclub members add`) holds the server's address, its key's \
        fingerprint and a secret that works once. Only a server holding that key is talked to: \
        a proxy or an impostor is refused before the secret is sent. The new remote is written \
        to $XDG_CONFIG_HOME/byteclub/config.toml as [remote.NAME] (the default remote if there \
        was none) and its token to $XDG_STATE_HOME/byteclub/remotes/NAME.token (mode 0600).
        """
    )

    @Argument(help: "The invite, https://HOST:PORT/join/SECRET#sha256//….") var invite: String
    @Option(help: "The name of the remote to write (then `byteclub --remote NAME`).") var name: String = "club"

    func validate() throws {
        guard !name.isEmpty, name.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "-" || $0 == "_") }) else {
            throw ValidationError("--name must be letters, digits, - or _ (it names a [remote.NAME] table)")
        }
    }

    func run() async throws {
        let parsed: Invite
        do { parsed = try Invite(parsing: invite) } catch { throw ValidationError(error.description) }
        let existing: ClubConfig?
        do { existing = try ClubConfig.load() } catch { throw Remotes.exit(error) }
        let joined: ClubInvites.Joined
        do { joined = try await ClubInvites.redeem(parsed, as: name, existing: existing) } catch { throw error.exit }
        print("Joined as \(joined.member) (\(joined.role)); remote \"\(name)\" written to \(Paths.config.path)")
    }
}

/// A call's refusal at the command line: one line, and the exit status scripts test for.
extension ClubCallError {
    var exit: any Error {
        switch self {
        case .refused(_, let status, _):
            say(description)
            // 401 is a token the server refused; any other refusal (a used or expired invite, a
            // member who may not manage members) is the server's "no", said as it is.
            return status == 401 ? Exit.unauthorized.code : Exit.noMatch.code
        case .unreachable:
            say(description)
            return Exit.network.code
        case .refusedHere(let why):
            return ValidationError(why)
        }
    }
}

extension ClubCall {
    /// ``post(_:_:)`` with its refusal said and turned into the exit status.
    func ask(_ endpoint: Endpoint, _ body: [String: any Sendable]) async throws -> [String: Any] {
        do {
            return try await post(endpoint, body)
        } catch {
            throw error.exit
        }
    }
}

/// Trust on first use, as ssh does: a club remote reached over HTTPS with no pin yet shows its
/// server's key once, and the person confirms it against the fingerprint `byteclub serve`
/// printed; a confirmed key is written into config.toml as the remote's `pin`, and from then on
/// no other key is accepted. A server whose certificate the system's CAs vouch for (behind a
/// reverse proxy with a public certificate) needs no pin and is not asked about.
enum FirstUse {
    /// The pin to connect to `url` with: nil when the system's CAs vouch for the server.
    static func pin(for url: URL, remote: RemoteConfig?, config: ClubConfig?) async throws -> String? {
        guard let host = url.host else { return nil }
        let probe: ServerIdentity.Probe
        do {
            probe = try await ServerIdentity.probe(host: host.trimmingCharacters(in: CharacterSet(charactersIn: "[]")), port: url.port ?? 443)
        } catch {
            say("cannot reach \(host) to read its key: \(error)")
            throw Exit.network.code
        }
        guard case .unknownKey(let pin) = probe else { return nil }
        let place = remote.map { "remote \"\($0.name)\"" } ?? url.absoluteString
        let question = """
            The club server at \(host):\(url.port ?? 443) shows this key, which \(place) has not pinned yet:
              \(pin)
            Check it against the fingerprint `byteclub serve` printed on the server (or ask the club's admin).
            Trust it\(remote == nil ? " for this run" : " and keep it in config.toml")? [y/N] 
            """
        guard let answer = ask(question) else {
            say("\(place): the server's key is not pinned, and there is no terminal to confirm it; add pin = \"sha256//…\" (the fingerprint `byteclub serve` prints) or join with an invite")
            throw ExitCode(1)
        }
        guard ["y", "yes"].contains(answer.lowercased()) else {
            say("not trusted: nothing was sent to \(host)")
            throw ExitCode(1)
        }
        if let remote, let config {
            do { try keep(pin, for: remote, in: config) } catch { say("could not write the pin into \(config.file.path): \(error)") }
        }
        return pin
    }

    /// Asks on the terminal itself (not stdin, which a script may be piping); nil without one.
    private static func ask(_ question: String) -> String? {
        guard let tty = FileHandle(forUpdatingAtPath: "/dev/tty") else { return nil }
        defer { try? tty.close() }
        tty.write(Data(question.utf8))
        var line = Data()
        while let byte = try? tty.read(upToCount: 1), let first = byte.first, first != 0x0A { line.append(first) }
        return String(decoding: line, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
    }

    /// Writes `pin = "…"` on the line after the remote's `[remote.NAME]` header.
    private static func keep(_ pin: String, for remote: RemoteConfig, in config: ClubConfig) throws {
        guard let header = ConfigLines.line(of: ["remote", remote.name], in: config.text) else { throw ValidationError("no [remote.\(remote.name)] table") }
        var lines = config.text.components(separatedBy: "\n")
        lines.insert("pin = \"\(pin)\"", at: min(header, lines.count))
        try DurableFile.write(Data(lines.joined(separator: "\n").utf8), to: config.file)
    }
}
