import Foundation
import TestSupport
import XCTest

/// Journey: a plain club made encrypted where it is. `init --encrypted` is killed (SIGKILL)
/// half-way; run again, it finishes; every note reads as before and none is left in plain.
final class EncryptInPlaceJourneyTests: XCTestCase {
    private var club: JourneyClub?

    override func tearDown() {
        club?.close()
        club = nil
    }

    func testAClubEncryptedInPlaceSurvivesAKillHalfWayAndIsFinishedByTheNextRun() throws {
        let count = 400
        var seeded: [String: String] = [:]
        for index in 0..<count { seeded["Folder \(index % 7)/Note \(index).md"] = "Note number \(index), the word quayside\n" }
        let club = try JourneyClub(notes: seeded)
        self.club = club
        let ann = try club.invite("ann")

        let plainNotes = { () -> [URL] in
            club.everyServedFile().filter { $0.path.hasPrefix(club.notes.path + "/") && $0.lastPathComponent.hasPrefix("Note ") }
        }
        XCTAssertEqual(plainNotes().count, count)
        let first = try ann.start(["init", "--encrypted"])
        // Killed once some notes are encrypted and others not yet.
        AppHarness.eventually("a quarter of the notes encrypted", timeout: 60) { plainNotes().count <= count * 3 / 4 }
        kill(first.process.processIdentifier, SIGKILL)
        _ = first.finish(kill: false)
        let left = plainNotes().count
        XCTAssertGreaterThan(left, 0, "the kill came after the last note")
        XCTAssertLessThan(left, count)

        let second = try Journey.run(ann, ["init", "--encrypted"])
        XCTAssertEqual(second.status, 0, second.stderr)
        XCTAssertTrue(second.stderr.contains("This club is encrypted already: finishing what is left to encrypt"), second.stderr)
        XCTAssertTrue(second.stdout.contains("Encrypted club: \(left) files encrypted"), second.stdout)
        XCTAssertEqual(plainNotes().count, 0)
        XCTAssertEqual(club.sealedFiles().count, count, "one sealed file per note, none twice")
        for folder in try FileManager.default.contentsOfDirectory(atPath: club.notes.path) {
            XCTAssertFalse(folder.hasPrefix("Folder "), "the plain folder \(folder) is left")
        }

        // Every note reads as it did, by its own name.
        let copy = ann.base.appendingPathComponent("copy")
        let fetched = try Journey.run(ann, ["get", "-r", "/byteclub", copy.path])
        XCTAssertEqual(fetched.status, 0, fetched.stderr)
        let files = FileManager.default.enumerator(at: copy, includingPropertiesForKeys: nil)?.compactMap { $0 as? URL } ?? []
        for (path, text) in seeded {
            let found = files.first { $0.path.hasSuffix("/" + path) }
            XCTAssertEqual(found.flatMap(AppHarness.text), text, path)
        }
    }
}

/// A member's identity locked with a passphrase: made so when BYTECLUB_PASSPHRASE is set, opened
/// with it, and a wrong one refused with a clear line and nothing touched.
final class PassphraseIdentityJourneyTests: XCTestCase {
    private var club: JourneyClub?

    override func tearDown() {
        club?.close()
        club = nil
    }

    func testALockedIdentityOpensWithItsPassphraseOnly() throws {
        let club = try JourneyClub(notes: ["Log.md": "Wind from the west\n"])
        self.club = club
        let ann = try club.invite("ann")
        func run(_ arguments: [String], passphrase: String) throws -> ChildProcess.Result {
            var environment = ann.environment
            environment["BYTECLUB_PASSPHRASE"] = passphrase
            return try ChildProcess.run([try AppHarness.binary.path] + arguments, within: 120, environment: environment)
        }
        let made = try run(["init", "--encrypted"], passphrase: "long harbour walk")
        XCTAssertEqual(made.status, 0, made.stderr)
        let folder = ann.base.appendingPathComponent("config/byteclub")
        XCTAssertFalse(FileManager.default.fileExists(atPath: folder.appendingPathComponent("identity.txt").path))
        let locked = try Data(contentsOf: folder.appendingPathComponent("identity.age"))
        XCTAssertTrue(String(decoding: locked.prefix(60), as: UTF8.self).contains("-> scrypt "), "an age file locked with scrypt")
        XCTAssertNil(locked.range(of: Data("AGE-SECRET-KEY".utf8)))
        XCTAssertEqual(try FileManager.default.attributesOfItem(atPath: folder.appendingPathComponent("identity.age").path)[.posixPermissions] as? Int, 0o600)

        let wrong = try run(["get", "Log.md", "-"], passphrase: "short walk")
        XCTAssertNotEqual(wrong.status, 0)
        XCTAssertTrue(wrong.stderr.contains("Wrong passphrase for \(folder.appendingPathComponent("identity.age").path)"), wrong.stderr)
        XCTAssertEqual(wrong.stdout, "")
        XCTAssertEqual(try run(["get", "Log.md", "-"], passphrase: "long harbour walk").stdout, "Wind from the west\n")
    }
}
