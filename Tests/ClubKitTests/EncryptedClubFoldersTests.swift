import ClubKit
import Foundation
import XCTest

/// Issue 53 §4: `members remove NAME --root DIR`, on the server's machine where no member's keys
/// are, must know whether the served folder holds an encrypted club (then it refuses and names
/// `members revoke` rather than leave NAME the keys).
final class EncryptedClubFoldersTests: XCTestCase {
    /// `members remove --root DIR` finds the served folder's encrypted club on disk.
    func testAnEncryptedClubIsFoundInAServedFolder() throws {
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("served-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: root) }
        try FileManager.default.createDirectory(at: root.appendingPathComponent("byteclub/notes"), withIntermediateDirectories: true)
        try FileManager.default.createDirectory(at: root.appendingPathComponent(".byteclub"), withIntermediateDirectories: true)
        XCTAssertEqual(ClubKeyFiles.encryptedClubs(servedFrom: root), [])
        try FileManager.default.createDirectory(at: root.appendingPathComponent("byteclub/.clubkeys"), withIntermediateDirectories: true)
        try Data("{}".utf8).write(to: root.appendingPathComponent("byteclub/.clubkeys/club.json"))
        try FileManager.default.createDirectory(at: root.appendingPathComponent("teams/b/.clubkeys"), withIntermediateDirectories: true)
        try Data("{}".utf8).write(to: root.appendingPathComponent("teams/b/.clubkeys/club.json"))
        XCTAssertEqual(ClubKeyFiles.encryptedClubs(servedFrom: root), ["/byteclub", "/teams/b"])
    }
}
