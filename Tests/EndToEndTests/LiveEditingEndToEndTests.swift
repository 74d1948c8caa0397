import Foundation
import TestSupport
import XCTest

/// Live editing (issue 57) in real terminals: a `byteclub serve` on a random loopback port and
/// two or three apps, each in its own tmux server with its own HOME, in one note, typing at the
/// same spot. Every screen ends with the same text holding every key, the others' names shown.
final class LiveEditingEndToEndTests: XCTestCase {
    static let members = ["ann", "ray", "cy"]
    var base: URL!
    var server: MemberServe?
    var apps: [String: AppHarness] = [:]

    override func setUpWithError() throws {
        base = FileManager.default.temporaryDirectory.appendingPathComponent("byteclub-live-\(UUID().uuidString)")
        let notes = base.appendingPathComponent("served/byteclub")
        try FileManager.default.createDirectory(at: notes, withIntermediateDirectories: true)
        try "# Minutes\n\nAgenda:\n".write(to: notes.appendingPathComponent("Minutes.md"), atomically: true, encoding: .utf8)
        server = try MemberServe(root: base.appendingPathComponent("served"), members: Self.members.map { ($0, "live-\($0)-token") })
        for member in Self.members { apps[member] = try AppHarness() }
    }

    override func tearDown() {
        for app in apps.values { app.close() }
        server?.kill()
        try? FileManager.default.removeItem(at: base)
    }

    var noteOnDisk: String { AppHarness.text(base.appendingPathComponent("served/byteclub/Minutes.md")) ?? "" }

    /// Starts `member`'s app and opens the note in its editor, live.
    func open(_ member: String, again: Bool = false) throws -> TmuxSession {
        let tmux = try XCTUnwrap(apps[member]).launch(["--server", "http://127.0.0.1:\(server?.port ?? 0)", "--token", "live-\(member)-token"],
                                                      jobControl: false)
        // A run after a kill -9 starts on the killed run's screen: the new one has no shell prompt on it.
        tmux.waitFor("the notes list") { AppHarness.listed("Minutes", in: $0) && !$0.contains("e2e>") }
        try tmux.press("Enter")
        tmux.waitFor("the note open") { $0.contains("Agenda:") && $0.contains("Title: Minutes") }
        // To the end of the text, where everyone types.
        try tmux.press("C-End")
        return tmux
    }

    /// Kills `member`'s app (kill -9) and waits for its shell to have said so: a launch typed
    /// before that could be lost with the killed run's typeahead (a relaunch's screen stayed on
    /// the shell's prompt, in one run of three).
    func killMinusNine(_ member: String) throws {
        let harness = try XCTUnwrap(apps[member])
        kill(try XCTUnwrap(harness.appPID()), SIGKILL)
        // Printed where the killed app left the cursor, so it may wrap at the pane's edge.
        try XCTUnwrap(harness.tmux).waitFor("\(member)'s killed run ended") {
            $0.replacingOccurrences(of: "\n", with: "").contains(harness.exitLine(137))
        }
    }

    /// The note's body as a screen shows it: the lines from "# Minutes" down to the status bar.
    static func body(_ screen: String) -> [String] {
        let lines = screen.split(separator: "\n", omittingEmptySubsequences: false).map { String($0) }
        guard let start = lines.firstIndex(where: { $0.contains("# Minutes") }) else { return [] }
        return lines[start...].prefix { !$0.contains("Live: ") }.map { line in
            // The editor pane's part of the row (the list is on its left).
            let editor = line.range(of: "# Minutes").map { _ in line } ?? line
            return editor.trimmingCharacters(in: .whitespaces)
        }
    }

    /// ann, then ray, in the note, live on both screens.
    func bothInTheNote() throws -> (TmuxSession, TmuxSession) {
        let ann = try open("ann")
        let ray = try open("ray")
        ann.waitFor("both in the note") { Self.live($0, ["ann", "ray"]) }
        ray.waitFor("both in the note") { Self.live($0, ["ann", "ray"]) }
        return (ann, ray)
    }

    /// ``bothInTheNote()``, then `rounds` of both typing at one spot, every word on both screens.
    func bothTyping(rounds: Range<Int>) throws -> (TmuxSession, TmuxSession, [String]) {
        let (ann, ray) = try bothInTheNote()
        let words = try typeTogether([("ann", ann), ("ray", ray)], rounds: rounds)
        assertConverged([("ann", ann), ("ray", ray)], holding: words)
        return (ann, ray, words)
    }

    func typeTogether(_ terminals: [(String, TmuxSession)], rounds: Range<Int>) throws -> [String] {
        var words: [String] = []
        for round in rounds {
            for (member, tmux) in terminals {
                let word = "\(member)\(round) "
                try tmux.type(word)
                words.append(word.trimmingCharacters(in: .whitespaces))
            }
        }
        return words
    }

    func assertConverged(_ terminals: [(String, TmuxSession)], holding words: [String], file: StaticString = #filePath, line: UInt = #line) {
        var screens: [String] = []
        for (member, tmux) in terminals {
            let screen = tmux.waitFor("every word on \(member)'s screen", timeout: 20, file: file, line: line) { screen in
                words.allSatisfy { screen.contains($0) }
            }
            screens.append(screen)
        }
        // The same order of words everywhere: the shared text is one text.
        let orders = screens.map { screen in
            words.sorted { (screen.range(of: $0)?.lowerBound ?? screen.endIndex) < (screen.range(of: $1)?.lowerBound ?? screen.endIndex) }
        }
        XCTAssertEqual(Set(orders.map { $0.joined(separator: " ") }).count, 1, "the words in one order on every screen: \(orders)", file: file, line: line)
    }

    func testTwoAppsTypingAtTheSameSpotConvergeWithTheOthersNameShownAndTheFileWritten() throws {
        let (ann, ray) = try bothInTheNote()
        // Ann types first (the revision's saver is the first who typed), then both at once.
        try ann.type("Notes: ")
        ray.waitFor("ann's first word on ray's screen") { $0.contains("Notes: ") }
        let words = try typeTogether([("ann", ann), ("ray", ray)], rounds: 0..<8)
        assertConverged([("ann", ann), ("ray", ray)], holding: words)
        // Each sees the other's name by their cursor, with no key pressed after the typing.
        ann.waitFor("ray's name tag by ray's cursor") { $0.contains("◂ ray") }
        ray.waitFor("ann's name tag by ann's cursor") { $0.contains("◂ ann") }
        // The server writes the file after the pause, with every word, as ann (who typed first) with ray.
        _ = AppHarness.eventually("the file holds every word", timeout: 20) { words.allSatisfy { self.noteOnDisk.contains($0) } }
        XCTAssertFalse(ray.capture().contains("Merged"), "no merge for text live editing holds")
        XCTAssertFalse(ray.capture().contains("Changed by"), "no banner for the writer's revision")

        // The revision names both: ann saved it, ray wrote in it. In a script, and in a third
        // member's app, in the note's history.
        let cy = try XCTUnwrap(apps["cy"])
        let serverURL = "http://127.0.0.1:\(server?.port ?? 0)"
        let log = try cy.cli(["log", "/byteclub/Minutes.md", "--server", serverURL, "--token", "live-cy-token"])
        XCTAssertEqual(log.status, 0, log.stderr)
        XCTAssertTrue(log.stdout.contains("ann with ray"), log.stdout)
        let history = try cy.launch(["--server", serverURL, "--token", "live-cy-token"])
        history.waitFor("the notes list") { AppHarness.listed("Minutes", in: $0) }
        try history.type("H")
        history.waitFor("History of \"Minutes\"")
        history.waitFor("ann with ray")
    }

    func testThreeAppsAndOneStoppedForTenSecondsConvergeWithNothingLost() throws {
        let ann = try open("ann")
        let ray = try open("ray")
        let cy = try open("cy")
        for tmux in [ann, ray, cy] { tmux.waitFor("all three in the note") { Self.live($0, ["ann", "ray", "cy"]) } }
        var words = try typeTogether([("ann", ann), ("ray", ray), ("cy", cy)], rounds: 0..<4)
        assertConverged([("ann", ann), ("ray", ray), ("cy", cy)], holding: words)

        // cy's app stopped for ten seconds while the others type.
        let cyPID = try XCTUnwrap(apps["cy"]?.appPID())
        kill(cyPID, SIGSTOP)
        words += try typeTogether([("ann", ann), ("ray", ray)], rounds: 4..<8)
        // Ten seconds of the others typing while cy is stopped, polled on their screens.
        let stoppedAt = Date()
        _ = AppHarness.eventually("ten seconds with cy stopped", timeout: 30) {
            _ = ann.capture()
            return Date().timeIntervalSince(stoppedAt) >= 10
        }
        kill(cyPID, SIGCONT)
        assertConverged([("ann", ann), ("ray", ray), ("cy", cy)], holding: words)
        // And cy types on, at once live again.
        words += try typeTogether([("cy", cy), ("ann", ann)], rounds: 8..<10)
        assertConverged([("ann", ann), ("ray", ray), ("cy", cy)], holding: words)
    }

    func testOfflineTypingAndAKillMinusNineLoseNothingTheQueuedUpdatesComeBack() throws {
        let ann = try open("ann")
        let ray = try open("ray")
        ann.waitFor("both in the note") { Self.live($0, ["ann", "ray"]) }
        try ray.type("live-word ")
        ann.waitFor("ray's word live") { $0.contains("live-word") }

        // The server goes away: both type on, offline; their updates wait in their journals.
        let port = try XCTUnwrap(server?.port)
        server?.kill()
        ray.waitFor("ray offline") { $0.contains("Live: offline") }
        ann.waitFor("ann offline") { $0.contains("Live: offline") }
        try ray.type("ray-offline-word ")
        try ann.type("ann-offline-word ")
        ray.waitFor("ray's offline word on ray's screen") { $0.contains("ray-offline-word") }
        // ray's app is killed (kill -9) with its updates still queued: only its journal and draft hold them.
        AppHarness.eventually("ray's draft written") { self.draftHolds("ray", "ray-offline-word") }
        try killMinusNine("ray")

        // The server comes back on its port and folder; ann's app finds it, ray's starts again.
        server = try MemberServe(root: base.appendingPathComponent("served"), members: Self.members.map { ($0, "live-\($0)-token") }, port: port)
        let again = try open("ray", again: true)
        let words = ["live-word", "ray-offline-word", "ann-offline-word"]
        assertConverged([("ann", ann), ("ray", again)], holding: words)
        try again.type("after-return ")
        assertConverged([("ann", ann), ("ray", again)], holding: words + ["after-return"])
        _ = AppHarness.eventually("the file holds every word", timeout: 20) { (words + ["after-return"]).allSatisfy { self.noteOnDisk.contains($0) } }
    }

    /// Issue 68 (1): both type in the note; ray's app is killed (kill -9) mid-burst while ann
    /// types on; ray starts again and opens the note, its draft restored. Every word is on both
    /// screens and in the file once: the draft (written a little after each key) was merged in
    /// again at the join, and the burst was doubled for everyone.
    func testAKillMinusNineMidBurstDoublesNoWordWhenTheNoteIsOpenedAgain() throws {
        let (ann, ray, typed) = try bothTyping(rounds: 0..<3)
        var words = typed

        // ray's burst: the journal (the live note's draft) holds every key; killed mid-way.
        try ray.type("rayburst1 rayburst2 ")
        AppHarness.eventually("ray's draft written") { self.draftHolds("ray", "rayburst2") }
        try ray.type("rayburst3 rayburst4 ")
        try killMinusNine("ray")
        ann.waitFor("ray gone") { !Self.live($0, ["ann", "ray"]) }
        try ann.type("annafter1 annafter2 ")
        words += ["rayburst1", "rayburst2", "annafter1", "annafter2"]

        let again = try open("ray", again: true)
        // The banner says so until the room writes the note (the draft is then saved and goes):
        // on a loaded machine that can come before a look at the screen, so a draft taken and
        // gone, with the note open live, says the same.
        again.waitFor("ray's draft restored") { screen in
            screen.contains("Restored your unsaved draft")
                || (Self.live(screen, ["ann", "ray"]) && screen.contains("annafter2") && !self.draftHolds("ray", "rayburst2"))
        }
        assertConverged([("ann", ann), ("ray", again)], holding: words)
        // Keys typed just before the kill may have reached the journal or not; never twice.
        for (member, tmux) in [("ann", ann), ("ray", again)] {
            let screen = tmux.waitFor("ray's keys once on \(member)'s screen", timeout: 10) { screen in
                words.allSatisfy { Self.count($0, in: screen) == 1 } && ["rayburst3", "rayburst4"].allSatisfy { Self.count($0, in: screen) <= 1 }
            }
            for word in words { XCTAssertEqual(Self.count(word, in: screen), 1, "\(word) on \(member)'s screen:\n\(screen)") }
        }
        _ = AppHarness.eventually("the file holds every word once", timeout: 20) {
            words.allSatisfy { Self.count($0, in: self.noteOnDisk) == 1 }
        }
        for word in words + ["rayburst3", "rayburst4"] {
            XCTAssertLessThanOrEqual(Self.count(word, in: noteOnDisk), 1, "\(word) in the file:\n\(noteOnDisk)")
        }
        for word in words { XCTAssertEqual(Self.count(word, in: noteOnDisk), 1, "\(word) in the file:\n\(noteOnDisk)") }
    }

    /// Issue 68 (2): the member who writes the file (ann, in first) dies mid-burst; ray, left
    /// alone, writes both members' words within the pause. They were stranded on ray's screen
    /// (`[+]`) and in no file until someone pressed Ctrl-S.
    func testWhenTheWriterDiesTheOneLeftWritesEveryonesWords() throws {
        let (ann, ray, words) = try bothTyping(rounds: 0..<3)
        kill(try XCTUnwrap(apps["ann"]?.appPID()), SIGKILL)
        ray.waitFor("ann gone") { !Self.live($0, ["ann", "ray"]) }
        XCTAssertTrue(AppHarness.eventually("the file holds both members' words", timeout: 20) { words.allSatisfy { self.noteOnDisk.contains($0) } },
                      "the file:\n\(noteOnDisk)")
        ray.waitFor("ray's note saved") { !$0.contains("[+]") }
    }

    /// Issue 68, one note, one history: the server writes a plain club's live note, and a change
    /// made outside it is merged into the room once. `byteclub put` of the note with a line added
    /// under its title, while ann and ray are in it: the line reaches both screens once, with no
    /// banner and no merge to settle, and the file holds it and every word typed, each once.
    func testALinePutFromTheShellWhileTwoAppsAreInTheNoteIsMergedIntoItOnce() throws {
        let (ann, ray, words) = try bothTyping(rounds: 0..<3)
        XCTAssertTrue(AppHarness.eventually("the file holds every word", timeout: 20) { words.allSatisfy { self.noteOnDisk.contains($0) } },
                      "the file:\n\(noteOnDisk)")
        for tmux in [ann, ray] { tmux.waitFor("the revision taken as the note's base") { !$0.contains("[+]") } }

        let edited = noteOnDisk.replacingOccurrences(of: "# Minutes\n", with: "# Minutes\nFrom the shell\n")
        let cy = try XCTUnwrap(apps["cy"])
        let put = try cy.cli(["put", "-", "Minutes.md", "--mode", "overwrite", "--server", "http://127.0.0.1:\(server?.port ?? 0)",
                              "--token", "live-cy-token"], input: edited)
        XCTAssertEqual(put.status, 0, put.stderr)
        // Typed while the server merges it, and kept.
        try ray.type("after ")
        for (member, tmux) in [("ann", ann), ("ray", ray)] {
            let screen = tmux.waitFor("the shell's line and ray's word on \(member)'s screen") { $0.contains("From the shell") && $0.contains("after ") }
            XCTAssertEqual(Self.count("From the shell", in: screen), 1, screen)
            XCTAssertFalse(screen.contains("Changed by"), "no banner: the room holds the change\n\(screen)")
            XCTAssertFalse(screen.contains("conflict"), screen)
        }
        XCTAssertTrue(AppHarness.eventually("the file holds the line and every word, once each", timeout: 20) {
            let file = self.noteOnDisk
            return Self.count("From the shell", in: file) == 1 && (words + ["after"]).allSatisfy { Self.count($0, in: file) == 1 }
        }, "the file:\n\(noteOnDisk)")
    }

    /// Issue 68 (8): Ctrl-Z in a live note undoes a typed word, as the editor does elsewhere;
    /// it undid one character a step.
    func testUndoInALiveNoteTakesBackATypedWord() throws {
        let (ann, ray) = try bothInTheNote()
        try ray.type("alpha bravo")
        ann.waitFor("ray's words on ann's screen") { $0.contains("alpha bravo") }
        try ray.press("C-z")
        ray.waitFor("the word undone on ray's screen") { $0.contains("alpha") && !$0.contains("bravo") && !$0.contains("brav") }
        ann.waitFor("the word undone on ann's screen") { $0.contains("alpha") && !$0.contains("brav") }
        try ray.press("C-z")
        ann.waitFor("the first word undone too") { !$0.contains("alpha") && $0.contains("Agenda:") }
    }

    /// Issue 68 (6): once the writer's revision holds ray's whole text, ray's draft of the note
    /// goes; it was kept, and the next start said "1 unsaved draft kept from last time" for a note
    /// whose whole text the club held.
    func testADraftTheWritersRevisionHoldsIsNotKeptAsUnsaved() throws {
        let (ann, ray, words) = try bothTyping(rounds: 0..<3)
        XCTAssertTrue(AppHarness.eventually("ray's draft written") { self.draftHolds("ray", "ray2") })
        XCTAssertTrue(AppHarness.eventually("the file holds every word", timeout: 20) { words.allSatisfy { self.noteOnDisk.contains($0) } })
        XCTAssertTrue(AppHarness.eventually("ray's draft gone", timeout: 20) { !self.draftHolds("ray", "ray2") }, "ray's draft kept")
        ray.waitFor("ray's note saved") { !$0.contains("[+]") }

        // Started again, ray's app has nothing unsaved to speak of.
        try killMinusNine("ray")
        let again = try XCTUnwrap(apps["ray"]).launch(["--server", "http://127.0.0.1:\(server?.port ?? 0)", "--token", "live-ray-token"], jobControl: false)
        let screen = again.waitFor("the notes list") { AppHarness.listed("Minutes", in: $0) && !$0.contains("e2e>") }
        XCTAssertFalse(screen.contains("unsaved draft"), screen)
        XCTAssertFalse(screen.contains("✎"), screen)
    }

    /// Whether the status bar on `screen` says exactly `members` are in the note ("Live: ann,
    /// ray"), in any order: the room lists members as they joined, and under load the second
    /// app to open the note can join first.
    static func live(_ screen: String, _ members: [String]) -> Bool {
        screen.split(separator: "\n").contains { line in
            guard let range = line.range(of: "Live: ") else { return false }
            let named = line[range.upperBound...].split(separator: " ").prefix { $0 != "F1" }.joined(separator: " ")
            return Set(named.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }) == Set(members)
        }
    }

    /// How many times `word` is in `text`.
    static func count(_ word: String, in text: String) -> Int {
        text.components(separatedBy: word).count - 1
    }

    /// Whether a member's drafts folder holds a draft with `word`.
    /// Whether one of `member`'s drafts holds `word`, read as the app reads a draft: a draft
    /// written while its note is live has its text in the note's live journal (beside the
    /// drafts, with the `.base` the file held), not in its own file.
    func draftHolds(_ member: String, _ word: String) -> Bool {
        guard let base = apps[member]?.base else { return false }
        return AppHarness.draftTexts(under: base).contains { $0.contains(word) }
    }
}
