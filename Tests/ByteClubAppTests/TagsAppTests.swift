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

    /// A store of the club for `token`, as the app's own (a DropboxStore, which keeps tags).
    private func store(_ club: MembersClub, _ token: String) -> DropboxStore {
        DropboxStore(displayName: "club", endpoints: .club(club.server.baseURL), tokens: StaticToken(token), configuration: .ephemeral)
    }

    /// A list of more notes than one `tags(of:)` call asks for is asked in parts, a few at once
    /// (``TagsSync``): the tags of notes in the first, a middle and the last part all arrive.
    func testEveryPartOfABigListHasItsTagsAtStart() async throws {
        let names = (0..<450).map { String(format: "Note %03d.txt", $0) }
        let club = try await MembersClub(notes: Dictionary(uniqueKeysWithValues: names.map { ($0, "x\n") }))
        self.club = club
        let ray = store(club, club.rayToken)
        let tagged = ["Note 000.txt": "first", "Note 222.txt": "middle", "Note 449.txt": "last"]
        for (name, tag) in tagged { try await ray.changeTags(of: "/byteclub/" + name, TagChange(added: [tag])) }
        let harness = Harness(store: store(club, club.annToken))
        await harness.start()
        XCTAssertEqual(harness.app.state.notes.entries.count, 450)
        await harness.waitUntil("the three tags, from three parts of the list") {
            tagged.allSatisfy { name, tag in harness.app.state.tags.byPath["/byteclub/" + name.lowercased()]?.all == [tag] }
        }
        XCTAssertEqual(harness.app.state.tags.byPath.count, 3, "no other note has tags")
    }

    func testAnotherMembersPinAndTagsShowLiveAndTheKeysChangeThem() async throws {
        let club = try await MembersClub(notes: ["Plans.txt": "x\n", "Budget.txt": "y\n"])
        self.club = club
        let harness = Harness(store: store(club, club.annToken))
        await harness.start()
        // Whichever is second (newest first, then by name) is pinned by ray and comes first.
        let order = titles(harness)
        XCTAssertEqual(Set(order), ["Plans.txt", "Budget.txt"])
        let (first, second) = (order[0], order[1])
        let ray = store(club, club.rayToken)

        try await ray.changeTags(of: "/byteclub/" + second, TagChange(added: ["pinned", "money"]))
        // Two tags are two changes, which may come in two pages.
        await harness.waitUntil("ray's pin and tag in ann's list") {
            self.titles(harness).first == second && harness.app.state.tags.byPath["/byteclub/" + second.lowercased()]?.all == ["pinned", "money"]
        }
        let screen = harness.render(width: 120, height: 36).dump()
        XCTAssertTrue(screen.contains("⚑ \(ClubLayout.title(of: second))  #money"), screen)
        XCTAssertFalse(screen.contains("#pinned"), "the pin is a mark, not a tag: \(screen)")
        XCTAssertEqual(harness.app.noteItems.firstIndex { if case .note(let entry, _) = $0 { entry.name == first } else { false } },
                       harness.app.state.notes.list.selected, "the selection stays on its note when a pin moves another")

        // `/#mon` keeps only the tagged note.
        harness.press(.char("/"), .char("#"), .char("m"), .char("o"), .char("n"))
        let filtered = harness.render(width: 120, height: 36).dump()
        let firstTitle = ClubLayout.title(of: first)
        XCTAssertFalse(filtered.split(separator: "\n").contains { $0.contains(firstTitle) && !$0.contains("? help") }, filtered)
        XCTAssertTrue(filtered.contains("⚑ \(ClubLayout.title(of: second))"), filtered)
        harness.press(.escape)

        // `*` on the other note pins it for everyone.
        harness.press(.end, .char("*"))
        await harness.waitUntil("the pin saved") { harness.app.state.message?.text == "Pinned \"\(firstTitle)\"" }
        let pinned = try await ray.tags(of: ["/byteclub/" + first])
        XCTAssertEqual(pinned["/byteclub/" + first.lowercased()], ["pinned"])

        // `#`: a bad name is refused in the dialog, which keeps the text; a good line applies the difference.
        harness.press(.char("#"))
        for character in "a-b" { harness.press(.char(character)) }
        harness.press(.enter)
        let refused = harness.render(width: 120, height: 36).dump()
        XCTAssertTrue(refused.contains("'-' is not allowed"), refused)
        harness.press(.backspace, .backspace, .char("_"), .char("b"), .char(" "), .char("T"), .char("r"), .char("i"), .char("p"))
        harness.press(.enter)
        await harness.waitUntil("the tags saved") { harness.app.state.message?.text == "Tags of \"\(firstTitle)\" saved" }
        let after = try await ray.tags(of: ["/byteclub/" + first])
        XCTAssertEqual(after["/byteclub/" + first.lowercased()], ["pinned", "a_b", "trip"])
        harness.app.stopLiveUpdates()
    }

    /// Issue 53 §6: front matter typed into a note and saved in the app (the one save path, the
    /// outbox's) makes its tags and its pin club tags: the server has them, and the note's row
    /// shows them.
    func testSavingFrontMatterWithTagsAndAPinTagsTheNote() async throws {
        let club = try await MembersClub(notes: ["Plans.md": "Meet on Friday\n"])
        self.club = club
        let harness = Harness(store: store(club, club.annToken))
        await harness.start()
        XCTAssertEqual(titles(harness), ["Plans.md"])
        harness.app.update { $0.notes.list.selected = 0 }
        harness.press(.enter)
        await harness.waitUntil("the note open") { harness.app.state.note?.isEditing == true }
        harness.press(.documentStart)
        for line in ["---", "tags: meeting Team", "pinned: true", "---"] {
            for character in line { harness.press(.char(character)) }
            harness.press(.enter)
        }
        harness.press(.ctrl("s"))
        await harness.waitUntil("saved") { harness.app.state.message?.text == "Saved \"Plans.md\"" }
        XCTAssertEqual(try String(contentsOf: club.base.appendingPathComponent("club/byteclub/Plans.md"), encoding: .utf8),
                       "---\ntags: meeting Team\npinned: true\n---\nMeet on Friday\n")
        let found = try await store(club, club.rayToken).tags(of: ["/byteclub/Plans.md"])
        XCTAssertEqual(Set(found["/byteclub/plans.md"] ?? []), ["meeting", "team", "pinned"], "the front matter's tags and pin are the club's")
        await harness.waitUntil("the pin and the tags in the list") {
            Set(harness.app.state.tags.byPath["/byteclub/plans.md"]?.all ?? []) == ["meeting", "team", "pinned"]
        }
        harness.press(.escape)
        await harness.waitUntil("the editor closed") { harness.app.state.note == nil }
        let screen = harness.render(width: 120, height: 36).dump()
        XCTAssertTrue(screen.contains("⚑ Plans  #meeting #team"), screen)
        harness.app.stopLiveUpdates()
    }

    /// Issue 55: inline `#tags` typed in a note's text (a nested one too) are club tags once it is
    /// saved in the app, and `/#project ` finds the note by its nested tag's parent.
    func testSavingInlineTagsTagsTheNoteAndTheFilterFindsItUnderTheParent() async throws {
        let club = try await MembersClub(notes: ["Plans.md": "Meet on Friday\n", "Other.md": "nothing\n"])
        self.club = club
        let harness = Harness(store: store(club, club.annToken))
        await harness.start()
        let plans = titles(harness).firstIndex(of: "Plans.md") ?? 0
        harness.app.update { $0.notes.list.selected = plans }
        harness.press(.enter)
        await harness.waitUntil("the note open") { harness.app.state.note?.isEditing == true }
        harness.press(.documentStart)
        for character in "Work on #project/alpha and #Trip, not `#code` or #2026." { harness.press(.char(character)) }
        harness.press(.enter)
        harness.press(.ctrl("s"))
        await harness.waitUntil("saved") { harness.app.state.message?.text == "Saved \"Plans.md\"" }
        let found = try await store(club, club.rayToken).tags(of: ["/byteclub/Plans.md"])
        XCTAssertEqual(Set(found["/byteclub/plans.md"] ?? []), ["project/alpha", "trip"], "the inline tags are the club's")
        await harness.waitUntil("the tags in the list") {
            Set(harness.app.state.tags.byPath["/byteclub/plans.md"]?.all ?? []) == ["project/alpha", "trip"]
        }
        harness.press(.escape)
        await harness.waitUntil("the editor closed") { harness.app.state.note == nil }
        for character in "/#project " { harness.press(.char(character)) }
        let filtered = harness.render(width: 120, height: 36).dump()
        XCTAssertTrue(filtered.contains("Plans  #project/alpha #trip") || filtered.contains("Plans  #trip #project/alpha"), filtered)
        XCTAssertFalse(filtered.split(separator: "\n").contains { $0.contains("Other") && !$0.contains("? help") }, filtered)
        harness.app.stopLiveUpdates()
    }

    func testAnOfflineStartShowsTheTagsKeptWithTheCachedList() async throws {
        let club = try await MembersClub(notes: ["Plans.txt": "x\n", "Budget.txt": "y\n"])
        self.club = club
        let cacheFolder = FileManager.default.temporaryDirectory.appendingPathComponent("tags-cache-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: cacheFolder) }
        let cache = ClubCache(directory: cacheFolder)
        let online = Harness(store: store(club, club.annToken)) { $0.cache = cache }
        await online.start()
        try await store(club, club.rayToken).changeTags(of: "/byteclub/Budget.txt", TagChange(added: ["pinned", "money"]))
        await online.waitUntil("the tags and the list cached") {
            cache.tags()?["/byteclub/budget.txt"] == ["pinned", "money"] && cache.listing(.notes)?.entries.count == 2
        }
        online.app.stopLiveUpdates()
        let url = club.server.baseURL
        await club.close()
        self.club = nil

        // The server is gone: the list and its tags come from the cache, pinned first. As in
        // the app, a server that cannot be reached is not tried again (the app is offline at once).
        var once = RetryPolicy()
        once.retriesUnreachable = false
        let offline = Harness(store: DropboxStore(displayName: "club", endpoints: .club(url), tokens: StaticToken(club.annToken),
                                                  configuration: .ephemeral, retry: once)) { $0.cache = cache }
        offline.app.start()
        // At once, before any answer: the cached list with its tags, the pin first.
        XCTAssertEqual(titles(offline).first, "Budget.txt")
        let screen = offline.render(width: 120, height: 36).dump()
        XCTAssertTrue(screen.contains("⚑ Budget  #money"), screen)
        await offline.waitUntil("the live updates failing") { offline.app.liveFailuresInARow(.notes) > 0 }
        XCTAssertNotNil(offline.app.state.notes.cachedAt, "the server did not answer: still the cached list")
        XCTAssertEqual(titles(offline).first, "Budget.txt", "a failed load keeps the tags")
        offline.app.requestQuit()
    }
}
