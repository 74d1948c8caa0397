import ByteClubApp
import ClubServer
import Foundation
import Remote
import TerminalUI
import TestSupport
import XCTest

/// Tags and pins in the app against a real club server with two members: ann's list takes
/// ray's pin and tags with no key pressed (pinned first, marked, tags on the row), `/#tag`
/// filters, `*` and `#` change them on the server, and a bad name is refused in the dialog.
@MainActor
final class TagsAppTests: XCTestCase {
    var club: MembersClub?

    override func tearDown() async throws {
        await club?.close()
        club = nil
    }

    private func titles(_ harness: Harness) -> [String] {
        harness.app.noteItems.compactMap { if case .note(let entry, _) = $0 { entry.name } else { nil } }
    }

    func testAnotherMembersPinAndTagsShowLiveAndTheKeysChangeThem() async throws {
        let club = try await MembersClub(notes: ["Plans.txt": "x\n", "Budget.txt": "y\n"])
        self.club = club
        // Budget is the older one: newest first puts it second until it is pinned.
        try FileManager.default.setAttributes([.modificationDate: Date(timeIntervalSinceNow: -86_400)],
                                              ofItemAtPath: club.base.appendingPathComponent("club/byteclub/Budget.txt").path)
        let harness = Harness(store: club.store(token: club.annToken))
        await harness.start()
        XCTAssertEqual(titles(harness), ["Plans.txt", "Budget.txt"])
        let ray = try XCTUnwrap(club.store(token: club.rayToken) as? any TaggingStore)

        try await ray.changeTags(of: "/byteclub/Budget.txt", TagChange(added: ["pinned", "money"]))
        await harness.waitUntil("ray's pin in ann's list") { self.titles(harness).first == "Budget.txt" }
        let screen = harness.render(width: 120, height: 36).dump()
        XCTAssertTrue(screen.contains("⚑ Budget  #money"), screen)
        XCTAssertFalse(screen.contains("#pinned"), "the pin is a mark, not a tag: \(screen)")

        // `/#mon` keeps only the tagged note.
        harness.press(.char("/"), .char("#"), .char("m"), .char("o"), .char("n"))
        let filtered = harness.render(width: 120, height: 36).dump()
        XCTAssertFalse(filtered.split(separator: "\n").contains { $0.contains("Plans") && !$0.contains("? help") }, filtered)
        harness.press(.escape)

        // `*` on Plans (now second) pins it for everyone.
        harness.press(.char("j"), .char("*"))
        await harness.waitUntil("the pin saved") { harness.app.state.message?.text == "Pinned \"Plans\"" }
        let plansTags = try await ray.tags(of: ["/byteclub/Plans.txt"])
        XCTAssertEqual(plansTags["/byteclub/plans.txt"], ["pinned"])

        // `#`: a bad name is refused in the dialog, which keeps the text; a good line applies the difference.
        harness.press(.char("#"))
        for character in "a-b" { harness.press(.char(character)) }
        harness.press(.enter)
        let refused = harness.render(width: 120, height: 36).dump()
        XCTAssertTrue(refused.contains("'-' is not allowed"), refused)
        harness.press(.backspace, .backspace, .char("_"), .char("b"), .char(" "), .char("T"), .char("r"), .char("i"), .char("p"))
        harness.press(.enter)
        await harness.waitUntil("the tags saved") { harness.app.state.message?.text.hasPrefix("Tags of") ?? false }
        let after = try await ray.tags(of: ["/byteclub/Plans.txt"])
        XCTAssertEqual(after["/byteclub/plans.txt"], ["pinned", "a_b", "trip"])
        harness.app.stopLiveUpdates()
    }
}
