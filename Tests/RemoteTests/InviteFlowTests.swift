import ClubServer
import Foundation
import LoopbackHTTP
import TestSupport
import XCTest

/// A club on HTTPS, joined by invite across two config folders, and a proxy with another key
/// between a member and the server: all through the built binary and a real `byteclub serve`.
final class InviteFlowTests: XCTestCase {
    private var base: URL!

    override func setUpWithError() throws {
        base = FileManager.default.temporaryDirectory.appendingPathComponent("invite-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: base, withIntermediateDirectories: true)
    }

    override func tearDownWithError() throws {
        try? FileManager.default.removeItem(at: base)
    }

    /// `members add` on the server's machine, `join` on Ann's, a save recorded under her name,
    /// then `members remove`: her longpoll is cut and her next request refused within a second.
    func testInviteJoinSaveThenRemovalEndsHerLongpollWithinASecond() throws {
        let root = base.appendingPathComponent("club")
        let server = try ServeProcess(root: root, token: nil, tls: true)
        let pin = try XCTUnwrap(server.pin)
        let admin = try CLI.isolated(in: base.appendingPathComponent("admin"))
        let ann = try CLI.isolated(in: base.appendingPathComponent("ann"))

        let add = try admin.run(["members", "add", "ann", "--role", "editor", "--root", root.path])
        XCTAssertEqual(add.status, 0, add.stderr)
        let invite = add.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        XCTAssertEqual(invite.split(separator: "\n").count, 1, "one line: \(invite)")
        XCTAssertTrue(invite.hasPrefix(server.url + "/join/") && invite.hasSuffix("#" + pin), invite)

        let join = try ann.run(["join", invite, "--name", "club"])
        XCTAssertEqual(join.status, 0, join.stderr)
        XCTAssertTrue(join.stdout.contains("Joined as ann (editor)"), join.stdout)
        let again = try CLI.isolated(in: base.appendingPathComponent("eve")).run(["join", invite])
        XCTAssertEqual(again.status, 1, "an invite works once; a used one is the server's refusal, exit 1 as docs/cli.md says: \(again.stderr)")
        XCTAssertTrue(again.stderr.contains("not valid"), again.stderr)

        let configText = try String(contentsOf: URL(fileURLWithPath: ann.environment["XDG_CONFIG_HOME"]!).appendingPathComponent("byteclub/config.toml"),
                                    encoding: .utf8)
        XCTAssertTrue(configText.contains("pin = \"\(pin)\""), configText)
        let tokenFile = URL(fileURLWithPath: ann.environment["XDG_STATE_HOME"]!).appendingPathComponent("byteclub/remotes/club.token")
        XCTAssertEqual(try FileManager.default.attributesOfItem(atPath: tokenFile.path)[.posixPermissions] as? Int, 0o600)
        let token = try String(contentsOf: tokenFile, encoding: .utf8).trimmingCharacters(in: .whitespacesAndNewlines)
        XCTAssertFalse(try String(contentsOfFile: root.appendingPathComponent(".byteclub/members.json").path, encoding: .utf8).contains(token))

        // A save by Ann, through the remote `join` wrote (its default now), recorded as hers.
        try Data("ann's note\n".utf8).write(to: ann.directory.appendingPathComponent("note.md"))
        let put = try ann.run(["put", "note.md", "/byteclub/ann-note.md"])
        XCTAssertEqual(put.status, 0, put.stderr)
        let curl = ["curl", "-sS", "-k", "--pinnedpubkey", pin, "-X", "POST", "-H", "Authorization: Bearer \(token)", "-H", "Content-Type: application/json"]
        let metadata = try ChildProcess.run(curl + ["--data", #"{"path":"/byteclub/ann-note.md"}"#, server.url + "/2/files/get_metadata"])
        XCTAssertTrue(metadata.stdout.contains(#""modified_by":"\#(ClubMember.accountID(of: "ann"))""#), metadata.stdout)

        // Her longpoll, in flight (curl has sent it all), then her removal.
        let cursorReply = try ChildProcess.run(curl + ["--data", #"{"path":"/byteclub"}"#, server.url + "/2/files/list_folder/get_latest_cursor"])
        let cursor = try XCTUnwrap((try JSONSerialization.jsonObject(with: Data(cursorReply.stdout.utf8)) as? [String: Any])?["cursor"] as? String,
                                   cursorReply.stdout)
        let longpoll = try ChildProcess.start(curl + ["-v", "--data", #"{"cursor":"\#(cursor)","timeout":480}"#, server.url + "/2/files/list_folder/longpoll"])
        let sent = Date().addingTimeInterval(20)
        while !Self.sentAll(longpoll.stderrSoFar) && Date() < sent { usleep(5_000) }
        XCTAssertTrue(longpoll.process.isRunning, "the longpoll waits: \(longpoll.stderrSoFar)")

        let remove = try admin.run(["members", "remove", "ann", "--root", root.path])
        XCTAssertEqual(remove.status, 0, remove.stderr)
        let removed = Date()
        while longpoll.process.isRunning && Date().timeIntervalSince(removed) < 5 { usleep(5_000) }
        XCTAssertLessThan(Date().timeIntervalSince(removed), 1.0, "her longpoll ended within a second")
        let ended = longpoll.finish()
        XCTAssertFalse(ended.stdout.contains("\"changes\""), "cut, not answered: \(ended.stdout)")
        let next = try ChildProcess.run(curl + ["-o", "/dev/null", "-w", "%{http_code}", "--data", "null", server.url + "/2/users/get_current_account"])
        XCTAssertEqual(next.stdout, "401")
        XCTAssertLessThan(Date().timeIntervalSince(removed), 1.5)
        // Her next command is refused, and says what would help: a new invite, not a login.
        let refused = try ann.run(["ls"])
        XCTAssertEqual(refused.status, 5, refused.stderr)
        XCTAssertEqual(refused.stderr, "byteclub: You (ann) were removed from this club\n")
        XCTAssertFalse(refused.stderr.contains("log in"), refused.stderr)
        let audit = try String(contentsOfFile: root.appendingPathComponent(".byteclub/audit.log").path, encoding: .utf8)
        for action in ["invite", "join", "remove"] { XCTAssertTrue(audit.contains(#""action":"\#(action)""#), audit) }
    }

    /// A TLS-terminating proxy with a key of its own between byteclub and the server: it works
    /// for a client that trusts anything, and byteclub, pinning the real key, refuses it, says
    /// why, and sends it nothing (neither a token nor an invite's secret).
    func testAPinnedClientRefusesAProxyWithAnotherKeyAndSendsItNothing() throws {
        let root = base.appendingPathComponent("club")
        let token = "proxy-\(UUID().uuidString)"
        let server = try ServeProcess(root: root, token: token, tls: true)
        let pin = try XCTUnwrap(server.pin)
        let other = try ServerIdentity.generate(hostNames: [])
        XCTAssertNotEqual(other.pin, pin)
        let proxy = try TLSInterceptor(certificatePEM: other.certificatePEM, privateKeyPEM: other.privateKeyPEM, upstreamPort: server.port)
        defer { proxy.stop() }
        let proxied = "https://127.0.0.1:\(proxy.port)"

        let careless = try ChildProcess.run(["curl", "-sS", "-k", "-X", "POST", "-H", "Authorization: Bearer \(token)", "-H", "Content-Type: application/json",
                                             "--data", "null", proxied + "/2/users/get_current_account"])
        XCTAssertTrue(careless.stdout.contains("display_name"), "the proxy relays for a client that trusts anything: \(careless.stderr)")
        let seen = proxy.requestBytes
        XCTAssertGreaterThan(seen, 0)

        let cli = try CLI.isolated(in: base.appendingPathComponent("member"))
        let refused = try cli.run(["ls", "/", "--server", proxied, "--pin", pin, "--token", token])
        XCTAssertNotEqual(refused.status, 0)
        XCTAssertTrue(refused.stderr.contains("did not show the key pinned for it"), refused.stderr)
        XCTAssertTrue(refused.stderr.contains("nothing was sent"), refused.stderr)
        let invite = try cli.run(["members", "add", "mo", "--root", root.path])
        let joining = try cli.run(["join", invite.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
            .replacingOccurrences(of: server.url, with: proxied)])
        XCTAssertNotEqual(joining.status, 0)
        XCTAssertTrue(joining.stderr.contains("did not show the key pinned for it"), joining.stderr)
        XCTAssertEqual(proxy.requestBytes, seen, "not a byte of a request reached the proxy")

        let direct = try cli.run(["ls", "/", "--server", server.url, "--pin", pin, "--token", token])
        XCTAssertEqual(direct.status, 0, "the same client, pinned, reaches the real server: \(direct.stderr)")
        let plainDowngrade = try cli.run(["ls", "/", "--server", "http://127.0.0.1:\(server.port)", "--pin", pin, "--token", token])
        XCTAssertNotEqual(plainDowngrade.status, 0)
        XCTAssertTrue(plainDowngrade.stderr.contains("never reached over plain HTTP"), plainDowngrade.stderr)
    }

    /// A club remote over HTTPS with no pin yet: without a terminal it is refused (nothing is
    /// sent); on a terminal its key is shown once, and a "y" keeps it in config.toml as the pin,
    /// after which no question is asked and no other key accepted.
    func testAnUnpinnedRemoteShowsTheKeyOnceAndKeepsItWhenConfirmed() throws {
        let root = base.appendingPathComponent("club")
        let token = "tofu-\(UUID().uuidString)"
        let server = try ServeProcess(root: root, token: token, tls: true)
        let pin = try XCTUnwrap(server.pin)
        let cli = try CLI.isolated(in: base.appendingPathComponent("member"))
        let config = URL(fileURLWithPath: cli.environment["XDG_CONFIG_HOME"]!).appendingPathComponent("byteclub/config.toml")
        try FileManager.default.createDirectory(at: config.deletingLastPathComponent(), withIntermediateDirectories: true)
        try Data("default = \"club\"\n\n[remote.club]\ntype = \"club\"\nurl = \"\(server.url)\"\ntoken = \"\(token)\"\n".utf8).write(to: config)

        let noTerminal = try cli.run(["ls", "/"])
        XCTAssertNotEqual(noTerminal.status, 0)
        XCTAssertTrue(noTerminal.stderr.contains("no terminal to confirm"), noTerminal.stderr)
        let binary = try XCTUnwrap(CLI.executable).path
        let onTerminal = ["script", "-qec", "'\(binary)' ls /", "/dev/null"]
        let declined = try ChildProcess.run(onTerminal, environment: cli.environment, input: "n\n")
        XCTAssertNotEqual(declined.status, 0)
        XCTAssertTrue(declined.stdout.contains(pin), "the key is shown: \(declined.stdout)")
        XCTAssertFalse(try String(contentsOf: config, encoding: .utf8).contains("pin ="))
        let confirmed = try ChildProcess.run(onTerminal, environment: cli.environment, input: "y\n")
        XCTAssertEqual(confirmed.status, 0, confirmed.stdout + confirmed.stderr)
        XCTAssertTrue(try String(contentsOf: config, encoding: .utf8).contains("pin = \"\(pin)\""))
        let later = try cli.run(["ls", "/"])
        XCTAssertEqual(later.status, 0, "pinned now: no question, no terminal needed: \(later.stderr)")
    }

    /// Whether `curl -v` says the whole request went out (its wording differs between versions).
    private static func sentAll(_ verbose: String) -> Bool {
        verbose.contains("upload completely sent off") || verbose.contains("completely uploaded and fine")
    }
}
