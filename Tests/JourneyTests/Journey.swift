import Foundation
import TestSupport
import XCTest

/// What every journey shares: a club served by `byteclub serve` on a random loopback port, its
/// members each in a world of their own (an ``AppHarness``: home, `XDG_*` folders, a terminal),
/// and the one rule every output of the suite keeps: people are named, and `dbid:` appears only
/// in `*_id` JSON fields (issue 43 §1).
final class JourneyClub {
    let base: URL
    /// The served folder (`serve --root`); notes are in `byteclub/` under it.
    var root: URL { base.appendingPathComponent("served") }
    var notes: URL { root.appendingPathComponent("byteclub") }
    private(set) var server: ServeProcess?
    /// The admin's world, on the server's machine (`members add --root`).
    let admin: AppHarness
    private var members: [String: AppHarness] = [:]

    /// Seeds `notes` (path under the club folder → text) and starts the server: HTTPS with its
    /// own key, members only once `invite` has run (the shared token is the admin's).
    /// `log`: where the server's log goes, a line per request (nil: nowhere).
    init(notes seeded: [String: String] = [:], tls: Bool = true, log: URL? = nil) throws {
        base = FileManager.default.temporaryDirectory.appendingPathComponent("byteclub-journey-\(UUID().uuidString)")
        admin = try AppHarness()
        try FileManager.default.createDirectory(at: notes, withIntermediateDirectories: true)
        for (path, text) in seeded { try write(path, text) }
        server = try ServeProcess(root: root, token: nil, log: log, tls: tls)
    }

    var url: String { server?.url ?? "" }

    func write(_ path: String, _ text: String) throws {
        let file = notes.appendingPathComponent(path)
        try FileManager.default.createDirectory(at: file.deletingLastPathComponent(), withIntermediateDirectories: true)
        try Data(text.utf8).write(to: file)
    }

    func text(_ path: String) -> String? { AppHarness.text(notes.appendingPathComponent(path)) }

    /// `members add NAME --role ROLE` on the server's machine, then `join INVITE` in the
    /// member's own world: the way a club grows (README, docs/cli.md).
    @discardableResult
    func invite(_ name: String, role: String = "editor", file: StaticString = #filePath, line: UInt = #line) throws -> AppHarness {
        let added = try admin.cli(["members", "add", name, "--role", role, "--root", root.path])
        Journey.check(added, "members add \(name)", file: file, line: line)
        XCTAssertEqual(added.status, 0, added.stderr, file: file, line: line)
        let invite = added.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        let member = try AppHarness()
        let joined = try member.cli(["join", invite])
        Journey.check(joined, "join as \(name)", file: file, line: line)
        XCTAssertEqual(joined.status, 0, joined.stderr, file: file, line: line)
        XCTAssertTrue(joined.stdout.contains("Joined as \(name) (\(role))"), joined.stdout, file: file, line: line)
        members[name] = member
        return member
    }

    func member(_ name: String) -> AppHarness? { members[name] }

    /// Stops the server, as a machine that went away.
    func stopServer() { server = nil }

    func close() {
        for member in members.values { member.close() }
        admin.close()
        server = nil
        try? FileManager.default.removeItem(at: base)
    }
}

/// Checks on what a user sees, shared by the journeys.
enum Journey {
    /// Fails when `text` shows an account id anywhere but a `*_id` JSON field: people read names.
    static func assertNamesPeople(_ text: String, _ context: String, file: StaticString = #filePath, line: UInt = #line) {
        let withoutIDFields = text.replacingOccurrences(of: #""[a-z_]*_id"\s*:\s*"dbid:[^"]*""#, with: "", options: .regularExpression)
        XCTAssertFalse(withoutIDFields.contains("dbid:"), "\(context) shows an account id where a name belongs:\n\(text)", file: file, line: line)
    }

    /// The checks every command's output gets: both streams name people.
    static func check(_ result: ChildProcess.Result, _ context: String, file: StaticString = #filePath, line: UInt = #line) {
        assertNamesPeople(result.stdout, context + " (stdout)", file: file, line: line)
        assertNamesPeople(result.stderr, context + " (stderr)", file: file, line: line)
    }

    /// Runs a command in `member`'s world, checks its output names people, and answers it.
    static func run(_ member: AppHarness, _ arguments: [String], file: StaticString = #filePath, line: UInt = #line) throws -> ChildProcess.Result {
        let result = try member.cli(arguments)
        check(result, "byteclub " + arguments.joined(separator: " "), file: file, line: line)
        return result
    }

    /// Waits for every text on the screen at once, then checks the screen names people.
    @discardableResult
    /// Finds a note in the app's list by typing `/` and `query`, opens it (Enter on the hit,
    /// Enter again), and waits until the editor shows `showing`.
    static func open(_ screen: TmuxSession, _ query: String, showing: String, file: StaticString = #filePath, line: UInt = #line) throws {
        try screen.type("/" + query)
        try screen.press("Enter")
        try screen.press("Enter")
        see(screen, [showing], "the editor on \(query)", file: file, line: line)
    }

    /// Waits until a draft of `member`'s (in their state folder's `drafts/`) holds `text`.
    static func draftHolds(_ member: AppHarness, _ text: String, file: StaticString = #filePath, line: UInt = #line) {
        AppHarness.eventually("a draft holding \(text.debugDescription)", file: file, line: line) {
            AppHarness.draftTexts(under: member.state).contains { $0.contains(text) }
        }
    }

    static func see(_ screen: TmuxSession, _ texts: [String], _ context: String, timeout: TimeInterval = 20,
                    file: StaticString = #filePath, line: UInt = #line) -> String {
        let shown = screen.waitFor(all: texts, timeout: timeout, file: file, line: line)
        assertNamesPeople(shown, context, file: file, line: line)
        return shown
    }
}
