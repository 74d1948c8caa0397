import Foundation
import TestSupport
import XCTest

/// Two members of one club, each in a terminal of their own: one `byteclub serve --member
/// ray=… --member ann=…` in a process on a random port, and two apps (``ray`` and ``ann``), each
/// an ``AppHarness`` with its own tmux session, `HOME` and `XDG_*` folders, started with
/// `--server` and that member's `--token`.
///
/// The served folder is ``root``; notes are in ``notes`` and are checked there on disk. Used by
/// the live club's end-to-end tests (lists that update themselves, history, merges).
final class TwoMemberClub {
    /// The two members, by the name the server knows them by.
    enum Member: String, CaseIterable { case ray, ann }

    let base: URL
    let ray: AppHarness
    let ann: AppHarness
    private(set) var server: MemberServe?

    /// Seeds the club folder with `notes` (file name → text) and starts the server; `seed`
    /// writes more into the notes folder first (many notes, say). With `serverLog` the
    /// server's requests go to ``serverLog``.
    init(notes: [String: String] = [:], serverLog: Bool = false, seed: ((URL) throws -> Void)? = nil) throws {
        base = FileManager.default.temporaryDirectory.appendingPathComponent("byteclub-two-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: base.appendingPathComponent("served/byteclub"), withIntermediateDirectories: true)
        ray = try AppHarness()
        ann = try AppHarness()
        for (name, text) in notes {
            // A name may hold folders ("Trips/2026/Deep.md").
            let file = notesFolder.appendingPathComponent(name)
            try FileManager.default.createDirectory(at: file.deletingLastPathComponent(), withIntermediateDirectories: true)
            try text.write(to: file, atomically: true, encoding: .utf8)
        }
        try seed?(notesFolder)
        server = try MemberServe(root: root, members: Member.allCases.map { ($0.rawValue, token(of: $0)) },
                                 log: serverLog ? serverLogFile : nil)
    }

    /// Where the server's log goes when it was asked for.
    var serverLogFile: URL { base.appendingPathComponent("serve.log") }

    /// The served folder (`serve --root`).
    var root: URL { base.appendingPathComponent("served") }
    /// Where the club keeps notes, on the server's disk.
    var notesFolder: URL { root.appendingPathComponent("byteclub") }
    /// `http://127.0.0.1:PORT`.
    var url: String { "http://127.0.0.1:\(server?.port ?? 0)" }

    func token(of member: Member) -> String { "two-member-\(member.rawValue)-token" }
    func app(_ member: Member) -> AppHarness { member == .ray ? ray : ann }

    /// The notes in `member`'s search index on disk, read by SQLite itself (python3's module);
    /// nil before the index file exists.
    func indexedNotes(_ member: Member) -> Int? {
        let cache = app(member).base.appendingPathComponent("cache")
        guard let files = FileManager.default.enumerator(at: cache, includingPropertiesForKeys: nil),
              let index = files.compactMap({ $0 as? URL }).first(where: { $0.lastPathComponent == "search.sqlite" }) else { return nil }
        let script = "import sqlite3,sys; print(sqlite3.connect(sys.argv[1]).execute('select count(*) from note').fetchone()[0])"
        guard let result = try? ChildProcess.run(["python3", "-c", script, index.path]), result.status == 0 else { return nil }
        return Int(result.stdout.trimmingCharacters(in: .whitespacesAndNewlines))
    }

    /// Starts `member`'s app on the club and returns its terminal. Without live editing unless
    /// `live`: these tests are about members who save (lists, merges, history); live editing has
    /// LiveEditingEndToEndTests.
    @discardableResult
    func launch(_ member: Member, width: Int = 120, height: Int = 36, extra: [String] = [], live: Bool = false) throws -> TmuxSession {
        try app(member).launch(["--server", url, "--token", token(of: member)] + (live ? [] : ["--no-live"]) + extra, width: width, height: height)
    }

    /// Starts both apps and waits until each shows `ready` (a note's title, say).
    func launchBoth(waitingFor ready: String, width: Int = 120, height: Int = 36) throws -> (ray: TmuxSession, ann: TmuxSession) {
        let r = try launch(.ray, width: width, height: height)
        let a = try launch(.ann, width: width, height: height)
        r.waitFor(ready)
        a.waitFor(ready)
        return (r, a)
    }

    /// A note's text on the server's disk, or nil.
    func text(ofNote name: String) -> String? { AppHarness.text(notesFolder.appendingPathComponent(name)) }

    /// Writes a note straight onto the server's disk (the server's 1 s rescan journals it).
    func write(note name: String, _ text: String) throws {
        try text.write(to: notesFolder.appendingPathComponent(name), atomically: true, encoding: .utf8)
    }

    func close() {
        ray.close()
        ann.close()
        server?.kill()
        server = nil
        try? FileManager.default.removeItem(at: base)
    }
}

extension TwoMemberClub {
    /// Opens the note titled `title` in `tmux`'s app from the list: filtered to it, then Enter.
    func open(_ title: String, in tmux: TmuxSession, showing text: String) throws {
        try tmux.type("/")
        try tmux.type(title)
        try tmux.press("Enter")
        // Its row, not only the filter line: a list still loading (no cache yet after a kill)
        // has no row for Enter to open.
        tmux.waitFor("the list filtered to \(title)") { screen in
            let lines = screen.components(separatedBy: "\n")
            guard let filterLine = lines.lastIndex(where: { $0.hasPrefix(" / \(title)") }) else { return false }
            return lines[..<filterLine].dropFirst(2).contains { $0.contains(title) }
        }
        try tmux.press("Enter")
        tmux.waitFor(text)
    }
}
