import ClubCrypt
import Foundation
import TestSupport
import XCTest

/// Journey: an encrypted club (issue 47). Ann makes the club encrypted; bob asks to join and
/// she admits him after comparing fingerprints; the server's disk then holds no note's words,
/// no name, no JPEG; Debian's `age` reads a note with ann's identity, and a note bob wrote with
/// `age -r` reads in the club; a server that swaps two notes or serves an older one is refused
/// with a message; bob removed, the next note is beyond his keys, and a later write of his is
/// refused while the note's last good version still reads.
final class EncryptedClubJourneyTests: XCTestCase {
    private var club: JourneyClub?

    override func tearDown() {
        club?.close()
        club = nil
    }

    func testAnEncryptedClubFromJoiningToTamperingToRemoval() throws {
        let club = try JourneyClub()
        self.club = club
        let ann = try club.invite("ann")
        let bob = try club.invite("bob")

        // Ann makes the (empty) club encrypted: her identity is made, her fingerprint shown.
        let made = try Journey.run(ann, ["init", "--encrypted"])
        XCTAssertEqual(made.status, 0, made.stderr)
        XCTAssertTrue(made.stdout.contains("Encrypted club: 0 files encrypted; you are ann, fingerprint "), made.stdout)
        let identity = ann.base.appendingPathComponent("config/byteclub/identity.txt")
        XCTAssertEqual(try FileManager.default.attributesOfItem(atPath: identity.path)[.posixPermissions] as? Int, 0o600)

        // Bob is not a member yet: he is told so, with the fingerprint ann will see.
        let refused = try Journey.run(bob, ["ls"])
        XCTAssertNotEqual(refused.status, 0)
        let asked = try XCTUnwrap(refused.stderr.range(of: #"asked to join as bob \(fingerprint [0-9a-f ]{19}\)"#, options: .regularExpression),
                                  refused.stderr)
        let fingerprint = String(refused.stderr[asked].dropFirst("asked to join as bob (fingerprint ".count).dropLast())
        let waiting = try Journey.run(ann, ["members", "admit"])
        XCTAssertEqual(waiting.stdout, "bob wants to join (fingerprint \(fingerprint))\n", waiting.stderr)
        let admitted = try Journey.run(ann, ["members", "admit", "bob"])
        XCTAssertEqual(admitted.stdout, "Admitted bob (fingerprint \(fingerprint))\n", admitted.stderr)

        // Both write: notes, a folder, a photo.
        let photo = try Data(contentsOf: URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("Resources/SampleClub/byteclub/photos/coast-noon.jpg"))
        let photoFile = ann.base.appendingPathComponent("harbour.jpg")
        try photo.write(to: photoFile)
        for (member, arguments, input) in [(ann, ["put", "-", "Meeting.md"], "Agenda\n- budget\n"),
                                           (ann, ["put", "-", "Plans/Regatta.md"], "Regatta route past the lighthouse\n"),
                                           (bob, ["put", "-", "Bob.md"], "Bob keeps the mooring lines\n"),
                                           (ann, ["put", photoFile.path, "photos/harbour.jpg"], nil)] {
            let put = try member.cli(arguments, input: input)
            XCTAssertEqual(put.status, 0, "\(arguments): \(put.stderr)")
        }
        // A transfer handed to the background agent is sealed as the command's own would be.
        let handed = ann.base.appendingPathComponent("anchor.md")
        try Data("The anchor chain is rusty\n".utf8).write(to: handed)
        XCTAssertEqual(try ann.cli(["put", "--agent", handed.path, "Anchor.md"]).status, 0)
        let waited = try ann.cli(["transfers", "--wait"])
        XCTAssertEqual(waited.status, 0, waited.stdout + waited.stderr)
        XCTAssertEqual(try Journey.run(bob, ["get", "Anchor.md", "-"]).stdout, "The anchor chain is rusty\n")
        let listed = try Journey.run(bob, ["ls", "Plans"])
        XCTAssertTrue(listed.stdout.contains("Regatta.md"), listed.stdout + listed.stderr)
        XCTAssertEqual(try Journey.run(bob, ["get", "Meeting.md", "-"]).stdout, "Agenda\n- budget\n")

        // The server's disk, its state and history included: no word, no name, no JPEG.
        let jpegStart = Data([0xFF, 0xD8, 0xFF])
        let exposed = ["Agenda", "budget", "Meeting", "Regatta", "lighthouse", "Plans", "mooring", "harbour", "anchor chain", "Anchor"]
        for file in club.everyServedFile() {
            let bytes = try Data(contentsOf: file)
            for word in exposed { XCTAssertNil(bytes.range(of: Data(word.utf8)), "\(file.path) holds \"\(word)\"") }
            // A JPEG kept plain starts with its marker; three random bytes of a sealed file may
            // be FF D8 FF anywhere else (about one 200 KB file in eighty).
            XCTAssertFalse(bytes.starts(with: jpegStart), "\(file.path) is a JPEG")
            XCTAssertNil(bytes.range(of: photo.subdata(in: 1000..<1064)), "\(file.path) holds the photo's bytes")
        }

        // Debian's age opens what byteclub wrote, with ann's identity and the recipe's two steps.
        let keys = try club.clubKeys(of: ann)
        let meeting = try XCTUnwrap(try club.sealedFile(holding: "Agenda\n- budget\n", keys: keys), "age -d -i opens the note ann wrote")

        // The photo's grid thumbnail was made by ann as she uploaded it, and sealed: it opens to
        // a small JPEG, which the server never saw.
        let thumbnails = try FileManager.default.contentsOfDirectory(at: club.notes.appendingPathComponent(".clubkeys/thumbnails"), includingPropertiesForKeys: nil)
        XCTAssertEqual(thumbnails.count, 1, "\(thumbnails)")
        let thumbnail = ann.base.appendingPathComponent("thumbnail.jpg")
        XCTAssertEqual(try ChildProcess.run(["age", "-d", "-i", keys.path, "-o", thumbnail.path, try XCTUnwrap(thumbnails.first).path]).status, 0)
        let small = try Data(contentsOf: thumbnail)
        XCTAssertEqual(small.prefix(3), jpegStart)
        XCTAssertLessThan(small.count, photo.count / 4)
        XCTAssertTrue(String(decoding: try Data(contentsOf: meeting).prefix(22), as: UTF8.self).hasPrefix("age-encryption.org/v1"))

        // And byteclub reads what age wrote: bob encrypts to the club's recipient and puts it.
        let recipientLine = try XCTUnwrap(try Journey.run(bob, ["members", "keys"]).stdout.split(separator: "\n").first { $0.hasPrefix("recipient\t") })
        let plain = bob.base.appendingPathComponent("tide.txt")
        try Data("High tide at six\n".utf8).write(to: plain)
        let sealed = bob.base.appendingPathComponent("tide.age")
        XCTAssertEqual(try ChildProcess.run(["age", "-r", String(recipientLine.dropFirst("recipient\t".count)), "-o", sealed.path, plain.path]).status, 0)
        XCTAssertEqual(try bob.cli(["put", sealed.path, "Tide.md"]).status, 0)
        XCTAssertEqual(try Journey.run(ann, ["get", "Tide.md", "-"]).stdout, "High tide at six\n")
        let tide = try XCTUnwrap(try club.sealedFile(holding: "High tide at six\n", keys: keys))
        XCTAssertTrue(try Data(contentsOf: tide).range(of: Data(try Data(contentsOf: sealed).suffix(40))) != nil, "the payload age wrote is kept as it was")

        // A share link publishes a decrypted copy: refused until asked for by name, then the
        // link serves the note's text to anyone, no token.
        let unasked = try Journey.run(ann, ["share", "Plans/Regatta.md"])
        XCTAssertEqual(unasked.status, 64, unasked.stderr)
        XCTAssertTrue(unasked.stderr.contains("is in an encrypted club: a link publishes a decrypted copy"), unasked.stderr)
        let shared = try Journey.run(ann, ["share", "Plans/Regatta.md", "--decrypted"])
        XCTAssertEqual(shared.status, 0, shared.stderr)
        let link = shared.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        XCTAssertEqual(try ChildProcess.run(["curl", "-sS", "-k", "--fail", link]).stdout, "Regatta route past the lighthouse\n")
        XCTAssertEqual(try Journey.run(ann, ["unshare", link]).status, 0)
        XCTAssertNotEqual(try ChildProcess.run(["curl", "-sS", "-k", "--fail", link]).status, 0, "the link ends with unshare")
        XCTAssertFalse(club.everyServedFile().contains { $0.path.contains("/.clubkeys/shared/") && $0.lastPathComponent == "Regatta.md" },
                       "the decrypted copy goes with its link")

        // The server swaps two notes' files: each is refused, naming the file and what happened.
        let bobsNote = try XCTUnwrap(try club.sealedFile(holding: "Bob keeps the mooring lines\n", keys: keys))
        let meetingBytes = try Data(contentsOf: meeting), bobBytes = try Data(contentsOf: bobsNote)
        try club.overwrite(meeting, with: bobBytes, as: ann)
        try club.overwrite(bobsNote, with: meetingBytes, as: ann)
        for note in ["Meeting.md", "Bob.md"] {
            let swapped = try Journey.run(ann, ["get", note, "-"])
            XCTAssertNotEqual(swapped.status, 0, note)
            XCTAssertTrue(swapped.stderr.contains("Refused /byteclub/\(note): its signature is for another file: the server swapped or moved it"), swapped.stderr)
            XCTAssertTrue(swapped.stdout.isEmpty, swapped.stdout)
        }
        try club.overwrite(meeting, with: meetingBytes, as: ann)
        try club.overwrite(bobsNote, with: bobBytes, as: ann)
        XCTAssertEqual(try Journey.run(ann, ["get", "Meeting.md", "-"]).stdout, "Agenda\n- budget\n", "put back, it reads again")

        // Ann saves a new version; the server serves the older one again: refused as a rollback.
        XCTAssertEqual(try ann.cli(["put", "-", "Meeting.md", "--mode", "overwrite"], input: "Agenda\n- budget\n- sails\n").status, 0)
        XCTAssertEqual(try Journey.run(ann, ["get", "Meeting.md", "-"]).stdout, "Agenda\n- budget\n- sails\n")
        try club.overwrite(meeting, with: meetingBytes, as: ann)
        let rolledBack = try Journey.run(ann, ["get", "Meeting.md", "-"])
        XCTAssertNotEqual(rolledBack.status, 0)
        XCTAssertTrue(rolledBack.stderr.contains("Refused /byteclub/Meeting.md: the server served version"), rolledBack.stderr)
        XCTAssertTrue(rolledBack.stderr.contains("a rollback"), rolledBack.stderr)
        // The rest of the club still works, and ann's next save mends the note.
        XCTAssertEqual(try Journey.run(ann, ["get", "Plans/Regatta.md", "-"]).stdout, "Regatta route past the lighthouse\n")
        XCTAssertEqual(try ann.cli(["put", "-", "Meeting.md", "--mode", "overwrite"], input: "Agenda\n- budget\n- sails\n").status, 0)
        XCTAssertEqual(try Journey.run(ann, ["get", "Meeting.md", "-"]).stdout, "Agenda\n- budget\n- sails\n")

        // Bob is removed. The next note is sealed to a new club key his keys cannot open.
        let bobKeys = try club.clubKeys(of: bob)
        let removed = try Journey.run(ann, ["members", "revoke", "bob"])
        XCTAssertEqual(removed.status, 0, removed.stderr)
        XCTAssertTrue(removed.stdout.contains("Removed bob: files written from now on use club key generation 2"), removed.stdout)
        XCTAssertEqual(try ann.cli(["put", "-", "After.md"], input: "Only for the crew that stays\n").status, 0)
        let newKeys = try club.clubKeys(of: ann)
        let after = try XCTUnwrap(try club.sealedFile(holding: "Only for the crew that stays\n", keys: newKeys))
        XCTAssertNil(try JourneyClub.ageOpen(after, keys: bobKeys), "bob's keys open the note written after his removal")
        XCTAssertTrue(try Journey.run(bob, ["ls"]).stderr.contains("You (bob) were removed from this encrypted club"))

        // A write of bob's after his removal (his own client, keys kept): refused, by name.
        let bobIdentity = try String(contentsOf: bob.base.appendingPathComponent("config/byteclub/identity.txt"), encoding: .utf8)
        let bobMember = MemberKeys(identity: try X25519Identity(String(try XCTUnwrap(bobIdentity.split(separator: "\n").first { $0.hasPrefix("AGE-SECRET-KEY-1") }))))
        let oldClub = try X25519Identity(String(try XCTUnwrap(try String(contentsOf: bobKeys, encoding: .utf8).split(separator: "\n").first { $0.hasPrefix("AGE-SECRET-KEY-1") })))
        let text = Data("Bob was here after all\n".utf8)
        let signature = WriteSignature(signing: "/bob.md", version: UInt64(Date().timeIntervalSince1970 * 1000), contentHash: text.sha256, with: bobMember.signingKey)
        try club.overwrite(bobsNote, with: try Age.encrypt(text, to: [oldClub.recipient], extra: [signature.stanza]), as: ann)
        // It never hides the note from the members: ann reads its last good version, told why.
        let late = try Journey.run(ann, ["get", "Bob.md", "-"])
        XCTAssertEqual(late.status, 0, late.stderr)
        XCTAssertEqual(late.stdout, "Bob keeps the mooring lines\n")
        XCTAssertTrue(late.stderr.contains("Refused /byteclub/Bob.md: written by bob after they were removed from the club. Showing the last version that opens"),
                      late.stderr)

        // Rekey: every older file sealed anew to the present key, so bob's keys open none; bob's
        // refused write is replaced by the last good version, which then reads with no notice.
        let rekeyed = try Journey.run(ann, ["rekey"])
        XCTAssertEqual(rekeyed.status, 0, rekeyed.stderr)
        XCTAssertTrue(rekeyed.stdout.hasPrefix("Re-encrypted "), rekeyed.stdout)
        XCTAssertTrue(rekeyed.stderr.contains("Refused /byteclub/Bob.md"), rekeyed.stderr)
        for file in club.sealedFiles() { XCTAssertNil(try JourneyClub.ageOpen(file, keys: bobKeys), "\(file.path) still opens with bob's keys") }
        let mended = try Journey.run(ann, ["get", "Bob.md", "-"])
        XCTAssertEqual(mended.stdout, "Bob keeps the mooring lines\n")
        XCTAssertFalse(mended.stderr.contains("Refused"), mended.stderr)
        XCTAssertEqual(try Journey.run(ann, ["get", "Plans/Regatta.md", "-"]).stdout, "Regatta route past the lighthouse\n")
        XCTAssertEqual(try Journey.run(ann, ["rekey"]).stdout, "Re-encrypted 0 files; 7 already had the present key\n")
    }

    /// Admissions that ann did not see: bob admits carol, carol admits dave. Ann's next command
    /// takes the newest member list, signed by carol whom she never trusted, by checking each
    /// version between; an older list served again is refused as a rollback.
    func testAMemberWhoMissedAdmissionsChecksEachVersionBetween() throws {
        let club = try JourneyClub()
        self.club = club
        let ann = try club.invite("ann"), bob = try club.invite("bob"), carol = try club.invite("carol"), dave = try club.invite("dave")
        XCTAssertEqual(try Journey.run(ann, ["init", "--encrypted"]).status, 0)
        func join(_ member: AppHarness, _ name: String, admittedBy admitter: AppHarness) throws {
            XCTAssertNotEqual(try Journey.run(member, ["ls"]).status, 0, "\(name) asks")
            let admitted = try Journey.run(admitter, ["members", "admit", name])
            XCTAssertEqual(admitted.status, 0, admitted.stderr)
            XCTAssertEqual(try Journey.run(member, ["ls"]).status, 0, "\(name) is in")
        }
        try join(bob, "bob", admittedBy: ann)
        let second = try Data(contentsOf: club.notes.appendingPathComponent(".clubkeys/roster.age"))
        try join(carol, "carol", admittedBy: bob)
        try join(dave, "dave", admittedBy: carol)

        let keys = try Journey.run(ann, ["members", "keys"])
        XCTAssertEqual(keys.status, 0, keys.stderr)
        for name in ["ann", "bob", "carol", "dave"] { XCTAssertTrue(keys.stdout.contains(name + "\t"), keys.stdout) }
        XCTAssertEqual(try ann.cli(["put", "-", "Crew.md"], input: "Four of us now\n").status, 0)
        XCTAssertEqual(try Journey.run(dave, ["get", "Crew.md", "-"]).stdout, "Four of us now\n")

        // The server serves the list of two again: refused, the file and the rollback named.
        try club.overwrite(club.notes.appendingPathComponent(".clubkeys/roster.age"), with: second, as: ann)
        let rolled = try Journey.run(ann, ["ls"])
        XCTAssertNotEqual(rolled.status, 0)
        XCTAssertTrue(rolled.stderr.contains("roster.age: the server served version 2, older than version 4 seen before (a rollback)"), rolled.stderr)
    }
}
