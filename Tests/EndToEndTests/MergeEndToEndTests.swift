import Foundation
import TestSupport
import XCTest
#if canImport(Glibc)
import Glibc
#endif

/// Three-way merges between two members in real terminals: ray and ann, each in the app, on one
/// `byteclub serve` with two members (``TwoMemberClub``). Both edit Plans.txt; ray saves first,
/// then ann: edits of different lines merge without a word asked, edits of the same line open
/// the merge view, and each of its ways out leaves the expected file on the server.
final class MergeEndToEndTests: XCTestCase {
    static let base = "Day 1: Lyon\nDay 2: rest\nDay 3: home\n"
    var club: TwoMemberClub!

    override func setUpWithError() throws {
        club = try TwoMemberClub(notes: ["Plans.txt": Self.base])
    }

    override func tearDown() {
        club?.close()
    }

    private var plans: String? { club.text(ofNote: "Plans.txt") }

    /// Both apps started, each with Plans.txt open in the editor.
    private func bothEditing() throws -> (ray: TmuxSession, ann: TmuxSession) {
        let (ray, ann) = try club.launchBoth(waitingFor: "Plans")
        for tmux in [ray, ann] {
            try tmux.press("Enter")
            tmux.waitFor("Ctrl-S saves")
        }
        return (ray, ann)
    }

    /// Puts the cursor at the end of line `line` (from 1) and types `text` there.
    private func append(_ text: String, toLine line: Int, in tmux: TmuxSession) throws {
        for _ in 0..<8 { try tmux.press("Up") }
        for _ in 1..<line { try tmux.press("Down") }
        try tmux.press("C-e")
        try tmux.type(text)
    }

    /// Ray saves his edit, and the server has it.
    private func raySaves(_ ray: TmuxSession, expecting text: String) throws {
        try ray.press("C-s")
        AppHarness.eventually("ray's save on the server") { self.plans == text }
    }

    func testDifferentLinesMergeWithoutADialog() throws {
        let (ray, ann) = try bothEditing()
        try append(" (ann)", toLine: 3, in: ann)
        ann.waitFor("home (ann)")
        try append(" (ray)", toLine: 1, in: ray)
        ray.waitFor("Lyon (ray)")
        try raySaves(ray, expecting: "Day 1: Lyon (ray)\nDay 2: rest\nDay 3: home\n")

        try ann.press("C-s")
        // ann's editor shows the merge.
        let screen = ann.waitFor(all: ["Merged with ray's changes", "Lyon (ray)"])
        XCTAssertEqual(plans, "Day 1: Lyon (ray)\nDay 2: rest\nDay 3: home (ann)\n")
        XCTAssertFalse(screen.contains("Reload theirs"), "no dialog, no merge view:\n\(screen)")
    }

    func testTheSameLineOpensTheMergeViewAndMineTheirsBothSave() throws {
        let (ray, ann) = try bothEditing()
        var expected = Self.base
        // Each round: both add to line 2; ray saves, ann saves and chooses.
        let rounds: [(key: String, result: (_ mine: String, _ theirs: String) -> String)] = [
            ("m", { mine, _ in mine }),
            ("t", { _, theirs in theirs }),
            ("b", { mine, theirs in mine + "\n" + theirs }),
        ]
        for (round, (key, result)) in rounds.enumerated() {
            let line2 = expected.split(separator: "\n")[1]
            let rays = "\(line2) r\(round)", anns = "\(line2) a\(round)"
            try append(" r\(round)", toLine: 2, in: ray)
            ray.waitFor(rays)
            try append(" a\(round)", toLine: 2, in: ann)
            ann.waitFor(anns)
            try raySaves(ray, expecting: expected.replacingOccurrences(of: line2 + "\n", with: rays + "\n"))

            try ann.press("C-s")
            // The merge view, with both sides of the one conflict and the keys that choose.
            ann.waitFor(all: ["Merging with ray's changes", "Conflict 1 of 1", "< \(anns)", "> \(rays)", "m mine · t theirs · b both"])
            try ann.type(key)
            expected = expected.replacingOccurrences(of: line2 + "\n", with: result(anns, rays) + "\n")
            AppHarness.eventually("the merge on the server (\(key))") { self.plans == expected }
            ann.waitFor("the merge view closed") { !$0.contains("Merging with ray's changes") }
            // Ray's app, with nothing unsaved, reloads what ann saved (a choice of his text saves nothing new).
            ray.waitFor("merged text in ray's editor") { screen in
                expected.split(separator: "\n").allSatisfy { screen.contains($0) }
            }
        }
        XCTAssertEqual(plans, "Day 1: Lyon\nDay 2: rest a0 r1 a2\nDay 2: rest a0 r1 r2\nDay 3: home\n")
    }

    func testTheMergeViewsOverwriteReloadAndCopy() throws {
        let (ray, ann) = try bothEditing()

        // Overwrite: ann's text over ray's.
        try append(" r1", toLine: 2, in: ray)
        ray.waitFor("rest r1")
        try append(" a1", toLine: 2, in: ann)
        ann.waitFor("rest a1")
        try raySaves(ray, expecting: "Day 1: Lyon\nDay 2: rest r1\nDay 3: home\n")
        try ann.press("C-s")
        ann.waitFor("Merging with ray's changes")
        try ann.type("o")
        AppHarness.eventually("ann's text over ray's") { self.plans == "Day 1: Lyon\nDay 2: rest a1\nDay 3: home\n" }
        ann.waitFor("Saved \"Plans.txt\"")

        // Reload theirs: ray's text in ann's editor, hers kept as a draft.
        ray.waitFor("ray's app reloads") { $0.contains("rest a1") && !$0.contains("rest r1") }
        try append(" r2", toLine: 2, in: ray)
        ray.waitFor("rest a1 r2")
        try append(" a2", toLine: 2, in: ann)
        ann.waitFor("rest a1 a2")
        try raySaves(ray, expecting: "Day 1: Lyon\nDay 2: rest a1 r2\nDay 3: home\n")
        try ann.press("C-s")
        ann.waitFor("Merging with ray's changes")
        try ann.type("r")
        ann.waitFor("Reloading theirs; your text is the draft \"Plans (my version)\"")
        ann.waitFor("rest a1 r2")
        XCTAssertEqual(plans, "Day 1: Lyon\nDay 2: rest a1 r2\nDay 3: home\n")
        AppHarness.eventually("ann's text as a draft") {
            self.draftTexts(of: .ann).contains { $0.contains("rest a1 a2") }
        }

        // Save as copy: ann's text beside ray's.
        try append(" a3", toLine: 2, in: ann)
        ann.waitFor("rest a1 r2 a3")
        try append(" r3", toLine: 2, in: ray)
        ray.waitFor("rest a1 r2 r3")
        try raySaves(ray, expecting: "Day 1: Lyon\nDay 2: rest a1 r2 r3\nDay 3: home\n")
        try ann.press("C-s")
        ann.waitFor("Merging with ray's changes")
        try ann.type("s")
        ann.waitFor("(conflicted copy of")
        AppHarness.eventually("the copy on the server") {
            let names = (try? FileManager.default.contentsOfDirectory(atPath: self.club.notesFolder.path)) ?? []
            return names.contains { $0.hasPrefix("Plans (conflicted copy of") && self.club.text(ofNote: $0) == "Day 1: Lyon\nDay 2: rest a1 r2 a3\nDay 3: home\n" }
        }
        XCTAssertEqual(plans, "Day 1: Lyon\nDay 2: rest a1 r2 r3\nDay 3: home\n", "theirs untouched")
    }

    /// Issue 68, item 3: a line typed in the app and left unsaved; `byteclub edit` of the same
    /// note resumes that text from the app's draft and adds a line; Ctrl-S in the app. The
    /// shell's revision was written on the app's draft, and so was the app's text: merged from
    /// the rev the app opened instead, the app's own line was an insertion on both sides and the
    /// merge asked about the shell's line ("yours: (deleted)"; `m` deleted it). Now both lines
    /// are kept with no question, and nothing is uploaded again (the shell's revision holds it all).
    func testALineLeftUnsavedThenEditFromTheShellKeepsBothWithNoConflict() throws {
        try lineLeftUnsavedThenEditFromTheShell(live: false)
    }

    /// The same with the live channel on (the app's default): alone in the note, as the issue
    /// tried it.
    func testALineLeftUnsavedInALiveNoteThenEditFromTheShellKeepsBoth() throws {
        try lineLeftUnsavedThenEditFromTheShell(live: true)
    }

    private func lineLeftUnsavedThenEditFromTheShell(live: Bool) throws {
        let ann = try club.launch(.ann, live: live)
        ann.waitFor("Plans")
        try ann.press("Enter")
        ann.waitFor("Ctrl-S saves")
        try ann.press("C-End")
        try ann.type("Day 4: app")
        ann.waitFor("Day 4: app")
        let typed = Self.base + "Day 4: app"
        AppHarness.eventually("ann's typing in her draft on disk") { self.draftTexts(of: .ann).contains(typed) }

        // The shell: `edit` resumes the app's text, and the editor adds a line.
        let editor = club.base.appendingPathComponent("add-a-line.sh")
        try Data("#!/bin/sh\nprintf 'Day 5: shell\\n' >> \"$1\"\n".utf8).write(to: editor)
        chmod(editor.path, 0o755)
        let edit = try ChildProcess.run([try AppHarness.binary.path, "edit", "Plans", "--server", club.url, "--token", club.token(of: .ann)],
                                        within: 60, environment: club.ann.environment.merging(["EDITOR": editor.path]) { _, new in new })
        guard edit.status == 0 else { throw CouldNotCheck("byteclub edit ended with \(edit.status): \(edit.stderr)") }
        XCTAssertTrue(edit.stderr.contains("resuming your unsaved edit of \"Plans\""), edit.stderr)
        let both = typed + "\nDay 5: shell"
        XCTAssertEqual(plans, both, "the shell saved the app's line and its own")
        let shellsRevisions = try revisions(of: .ann)

        try ann.press("C-s")
        let screen = ann.waitFor(all: ["Merged with", "Day 5: shell"])
        XCTAssertFalse(screen.contains("conflict"), "no question about a line nobody deleted:\n\(screen)")
        XCTAssertFalse(screen.contains("[+]"), "saved:\n\(screen)")
        XCTAssertEqual(plans, both)
        XCTAssertEqual(try revisions(of: .ann), shellsRevisions, "the shell's revision holds everything: no second one")
    }

    /// Issue 68, item 4: a merge whose choices come to their text (theirs chosen) saved it again,
    /// a second revision identical to theirs, and `log` listed both. Now the editor takes their
    /// revision with nothing uploaded, and each revision is listed once.
    func testAMergeThatComesToTheirTextWritesNoSecondRevision() throws {
        let (ray, ann) = try bothEditing()
        try append(" r", toLine: 2, in: ray)
        ray.waitFor("rest r")
        try append(" a", toLine: 2, in: ann)
        ann.waitFor("rest a")
        let theirs = "Day 1: Lyon\nDay 2: rest r\nDay 3: home\n"
        try raySaves(ray, expecting: theirs)
        let before = try revisions(of: .ann)

        try ann.press("C-s")
        ann.waitFor(all: ["Merging with ray's changes", "Conflict 1 of 1"])
        try ann.type("t")
        ann.waitFor("Merged with ray's changes")
        let screen = ann.waitFor("the merge view closed") { !$0.contains("Merging with ray's changes") }
        XCTAssertFalse(screen.contains("[+]"), "their text is the note's, saved:\n\(screen)")
        XCTAssertEqual(plans, theirs)
        let after = try revisions(of: .ann)
        XCTAssertEqual(after, before, "their revision, once; not written again")
        XCTAssertEqual(Set(after.map(\.rev)).count, after.count, "each rev listed once: \(after)")
    }

    /// `byteclub log Plans --json` as `member`: each revision's rev and who made it.
    private func revisions(of member: TwoMemberClub.Member) throws -> [Revision] {
        let log = try club.app(member).cli(["log", "Plans", "--json", "--server", club.url, "--token", club.token(of: member)])
        guard log.status == 0, let rows = try? JSONSerialization.jsonObject(with: Data(log.stdout.utf8)) as? [[String: Any]] else {
            throw CouldNotCheck("byteclub log ended with \(log.status): \(log.stderr)\(log.stdout)")
        }
        return rows.map { Revision(rev: $0["rev"] as? String ?? "", by: $0["modified_by"] as? String, size: $0["size"] as? Int ?? -1) }
    }

    struct Revision: Equatable {
        var rev: String
        var by: String?
        var size: Int
    }

    /// The bodies of `member`'s drafts on disk.
    private func draftTexts(of member: TwoMemberClub.Member) -> [String] {
        AppHarness.draftTexts(in: club.app(member).drafts)
    }
}
