import Foundation
import TestSupport
import XCTest
#if canImport(Glibc)
import Glibc
#endif

/// Journey: private at rest (issue 70). Under a umask of 022, ann and bob join an encrypted
/// club on a `byteclub serve`; ann writes notes and a photo, hands a transfer to the background
/// agent, searches, and opens the app (its log, the index, the photo's thumbnail); both open a
/// note, so it is live, and what ann types makes a draft and a live journal; both quit, and ann
/// writes a note while the server is away (the outbox); the admin's byteclub runs its embedded
/// club. Then every path byteclub keeps for itself is walked: each world's (ann's, bob's, the admin's)
/// `XDG_CONFIG_HOME`, `XDG_STATE_HOME`, `XDG_CACHE_HOME` and `XDG_DATA_HOME`, ann's
/// `XDG_RUNTIME_DIR`, and each served club's `.byteclub/`. No file there may be open to the
/// group or others, and no folder; a club's own notes and photos (a served folder outside its
/// `.byteclub/`) keep the umask and are not walked. The walk runs while the app, the agent and
/// the server are up (SQLite's `-wal` and `-shm` exist only while the index is open) and again
/// at the end, and checks it found what it is there to check.
///
/// The defects it holds (issue 70): SQLite made `search.sqlite` 0644 and its `-wal` and `-shm`
/// with the same mode, in the app's cache and in the server's `.byteclub/search/`; the server's
/// `tree`, `ids.log` and `synced` were 0644; a revision kept as a hard link of the file it
/// replaced kept the club file's 0644; thumbnails and a live journal's `.base` (a note's text)
/// were written 0644 by `Data.write`; folders made by `createDirectory` without a mode (the
/// index's, the thumbnails', the config folder, `$XDG_DATA_HOME/byteclub`) were 0755.
final class PrivateAtRestJourneyTests: XCTestCase {
    private var club: JourneyClub?
    private var savedMask: mode_t = 0
    private var agents: [URL] = []

    override func setUp() {
        // Every process of the journey inherits it: the server, each command, the tmux server
        // (so the app), and the agent a command starts.
        savedMask = umask(0o022)
    }

    override func tearDown() {
        // The agent (started by a command, detached) named in its lock file; ended by its pid.
        for lock in agents {
            if let pid = AppHarness.text(lock).flatMap({ Int32($0.trimmingCharacters(in: .whitespacesAndNewlines)) }), pid > 1 {
                kill(pid, SIGTERM)
            }
        }
        club?.close()
        club = nil
        umask(savedMask)
    }

    /// A path found open to others: where, and its mode.
    struct Exposed: CustomStringConvertible {
        var path: String
        var mode: mode_t
        var description: String { "\(String(mode, radix: 8)) \(path)" }
    }

    /// What a walk saw (each path, relative to its world) and what it found open to others.
    struct Walk {
        var seen: [String] = []
        var exposed: [Exposed] = []

        /// Whether a path seen matches `pattern` (a regular expression over the whole path).
        func saw(_ pattern: String) -> Bool {
            seen.contains { $0.range(of: "^" + pattern + "$", options: .regularExpression) != nil }
        }
    }

    /// Walks `path`: a folder is checked and entered, a file or socket checked, a link passed
    /// over (its mode means nothing). A folder that holds a `.byteclub` folder is a served club:
    /// only its `.byteclub/` is byteclub's (the club's notes and photos keep the umask).
    static func visit(_ path: String, named name: String, into walk: inout Walk) {
        var info = stat()
        guard lstat(path, &info) == 0 else { return }
        let kind = info.st_mode & S_IFMT
        if kind == S_IFLNK { return }
        if kind == S_IFDIR {
            var isFolder: ObjCBool = false
            if FileManager.default.fileExists(atPath: path + "/.byteclub", isDirectory: &isFolder), isFolder.boolValue,
               (path as NSString).lastPathComponent != ".byteclub" {
                visit(path + "/.byteclub", named: name + "/.byteclub", into: &walk)
                return
            }
        }
        walk.seen.append(name)
        if info.st_mode & 0o077 != 0 { walk.exposed.append(Exposed(path: name, mode: info.st_mode & 0o7777)) }
        guard kind == S_IFDIR else { return }
        for child in ((try? FileManager.default.contentsOfDirectory(atPath: path)) ?? []).sorted() {
            visit(path + "/" + child, named: name + "/" + child, into: &walk)
        }
    }

    /// Everything under each of `roots` (not the root itself: `$XDG_STATE_HOME` is the user's),
    /// named `label/…`, and each served club's `.byteclub/` (`served/.byteclub/…`).
    static func walk(_ roots: [(label: String, url: URL)], served: URL) -> Walk {
        var walk = Walk()
        for (label, root) in roots {
            for child in ((try? FileManager.default.contentsOfDirectory(atPath: root.path)) ?? []).sorted() {
                visit(root.path + "/" + child, named: label + "/" + child, into: &walk)
            }
        }
        visit(served.path, named: "served", into: &walk)
        return walk
    }

    /// A world's XDG folders, named `NAME:config` and so on.
    static func xdg(_ world: AppHarness, _ name: String) -> [(label: String, url: URL)] {
        ["config", "state", "cache", "data"].map { ("\(name):\($0)", world.base.appendingPathComponent($0)) }
    }

    /// Fails listing every path open to others; says how many were checked.
    static func assertPrivate(_ walk: Walk, _ moment: String, file: StaticString = #filePath, line: UInt = #line) {
        XCTAssertTrue(walk.exposed.isEmpty, "\(moment): \(walk.exposed.count) of \(walk.seen.count) paths byteclub keeps for itself are open to "
            + "the group or others (umask 022):\n" + walk.exposed.map(\.description).joined(separator: "\n"), file: file, line: line)
    }

    /// The umask a running process has (`Umask:` in /proc/PID/status).
    static func umaskOf(_ pid: pid_t) -> String? {
        (try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8))?.split(separator: "\n")
            .first { $0.hasPrefix("Umask:") }.map { $0.dropFirst(6).trimmingCharacters(in: .whitespaces) }
    }

    /// Whether any file in `folder` (at any depth) has a name matching `pattern`.
    static func holds(_ folder: URL, _ pattern: String) -> Bool {
        let names = FileManager.default.enumerator(atPath: folder.path)?.compactMap { $0 as? String } ?? []
        return names.contains { $0.range(of: pattern, options: .regularExpression) != nil }
    }

    func testEverythingByteclubKeepsIsPrivateUnderUmask022() throws {
        let club = try JourneyClub()
        self.club = club
        let ann = try club.invite("ann")
        let bob = try club.invite("bob")
        let runtime = ann.base.appendingPathComponent("runtime")
        // As the system makes XDG_RUNTIME_DIR: the user's alone.
        try FileManager.default.createDirectory(at: runtime, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        let world = ann.environment.merging(["XDG_RUNTIME_DIR": runtime.path, "BYTECLUB_AGENT_IDLE_SECONDS": "300"]) { $1 }
        let binary = try AppHarness.binary.path
        func run(_ arguments: [String], input: String? = nil) throws -> ChildProcess.Result {
            let result = try ChildProcess.run([binary] + arguments, within: 60, environment: world, input: input)
            Journey.check(result, "byteclub " + arguments.joined(separator: " "))
            return result
        }

        // An encrypted club: the index and the journals hold what the server never sees.
        let made = try run(["init", "--encrypted"])
        XCTAssertEqual(made.status, 0, made.stderr)
        XCTAssertNotEqual(try bob.cli(["ls"]).status, 0, "bob asks to join")
        XCTAssertEqual(try run(["members", "admit", "bob"]).status, 0, "ann admits bob")
        let photos = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("Resources/SampleClub/byteclub/photos")
        // A photo replaced and one deleted: the version that went lives on in its history, a
        // hard link of the file it was, private once the file is gone.
        for (arguments, input) in [(["put", "-", "Plans.md"], "Secret plans: the regatta route\n"),
                                   (["put", "-", "Crew.md"], "Crew list for the regatta\n"),
                                   (["put", photos.appendingPathComponent("city-dusk.jpg").path, "photos/harbour.jpg"], nil),
                                   (["put", "--mode", "overwrite", photos.appendingPathComponent("coast-noon.jpg").path, "photos/harbour.jpg"], nil),
                                   (["put", photos.appendingPathComponent("alps-sunrise.jpg").path, "photos/gone.jpg"], nil),
                                   (["rm", "photos/gone.jpg"], nil)] {
            let done = try run(arguments, input: input)
            XCTAssertEqual(done.status, 0, "\(arguments): \(done.stderr)")
        }
        // A transfer handed to the background agent: its socket, lock, journal and log.
        let handed = ann.base.appendingPathComponent("anchor.md")
        try Data("The anchor chain is rusty\n".utf8).write(to: handed)
        let put = try run(["put", "--agent", handed.path, "Anchor.md"])
        XCTAssertEqual(put.status, 0, put.stderr)
        let waited = try run(["transfers", "--wait"])
        XCTAssertEqual(waited.status, 0, waited.stdout + waited.stderr)
        agents = ((try? FileManager.default.contentsOfDirectory(at: ann.state.appendingPathComponent("agent"), includingPropertiesForKeys: nil)) ?? [])
            .filter { $0.pathExtension == "lock" }
        let searched = try run(["search", "regatta"])
        XCTAssertEqual(searched.status, 0, searched.stderr)
        XCTAssertTrue(searched.stdout.contains("Plans"), searched.stdout)

        // The app: its log, the index (open, so with its -wal and -shm), the photo's thumbnail,
        // and, as ann types in a note, its draft and its live journal.
        let screen = try ann.launch([], environment: ["XDG_RUNTIME_DIR": runtime.path, "BYTECLUB_AGENT_IDLE_SECONDS": "300"])
        Journey.see(screen, ["Plans", "Crew"], "ann's notes list")
        let pid = try XCTUnwrap(ann.appPID(), "the app's process")
        XCTAssertEqual(Self.umaskOf(pid), "0022", "the app runs under the umask the journey is about")
        let cache = ann.base.appendingPathComponent("cache/byteclub")
        try screen.type("2")
        Journey.see(screen, ["harbour.jpg"], "ann's photos")
        AppHarness.eventually("the thumbnail cached on disk") { Self.holds(cache.appendingPathComponent("thumbnails"), ".") }
        try screen.type("1")
        Journey.see(screen, ["Plans"], "ann's notes list again")
        // Bob in the note too: it is live, so what ann types is journalled as she types.
        let bobScreen = try bob.launch([])
        for (name, member) in [("ann", screen), ("bob", bobScreen)] {
            Journey.see(member, ["Plans"], "\(name)'s notes list")
            try member.type("/Plans")
            try member.press("Enter")
            try member.press("Enter")
            Journey.see(member, ["Secret plans: the regatta route"], "\(name)'s editor")
        }
        for member in [screen, bobScreen] { member.waitFor("both in the note") { $0.contains("Live: ann, bob") || $0.contains("Live: bob, ann") } }
        try screen.press("End")
        try screen.type(" (ann: past the lighthouse)")
        bobScreen.waitFor("ann's words on bob's screen") { $0.contains("past the lighthouse") }
        AppHarness.eventually("the draft on disk") { Self.holds(ann.draftsRoot, #"\.json$"#) }
        AppHarness.eventually("the live journal on disk") { Self.holds(ann.draftsRoot, #"/live/[^/]+$"#) }
        AppHarness.eventually("the index open, with its -wal and -shm") {
            Self.holds(cache, #"search\.sqlite-wal$"#) && Self.holds(cache, #"search\.sqlite-shm$"#)
        }

        let running = Self.walk(Self.xdg(ann, "ann") + [("ann:runtime", runtime)] + Self.xdg(bob, "bob"), served: club.root)
        Self.assertPrivate(running, "with the app, the agent and the server running")
        for (what, pattern) in [("the index", #"ann:cache/byteclub/[^/]+/search\.sqlite"#),
                                ("the index's WAL", #"ann:cache/byteclub/[^/]+/search\.sqlite-wal"#),
                                ("the index's shared memory", #"ann:cache/byteclub/[^/]+/search\.sqlite-shm"#),
                                ("the index's lock", #"ann:cache/byteclub/[^/]+/search\.sqlite\.lock"#),
                                ("the cached listing", #"ann:cache/byteclub/[^/]+/.+"#),
                                ("a thumbnail", #"ann:cache/byteclub/thumbnails/.+"#),
                                ("the live journal", #"ann:state/byteclub/drafts/[^/]+/live/[^/]+"#),
                                ("bob's index", #"bob:cache/byteclub/[^/]+/search\.sqlite"#),
                                ("the draft", #"ann:state/byteclub/drafts/[^/]+/[^/]+\.json"#),
                                ("the log", #"ann:state/byteclub/byteclub\.log"#),
                                ("the member token", #"ann:state/byteclub/remotes/[^/]+\.token"#),
                                ("the club's keys", #"ann:state/byteclub/encrypted/[^/]+/.+"#),
                                ("the agent's log", #"ann:state/byteclub/agent/[^/]+\.log"#),
                                ("the agent's journal", #"ann:state/byteclub/agent/[^/]+\.json"#),
                                ("the agent's socket", #"ann:runtime/byteclub/agent-[^/]+\.sock"#),
                                ("config.toml", #"ann:config/byteclub/config\.toml"#),
                                ("the identity", #"ann:config/byteclub/identity\.txt"#),
                                ("the server's members", #"served/\.byteclub/members\.json"#),
                                ("the server's key", #"served/\.byteclub/tls/key\.pem"#),
                                ("the server's live log", #"served/\.byteclub/live/[^/]+"#),
                                ("the server's histories", #"served/\.byteclub/revisions/[^/]+/log"#),
                                ("a revision's kept bytes", #"served/\.byteclub/revisions/[^/]+/[0-9a-f]{64}"#)] {
            XCTAssertTrue(running.saw(pattern), "the walk found no \(what) (\(pattern)); it saw:\n" + running.seen.joined(separator: "\n"))
        }

        // The room writes the note; both close it and quit.
        XCTAssertTrue(AppHarness.eventually("ann's words in the note on the server") {
            ((try? run(["get", "Plans.md", "-"]))?.stdout ?? "").contains("past the lighthouse")
        })
        for (member, world) in [(screen, ann), (bobScreen, bob)] {
            // The room's revision reaches each editor a moment after the file has it (its mark,
            // then the change feed): until then the note shows [+], and Esc asks to save first.
            member.waitFor("the room's revision in the editor") { $0.contains("past the lighthouse") && !$0.contains("[+]") }
            try member.press("Escape")
            Journey.see(member, ["Closed Plans.md"], "the note closed")
            try member.type("q")
            member.waitFor(world.exitLine(0))
        }

        // The server goes away; a note written now waits in the outbox.
        club.stopServer()
        let offline = try run(["new", "Offline idea", "--no-edit"], input: "written on the train\n")
        XCTAssertEqual(offline.status, 75, offline.stdout + offline.stderr)
        XCTAssertTrue(Self.holds(ann.state.appendingPathComponent("outbox"), #"\.json$"#), "the note waits in the outbox")

        // The admin's byteclub on its embedded club, in $XDG_DATA_HOME/byteclub/club.
        for arguments in [["ls"], ["search", "welcome"]] {
            let embedded = try club.admin.cli(arguments)
            XCTAssertEqual(embedded.status, 0, "\(arguments): \(embedded.stderr)")
        }

        let done = Self.walk(Self.xdg(ann, "ann") + [("ann:runtime", runtime)] + Self.xdg(bob, "bob") + Self.xdg(club.admin, "admin"),
                             served: club.root)
        Self.assertPrivate(done, "at the end")
        for (what, pattern) in [("the outbox's item", #"ann:state/byteclub/outbox/[^/]+/[^/]+\.json"#),
                                ("the embedded club's folder", #"admin:data/byteclub"#),
                                ("the embedded club's .byteclub", #"admin:data/byteclub/club/\.byteclub/.+"#),
                                ("the embedded club's index (the server's)", #"admin:data/byteclub/club/\.byteclub/search/search\.sqlite"#)] {
            XCTAssertTrue(done.saw(pattern), "the walk found no \(what) (\(pattern)); it saw:\n" + done.seen.joined(separator: "\n"))
        }
        // A club's own notes and photos are the club's, not walked: they keep the umask.
        XCTAssertFalse(done.saw(#"admin:data/byteclub/club/byteclub(/.*)?"#) || done.saw(#"served/byteclub(/.*)?"#), "a club's notes were walked")
    }
}
