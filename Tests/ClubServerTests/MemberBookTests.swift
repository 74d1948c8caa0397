@testable import ClubServer
import Foundation
import XCTest

/// The member book's rules (invites work once and expire, names, roles), the invite line, the
/// failed-token throttle and the registry file: values with no server and no clock.
final class MemberBookTests: XCTestCase {
    private let now = Date(timeIntervalSince1970: 1_800_000_000)

    /// Roles in a sentence ("ann is now an editor", the server's "… is a reader"): the article
    /// is the word's, not "an" for admin alone.
    func testARoleInASentenceTakesItsArticle() {
        XCTAssertEqual(MemberRole.reader.withArticle, "a reader")
        XCTAssertEqual(MemberRole.editor.withArticle, "an editor")
        XCTAssertEqual(MemberRole.admin.withArticle, "an admin")
    }

    func testAnInviteWorksOnceAndOnlyUntilItExpires() throws {
        var book = MemberBook()
        try book.invite("ann", role: .editor, secretHash: MemberBook.hash("s1"), expires: now.addingTimeInterval(3600))
        let ann = try book.redeem(secretHash: MemberBook.hash("s1"), tokenHash: MemberBook.hash("t1"), now: now)
        XCTAssertEqual(ann.name, "ann")
        XCTAssertEqual(ann.role, .editor)
        XCTAssertEqual(book.member(forTokenHash: MemberBook.hash("t1"))?.name, "ann")
        // Used once: the same secret again is refused, and makes nobody.
        XCTAssertThrowsError(try book.redeem(secretHash: MemberBook.hash("s1"), tokenHash: MemberBook.hash("t2"), now: now))
        XCTAssertNil(book.member(forTokenHash: MemberBook.hash("t2")))

        try book.invite("bob", role: .reader, secretHash: MemberBook.hash("s2"), expires: now.addingTimeInterval(60))
        XCTAssertThrowsError(try book.redeem(secretHash: MemberBook.hash("s2"), tokenHash: MemberBook.hash("t3"), now: now.addingTimeInterval(61)))
        XCTAssertTrue(book.invites.isEmpty, "an expired invite is dropped")
    }

    /// A removed member's tokens are remembered with their name (so the server can tell them
    /// they were removed, after a restart too: the book is the file); a token never given, or
    /// given again to a member invited back, is not "removed". A book from before has none.
    func testARemovedMembersTokensAreKnownAsTheirsAndKeptInTheFile() throws {
        var book = MemberBook()
        try book.invite("bob", role: .editor, secretHash: MemberBook.hash("s1"), expires: now.addingTimeInterval(3600))
        _ = try book.redeem(secretHash: MemberBook.hash("s1"), tokenHash: MemberBook.hash("t1"), now: now)
        XCTAssertNil(book.removedMember(forTokenHash: MemberBook.hash("t1")), "still a member")
        try book.remove("Bob")
        XCTAssertEqual(book.removedMember(forTokenHash: MemberBook.hash("t1")), "bob")
        XCTAssertNil(book.removedMember(forTokenHash: MemberBook.hash("never given")))
        XCTAssertNil(book.member(forTokenHash: MemberBook.hash("t1")))

        let decoded = try JSONDecoder().decode(MemberBook.self, from: try JSONEncoder().encode(book))
        XCTAssertEqual(decoded, book)
        XCTAssertEqual(decoded.removedMember(forTokenHash: MemberBook.hash("t1")), "bob")

        let old = try JSONDecoder().decode(MemberBook.self, from: Data(#"{"members":[],"invites":[],"former":["bob"]}"#.utf8))
        XCTAssertEqual(old.removedTokens, [:])
    }

    func testANewInviteReplacesTheOldOneAndMembersAreNotInvitedTwice() throws {
        var book = MemberBook()
        try book.invite("cy", role: .editor, secretHash: MemberBook.hash("old"), expires: now.addingTimeInterval(3600))
        try book.invite("Cy", role: .admin, secretHash: MemberBook.hash("new"), expires: now.addingTimeInterval(3600))
        XCTAssertThrowsError(try book.redeem(secretHash: MemberBook.hash("old"), tokenHash: "x", now: now))
        XCTAssertEqual(try book.redeem(secretHash: MemberBook.hash("new"), tokenHash: "y", now: now).role, .admin)
        XCTAssertThrowsError(try book.invite("cy", role: .reader, secretHash: "z", expires: now.addingTimeInterval(60)))
        for bad in ["", "  ", "club", "a\u{7}b", String(repeating: "x", count: 101)] {
            XCTAssertThrowsError(try book.invite(bad, role: .reader, secretHash: "s", expires: now), bad.debugDescription)
        }
        try book.setRole("CY", .reader)
        XCTAssertEqual(book.member(named: "cy")?.role, .reader)
        try book.remove("cy")
        XCTAssertNil(book.member(forTokenHash: "y"))
        XCTAssertThrowsError(try book.remove("cy"))
        XCTAssertThrowsError(try book.setRole("nobody", .admin))
    }

    func testTheInviteLineRoundTripsAndDamageIsRefused() throws {
        let pin = "sha256//" + Data(repeating: 7, count: 32).base64EncodedString()
        let invite = Invite(server: URL(string: "https://192.168.1.5:8421")!, secret: "abc_DEF-123", pin: pin)
        XCTAssertEqual(invite.text, "https://192.168.1.5:8421/join/abc_DEF-123#\(pin)")
        XCTAssertEqual(try Invite(parsing: "  " + invite.text + "\n"), invite)
        XCTAssertEqual(try Invite(parsing: "http://h:1/join/s").pin, nil)
        for bad in ["https://h:1/join/abc", "https://h:1/join/abc#sha256//short", "https://h:1/abc#\(pin)", "ftp://h/join/a#\(pin)",
                    "https://h:1/join/a b#\(pin)", "https://h:1/join/#\(pin)"] {
            XCTAssertThrowsError(try Invite(parsing: bad), bad)
        }
    }

    func testTheThrottleShutsAnAddressOutAfterTooManyFailuresAndDoublesEachTime() {
        var throttle = AuthThrottle()
        for second in 0..<10 { XCTAssertNil(throttle.failed("10.0.0.9", now: Double(second))) }
        XCTAssertEqual(throttle.gate("10.0.0.9", now: 10), .open)
        XCTAssertEqual(throttle.failed("10.0.0.9", now: 10), 60)
        XCTAssertEqual(throttle.gate("10.0.0.9", now: 11), .shut(retryAfter: 59))
        XCTAssertEqual(throttle.gate("10.0.0.8", now: 11), .open, "another address is not shut out")
        XCTAssertEqual(throttle.gate("10.0.0.9", now: 70), .open)
        for second in 70..<80 { _ = throttle.failed("10.0.0.9", now: Double(second)) }
        XCTAssertEqual(throttle.failed("10.0.0.9", now: 80), 120, "a second lockout lasts twice as long")
        // Failures spread out over more than a window never add up to a lockout.
        var patient = AuthThrottle()
        for minute in 0..<100 { XCTAssertNil(patient.failed("10.0.0.7", now: Double(minute) * 61)) }
    }

    func testTheRegistryKeepsOnlyHashesInAPrivateFileAndAuditsEachChange() throws {
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("registry-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: root) }
        let registry = MemberRegistry(root: root.path)
        let invite = try registry.invite("ann", role: .reader, hours: 1, server: URL(string: "https://h:1")!, pin: nil, actor: "local:test")
        let (token, member) = try registry.redeem(secret: invite.secret)
        XCTAssertEqual(member.role, .reader)
        try registry.setRole("ann", .editor, actor: "local:test")
        try registry.remove("ann", actor: "local:test")
        let text = try String(contentsOfFile: registry.file, encoding: .utf8)
        XCTAssertFalse(text.contains(token))
        XCTAssertFalse(text.contains(invite.secret))
        XCTAssertEqual(try FileManager.default.attributesOfItem(atPath: registry.file)[.posixPermissions] as? Int, 0o600)
        let audit = try String(contentsOfFile: registry.auditFile, encoding: .utf8).split(separator: "\n")
        XCTAssertEqual(audit.compactMap { line in line.range(of: #""action":"[a-z]+""#, options: .regularExpression).map { String(line[$0]) } },
                       [#""action":"invite""#, #""action":"join""#, #""action":"role""#, #""action":"remove""#])
        XCTAssertFalse(audit.joined().contains(token))
        // A damaged file is refused, not read as "no members".
        try Data("{not json".utf8).write(to: URL(fileURLWithPath: registry.file))
        XCTAssertThrowsError(try MemberRegistry(root: root.path).current())
    }
}
