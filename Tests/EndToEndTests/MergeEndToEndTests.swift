import Foundation
import TestSupport
import XCTest

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

    /// The bodies of `member`'s drafts on disk.
    private func draftTexts(of member: TwoMemberClub.Member) -> [String] {
        let folder = club.app(member).drafts
        let names = (try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? []
        return names.filter { $0.hasSuffix(".json") }.compactMap { name in
            guard let data = try? Data(contentsOf: folder.appendingPathComponent(name)),
                  let object = try? JSONSerialization.jsonObject(with: data) as? [String: Any] else { return nil }
            return object["body"] as? String
        }
    }
}
