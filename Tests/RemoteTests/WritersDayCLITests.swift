import Foundation
import Remote
import TestSupport
import XCTest
#if canImport(Glibc)
import Glibc
#endif

/// `byteclub new` and `byteclub edit`, run as a writer runs them, against a club server on
/// loopback, with `$EDITOR` a shell script that does what a person would in the editor.
final class WritersDayCLITests: XCTestCase {
    var club: ClubFixture!
    var cli: CLI!

    override func setUp() async throws {
        club = try await ClubFixture()
        cli = try CLI.isolated(in: club.base)
    }

    override func tearDown() async throws {
        await club?.close()
    }

    var server: [String] { ["--server", club.server.baseURL.absoluteString, "--token", club.token] }

    /// A CLI whose `$EDITOR` runs `script` (a POSIX shell body; the file is `$1`), with `extra`
    /// in its environment.
    func editing(_ script: String, name: String = "editor", extra: [String: String] = [:]) throws -> CLI {
        let file = club.base.appendingPathComponent("\(name).sh")
        try Data("#!/bin/sh\n\(script)\n".utf8).write(to: file)
        chmod(file.path, 0o755)
        var environment = cli.environment
        environment["VISUAL"] = nil
        environment["EDITOR"] = file.path
        environment.merge(extra) { _, new in new }
        return CLI(environment: environment, directory: cli.directory)
    }

    func note(_ name: String) -> String? { try? String(contentsOf: club.file("byteclub/" + name), encoding: .utf8) }

    func write(_ name: String, _ text: String) throws {
        let url = club.file("byteclub/" + name)
        try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
        try Data(text.utf8).write(to: url)
    }

    /// What stays in the drafts folders (the JSON drafts, and editor files left beside them):
    /// the club's own (`drafts/KEY/`, drafts being per club), and any file beside them.
    var draftFiles: [String] {
        let root = club.base.appendingPathComponent("home/state/byteclub/drafts")
        let manager = FileManager.default
        return ((try? manager.contentsOfDirectory(atPath: root.path)) ?? []).sorted().flatMap { name -> [String] in
            var isFolder: ObjCBool = false
            guard manager.fileExists(atPath: root.appendingPathComponent(name).path, isDirectory: &isFolder), isFolder.boolValue else { return [name] }
            return ((try? manager.contentsOfDirectory(atPath: root.appendingPathComponent(name).path)) ?? []).sorted()
        }
    }

    static func today() -> String {
        let formatter = DateFormatter()
        formatter.dateFormat = "yyyy-MM-dd"
        return formatter.string(from: Date())
    }

    // MARK: - new

    func testNewMakesTheNoteInAFolderFromATemplateWithItsPlaceholdersFilled() throws {
        try write("templates/meeting.md", "# {{title}}\n{{date}} {{time}}, {{author}}\n{{unknown}} stays\n")
        // The club's shared token speaks for `club`, no one's name: {{author}} is the member's own.
        let writer = try editing(#"printf 'decided: a boat\n' >> "$1""#, extra: ["BYTECLUB_NAME": "ada"])
        let made = try writer.run(["new", "Standup", "--folder", "work/team", "--template", "meeting"] + server)
        XCTAssertEqual(made.status, 0, made.stderr)
        XCTAssertEqual(made.stdout, "/byteclub/work/team/Standup.md\n")
        let text = try XCTUnwrap(note("work/team/Standup.md"), "made in the folder, which was made for it")
        let lines = text.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        XCTAssertEqual(lines.first, "# Standup")
        XCTAssertTrue(lines[1].hasPrefix(Self.today() + " "), lines[1])
        XCTAssertNotNil(lines[1].range(of: #"^\d{4}-\d\d-\d\d \d\d:\d\d, ada$"#, options: .regularExpression),
                        "the date, the time and the member's own name, not the shared token's `club`: \(lines[1])")
        XCTAssertEqual(Array(lines.dropFirst(2)), ["{{unknown}} stays", "decided: a boat", ""])
        XCTAssertEqual(draftFiles, [], "the draft goes once the club has the note")
    }

    func testNewWithNoEditReadsStdinOrTakesTheTemplate() throws {
        try write("templates/Idea.md", "Idea: {{title}}\n")
        let stdin = Pipe()
        let process = try cli.start(["new", "From a pipe", "--no-edit"] + server, stdin: stdin)
        stdin.fileHandleForWriting.write(Data("typed in a pipe\n".utf8))
        try stdin.fileHandleForWriting.close()
        process.waitUntilExit()
        XCTAssertEqual(process.terminationStatus, 0)
        XCTAssertEqual(note("From a pipe.md"), "typed in a pipe\n")

        // Nothing on stdin: the template's text.
        let empty = Pipe()
        let second = try cli.start(["new", "Kites", "--no-edit", "--template", "idea"] + server, stdin: empty)
        try empty.fileHandleForWriting.close()
        second.waitUntilExit()
        XCTAssertEqual(second.terminationStatus, 0)
        XCTAssertEqual(note("Kites.md"), "Idea: Kites\n")

        let missing = try cli.run(["new", "Other", "--no-edit", "--template", "nope"] + server)
        XCTAssertEqual(missing.status, 3, missing.stderr)
        XCTAssertEqual(missing.stderr, "byteclub: no template \"nope\" in /byteclub/templates (there: Idea)\n")
        XCTAssertNil(note("Other.md"))
    }

    func testNewRefusesATakenTitleAndTitlesThatCannotBeFileNames() throws {
        try write("Trip.txt", "ours\n")
        let writer = try editing(#"printf 'never\n' > "$1""#)
        let taken = try writer.run(["new", "trip"] + server)
        XCTAssertEqual(taken.status, 4, taken.stderr)
        XCTAssertTrue(taken.stderr.hasPrefix("byteclub: a note titled \"trip\" is already there: /byteclub/Trip.txt"), taken.stderr)
        XCTAssertEqual(note("Trip.txt"), "ours\n", "nothing overwritten")
        XCTAssertNil(note("trip.md"))
        for (title, says) in [("a/b", "cannot hold \"/\""), ("", "cannot be empty"), ("bell\u{07}", "control characters")] {
            let bad = try writer.run(["new", title] + server)
            XCTAssertEqual(bad.status, 64, bad.stderr)
            XCTAssertTrue(bad.stderr.hasPrefix("byteclub: ") && bad.stderr.contains(says), bad.stderr)
            XCTAssertEqual(bad.stderr.split(separator: "\n").count, 1, "one line: \(bad.stderr)")
        }
    }

    // MARK: - edit

    func testEditSavesWhatTheEditorLeftAndAnUnchangedTextSavesNothing() async throws {
        try write("Plan.md", "day 1\n")
        let writer = try editing(#"printf 'day 2\n' >> "$1""#)
        let saved = try writer.run(["edit", "plan"] + server)
        XCTAssertEqual(saved.status, 0, saved.stderr)
        XCTAssertEqual(saved.stdout, "/byteclub/Plan.md\n")
        XCTAssertEqual(note("Plan.md"), "day 1\nday 2\n")
        let rev = try await club.store().metadata("/byteclub/Plan.md").rev

        let looker = try editing("true", name: "looker")
        let unchanged = try looker.run(["edit", "Plan.md"] + server)
        XCTAssertEqual(unchanged.status, 0, unchanged.stderr)
        XCTAssertEqual(unchanged.stderr, "byteclub: no changes: nothing was saved\n")
        let after = try await club.store().metadata("/byteclub/Plan.md").rev
        XCTAssertEqual(after, rev, "no new revision")
        XCTAssertEqual(draftFiles, [])

        let missing = try writer.run(["edit", "Nowhere"] + server)
        XCTAssertEqual(missing.status, 3, missing.stderr)
    }

    /// The editor starts, then waits for `go`; meanwhile the test plays the other member.
    func waitingEditor(_ change: String) throws -> (cli: CLI, ready: URL, go: URL) {
        let ready = club.base.appendingPathComponent("ready")
        let go = club.base.appendingPathComponent("go")
        let writer = try editing("""
            \(change)
            echo $$ $PPID > '\(ready.path).tmp'; mv '\(ready.path).tmp' '\(ready.path)'
            while [ ! -f '\(go.path)' ]; do sleep 0.05; done
            """, name: "waiting")
        return (writer, ready, go)
    }

    /// `edit NOTE` whose editor runs `change`, while another member saves `theirs` over the note.
    func edit(_ name: String, change: String, whileAMemberSaves theirs: String) async throws -> (status: Int32, stderr: String) {
        let (writer, ready, go) = try waitingEditor(change)
        let process = try writer.start(["edit", name] + server)
        AppHarness.eventually("the editor to start") { FileManager.default.fileExists(atPath: ready.path) }
        let path = "/byteclub/\(name).md"
        let before = try await club.store().metadata(path)
        _ = try await club.store().upload(data: Data(theirs.utf8), to: path, mode: .update(rev: before.rev ?? ""), autorename: false)
        FileManager.default.createFile(atPath: go.path, contents: nil)
        process.waitUntilExit()
        return (process.terminationStatus, String(decoding: (process.standardError as! Pipe).fileHandleForReading.readDataToEndOfFile(), as: UTF8.self))
    }

    func testAChangeAnotherMemberMadeDuringTheEditIsMerged() async throws {
        try write("Trip.md", "boat\nfood\ntents\n")
        let (status, stderr) = try await edit("Trip", change: #"sed -i 's/^boat$/big boat/' "$1""#, whileAMemberSaves: "boat\nfood\ntents and mats\n")
        XCTAssertEqual(status, 0, stderr)
        XCTAssertEqual(note("Trip.md"), "big boat\nfood\ntents and mats\n", "both changes")
        XCTAssertTrue(stderr.contains("byteclub: merged with a change "), stderr)
    }

    func testAKillDuringTheEditLosesNothingAndTheNextEditSavesIt() throws {
        try write("Plan.md", "day 1\n")
        let (writer, ready, _) = try waitingEditor(#"printf 'day 1\nwritten before the kill\n' > "$1""#)
        let process = try writer.start(["edit", "Plan"] + server)
        AppHarness.eventually("the editor to write") { FileManager.default.fileExists(atPath: ready.path) }
        kill(process.processIdentifier, SIGKILL)
        // The editor and its shell, orphaned, are the test's to end; Foundation sees byteclub's
        // end only once every process holding its descriptors has gone.
        for pid in ((try? String(contentsOf: ready, encoding: .utf8)) ?? "").split(whereSeparator: \.isWhitespace).compactMap({ Int32($0) }) {
            kill(pid, SIGKILL)
        }
        process.waitUntilExit()
        XCTAssertEqual(note("Plan.md"), "day 1\n", "nothing was sent")
        XCTAssertTrue(draftFiles.contains { $0.hasSuffix(".json") }, "the draft is on disk: \(draftFiles)")

        let looker = try editing("cat \"$1\" > '\(club.base.path)/seen'", name: "looker")
        let resumed = try looker.run(["edit", "Plan"] + server)
        XCTAssertEqual(resumed.status, 0, resumed.stderr)
        XCTAssertTrue(resumed.stderr.hasPrefix("byteclub: resuming your unsaved edit of \"Plan\""), resumed.stderr)
        XCTAssertEqual(try String(contentsOf: club.base.appendingPathComponent("seen"), encoding: .utf8), "day 1\nwritten before the kill\n",
                       "the editor opens what was written before the kill")
        XCTAssertEqual(note("Plan.md"), "day 1\nwritten before the kill\n")
        XCTAssertEqual(draftFiles, [])
    }

    /// A note another member deletes while it is in the editor: what the app's save machine
    /// makes of the club's answer (``NoteSaveMachine``, which this shell drives too), in this
    /// shell's words. The text is a draft of a new note that `new` makes again, as the app offers
    /// to save it as new; it was told to `edit` it "with both sides marked" before, and there is
    /// no other side.
    func testANoteDeletedDuringTheEditIsKeptAsADraftThatNewMakesAgain() async throws {
        try write("Trip.md", "boat\n")
        let (writer, ready, go) = try waitingEditor(#"printf 'boat\nfood\n' > "$1""#)
        let process = try writer.start(["edit", "Trip"] + server)
        AppHarness.eventually("the editor to start") { FileManager.default.fileExists(atPath: ready.path) }
        _ = try await club.store().delete("/byteclub/Trip.md")
        FileManager.default.createFile(atPath: go.path, contents: nil)
        process.waitUntilExit()
        let stderr = String(decoding: (process.standardError as! Pipe).fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        XCTAssertEqual(process.terminationStatus, 4, stderr)
        XCTAssertTrue(stderr.contains("\"Trip\" was deleted on the server meanwhile; your text is kept as a draft: byteclub new \"Trip\" makes it again"), stderr)
        XCTAssertFalse(stderr.contains("both sides marked"), stderr)
        XCTAssertNil(note("Trip.md"), "nothing was written over the deletion")

        let keeper = try editing("exit 0", name: "keeper")
        let made = try keeper.run(["new", "Trip"] + server)
        XCTAssertEqual(made.status, 0, made.stderr)
        XCTAssertTrue(made.stderr.contains("resuming your unsaved new note \"Trip\""), made.stderr)
        XCTAssertEqual(note("Trip.md"), "boat\nfood\n", "the text typed over the deleted note")
        XCTAssertEqual(draftFiles, [])
    }

    func testOverlappingChangesKeepTheTextAndTheNextEditMarksBothSides() async throws {
        try write("Menu.md", "soup\n")
        let (status, stderr) = try await edit("Menu", change: #"printf 'stew\n' > "$1""#, whileAMemberSaves: "salad\n")
        XCTAssertEqual(status, 4, "no terminal to ask on: \(stderr)")
        XCTAssertTrue(stderr.hasPrefix("byteclub: ") && stderr.contains("byteclub edit \"Menu\" opens it with both sides marked"), stderr)
        XCTAssertEqual(note("Menu.md"), "salad\n", "theirs stands")

        let seen = club.base.appendingPathComponent("seen").path
        let resolver = try editing("cat \"$1\" > '\(seen)'; printf 'stew and salad\\n' > \"$1\"", name: "resolver")
        let resolved = try resolver.run(["edit", "Menu"] + server)
        XCTAssertEqual(resolved.status, 0, resolved.stderr)
        let marked = try String(contentsOfFile: seen, encoding: .utf8)
        XCTAssertTrue(marked.hasPrefix("<<<<<<< yours\nstew\n=======\nsalad\n>>>>>>> ") && marked.hasSuffix("\n"), marked)
        XCTAssertEqual(note("Menu.md"), "stew and salad\n")
    }
    func testOnATerminalOverlappingChangesAskAndOpenBothMarkedInTheEditor() async throws {
        let byteclub = try Requirement.byteclub()
        try write("Menu.md", "soup\n")
        let seen = club.base.appendingPathComponent("seen").path
        let (writer, ready, go) = try waitingEditor("cat \"$1\" >> '\(seen)'; printf 'stew\\n' > \"$1\"")
        let tmux = try TmuxSession(width: 160, height: 30, environment: writer.environment)
        defer {
            // The shell ends its session, and so the server, should kill-server not reach it.
            try? tmux.type("exit")
            try? tmux.press("Enter")
            tmux.kill()
        }
        try tmux.type("cd " + TmuxSession.quote(writer.directory.path) + " && " + ([byteclub.path, "edit", "Menu"] + server).map(TmuxSession.quote).joined(separator: " ")
                      + "; echo \"exit $?\"")
        try tmux.press("Enter")
        AppHarness.eventually("the editor to start") { FileManager.default.fileExists(atPath: ready.path) }
        let before = try await club.store().metadata("/byteclub/Menu.md")
        _ = try await club.store().upload(data: Data("salad\n".utf8), to: "/byteclub/Menu.md", mode: .update(rev: before.rev ?? ""), autorename: false)
        FileManager.default.createFile(atPath: go.path, contents: nil)
        tmux.waitFor("the overlaps marked? [Y/n]")
        try tmux.type("y")
        try tmux.press("Enter")
        tmux.waitFor("exit 0")
        XCTAssertEqual(note("Menu.md"), "stew\n", "what the editor left the second time")
        let marked = try String(contentsOfFile: seen, encoding: .utf8)
        XCTAssertTrue(marked.hasPrefix("soup\n<<<<<<< yours\nstew\n=======\nsalad\n>>>>>>> "), "the editor saw both sides marked: \(marked)")
        XCTAssertEqual(draftFiles, [])
    }
}
