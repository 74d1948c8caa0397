import Foundation
import TestSupport
import XCTest

/// Journey: two members typing together in one note of an encrypted club, over the club
/// server's HTTPS (their pinned key). Every update is sealed with the club key and signed by its
/// member: the screens converge, the file is written, and a grep of the server's disk and of its
/// log for the typed words finds nothing, though its live log holds every update.
final class LiveEncryptedJourneyTests: XCTestCase {
    private var club: JourneyClub?
    private var log: URL?

    override func tearDown() {
        club?.close()
        club = nil
        if let log { try? FileManager.default.removeItem(at: log) }
    }

    func testTwoMembersTypeTogetherInAnEncryptedClubAndTheServerHoldsNoWordOfIt() throws {
        let log = FileManager.default.temporaryDirectory.appendingPathComponent("byteclub-live-encrypted-\(UUID().uuidString).log")
        self.log = log
        let club = try JourneyClub(log: log)
        self.club = club
        let ann = try club.invite("ann")
        let bob = try club.invite("bob")
        XCTAssertEqual(try Journey.run(ann, ["init", "--encrypted"]).status, 0)
        XCTAssertNotEqual(try bob.cli(["ls"]).status, 0, "bob asks to join")
        XCTAssertEqual(try Journey.run(ann, ["members", "admit", "bob"]).status, 0, "ann admits bob")
        XCTAssertEqual(try ann.cli(["put", "-", "Minutes.md"], input: "Agenda\n").status, 0)

        var screens: [(String, TmuxSession)] = []
        for (name, member) in [("ann", ann), ("bob", bob)] {
            let screen = try member.launch([])
            Journey.see(screen, ["Minutes"], "\(name)'s notes list")
            try screen.type("/Minutes")
            try screen.press("Enter")
            try screen.press("Enter")
            Journey.see(screen, ["Agenda", "Title: Minutes"], "\(name)'s editor")
            try screen.press("C-End")
            screens.append((name, screen))
        }
        for (name, screen) in screens { screen.waitFor("both in the note on \(name)'s screen") { $0.contains("Live: ann, bob") || $0.contains("Live: bob, ann") } }

        var words: [String] = []
        for round in 0..<5 {
            for (name, screen) in screens {
                let word = "\(name)secretword\(round)"
                try screen.type(word + " ")
                words.append(word)
            }
        }
        for (name, screen) in screens {
            screen.waitFor("every word on \(name)'s screen") { shown in words.allSatisfy { shown.contains($0) } }
        }
        let annText = { (try? ann.cli(["get", "Minutes.md", "-"]).stdout) ?? "" }
        XCTAssertTrue(AppHarness.eventually("the note written with every word", timeout: 20) { words.allSatisfy { annText().contains($0) } })
        // Each sees the other's name by their cursor: sealed cursors, opened on arrival.
        for (_, screen) in screens { try screen.press("End") }
        screens[0].1.waitFor("bob's name tag on ann's screen") { $0.contains("◂ bob") }
        screens[1].1.waitFor("ann's name tag on bob's screen") { $0.contains("◂ ann") }
        // ann wrote the file (she came first), and the revision names bob with her.
        let history = try ann.cli(["log", "Minutes.md"])
        XCTAssertTrue(history.stdout.contains("with bob"), history.stdout + history.stderr)

        // The server's disk and log: ciphertext only, though the live log holds the updates.
        let live = club.root.appendingPathComponent(".byteclub/live")
        let logs = (try? FileManager.default.contentsOfDirectory(at: live, includingPropertiesForKeys: [.fileSizeKey])) ?? []
        XCTAssertFalse(logs.isEmpty, "the server keeps the note's live log")
        XCTAssertGreaterThan(logs.compactMap { try? $0.resourceValues(forKeys: [.fileSizeKey]).fileSize }.reduce(0, +), 1000)
        for word in words + ["secretword"] {
            let grep = try ChildProcess.run(["grep", "-r", "-a", "-l", word, club.root.path, log.path])
            XCTAssertEqual(grep.stdout, "", "\(word) found on the server's side")
        }
    }
}
