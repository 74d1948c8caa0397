import Foundation
import TestSupport
import XCTest

/// Journey: a real vault (the Tasks plugin's sample, Tests/Fixtures/Tasks-Demo) in an encrypted
/// club (issue 55 on every backend). Ann imports it whole, the server's disk holds none of its
/// names or words, and her export gives it back byte for byte.
final class EncryptedVaultJourneyTests: XCTestCase {
    private var club: JourneyClub?

    override func tearDown() {
        club?.close()
        club = nil
    }

    func testARealVaultComesInWholeAndGoesBackByteForByte() throws {
        let club = try JourneyClub()
        self.club = club
        let ann = try club.invite("ann")
        let made = try Journey.run(ann, ["init", "--encrypted"])
        XCTAssertEqual(made.status, 0, made.stderr)
        let vault = RealVault.tree(RealVault.folder)

        let imported = try ann.cli(["import", RealVault.folder.path, "Tasks-Demo"], within: 300)
        XCTAssertEqual(imported.status, 0, "every file came: " + imported.stderr)
        XCTAssertTrue(imported.stderr.contains("\(vault.count) imported, 0 already in the club"), imported.stderr)

        // Sealed: no file of the server's names a note of the vault or holds a line of one.
        let note = try XCTUnwrap(vault.first { $0.key.hasSuffix(".md") && $0.value.count > 200 })
        let line = try XCTUnwrap(String(decoding: note.value, as: UTF8.self).components(separatedBy: "\n").first { $0.count > 30 })
        for served in club.everyServedFile() {
            XCTAssertFalse(served.path.contains("Tasks-Demo"), "\(served.path) names the vault")
            XCTAssertNil(try Data(contentsOf: served).range(of: Data(line.utf8)), "\(served.path) holds \"\(line)\"")
        }

        let alone = ann.base.appendingPathComponent("alone")
        let exported = try ann.cli(["export", "Tasks-Demo", alone.path], within: 300)
        XCTAssertEqual(exported.status, 0, exported.stderr)
        let back = RealVault.tree(alone, hidden: true)
        XCTAssertEqual(Set(back.keys), Set(vault.keys), "every file of the vault, and only those")
        for (path, data) in vault where back[path] != data { XCTFail("\(path) differs after the export from the encrypted club") }
    }
}
