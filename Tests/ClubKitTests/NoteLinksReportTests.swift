import ClubKit
import Foundation
import Markdown
import Remote
import SearchIndex
import XCTest

/// `links`, `cat --render`'s embeds, `log`, `share` and `tag` through ClubKit, on the embedded
/// club where they need a store.
final class NoteLinksReportTests: EmbeddedClubTestCase {
    func testANoteInASubfolderHasItsLinksResolvedAndItsBacklinks() async throws {
        try await put("See [[Plan]], [the list](../packing.md), [[Nowhere]] and https://example.com/x\n", "/byteclub/Trips/2026/Day one.md")
        try await put("Plan for [[Day one]]\n", "/byteclub/Trips/Plan.md")
        try await put("socks\n", "/byteclub/Trips/packing.md")
        var said: [String] = []
        let report = try await LinksReport.make("/byteclub/Trips/2026/Day one.md", backend: backend, names: { _ in [:] }, say: { said.append($0) })

        XCTAssertEqual(said, [], "online: nothing to say")
        XCTAssertEqual(report.title, "Day one")
        XCTAssertFalse(report.offline)
        let links = report.outgoing.map { [$0.written, $0.target, $0.pathDisplay ?? "-", $0.exists.map(String.init) ?? "-"] }
        XCTAssertEqual(links, [
            ["[[Plan]]", "note", "/byteclub/Trips/Plan.md", "true"],
            ["[the list](../packing.md)", "note", "/byteclub/Trips/packing.md", "true"],
            ["[[Nowhere]]", "note", "-", "false"],
            ["https://example.com/x", "web", "-", "-"],
        ])
        XCTAssertEqual(report.backlinks.map(\.pathDisplay), ["/byteclub/Trips/Plan.md"])
        XCTAssertEqual(report.backlinks.first?.line, 1)
        let text = report.text(formatter: JSONLines.localTimeFormatter())
        XCTAssertTrue(text.hasPrefix("Day one  /byteclub/Trips/2026/Day one.md\nLinks (4):\n  1: [[Plan]] → /byteclub/Trips/Plan.md\n"), text)
        XCTAssertTrue(text.contains("  1: [[Nowhere]] → missing note\n"), text)
        XCTAssertTrue(text.contains("Backlinks (1):\n  Plan  "), text)
    }

    /// Issue 69: `[[Note#Heading]]` keeps its heading (it was listed as `[[Note]]`), a link just
    /// before a table is a link to its note and counts as a backlink (it was an "elsewhere"
    /// autolink), and a backlink's `modified_by` is a name or null, never an account id.
    func testAHeadingIsKeptALinkBeforeATableLeadsToItsNoteAndBacklinksNameNoIds() async throws {
        try await put("# Sails\n## Rigging\n", "/byteclub/Sails.md")
        try await put("# Plan\n\nSee [the sails](Sails.md)\n| a | b |\n|---|---|\n| 1 | 2 |\n\nline 8 [[Sails#Rigging]] here\n", "/byteclub/Plan.md")
        let report = try await LinksReport.make("/byteclub/Plan.md", backend: backend, names: { _ in [:] }, say: { _ in })
        XCTAssertEqual(report.outgoing.map { [$0.written, $0.target, $0.pathDisplay ?? "-", "\($0.line)"] }, [
            ["[the sails](Sails.md)", "note", "/byteclub/Sails.md", "3"],
            ["[[Sails#Rigging]]", "note", "/byteclub/Sails.md", "8"],
        ])
        XCTAssertEqual(report.outgoing.map(\.fragment), [nil, "Rigging"])
        let json = String(decoding: try JSONEncoder().encode(report), as: UTF8.self)
        XCTAssertTrue(json.contains(#""fragment":"Rigging""#), json)

        let sails = try await LinksReport.make("/byteclub/Sails.md", backend: backend, names: { _ in [:] }, say: { _ in })
        XCTAssertEqual(sails.backlinks.map(\.pathDisplay), ["/byteclub/Plan.md"])
        XCTAssertEqual(sails.backlinks.first?.line, 3, "the first link's line")
        XCTAssertEqual(sails.backlinks.first?.links, 2)
        let backlink = try XCTUnwrap(sails.backlinks.first)
        XCTAssertNil(backlink.modifiedBy, "no name known: null, not the id")
        XCTAssertFalse(String(decoding: try JSONEncoder().encode(backlink), as: UTF8.self).contains(#""modified_by":"dbid:"#))
    }

    /// Issue 69, one resolver: backlinks are the links that lead to a note when followed. An
    /// alias counts (`[[Skipper]]` never showed), and of two notes named `Plan.md` each has only
    /// the links that lead to it, the nearest (`[[Plan]]` counted for both).
    func testBacklinksAreTheLinksThatLeadHereAliasesTooAndTheNearestOfOneName() async throws {
        try await put("---\naliases: [Skipper]\n---\n# Ann\n", "/byteclub/People/Ann.md")
        try await put("# Club plan\n", "/byteclub/Plan.md")
        try await put("# Trip plan\n", "/byteclub/Trips/Plan.md")
        try await put("Ask [[Skipper]] about [[Plan]]\n", "/byteclub/Trips/Day one.md")
        try await put("The [[Plan]] for the year, by [[Ann]]\n", "/byteclub/Year.md")
        try await put("Also [the trip's](Trips/Plan.md)\n", "/byteclub/Index.md")

        func backlinks(_ path: String) async throws -> [String] {
            try await LinksReport.make(path, backend: backend, names: { _ in [:] }, say: { _ in }).backlinks.map(\.pathDisplay).sorted()
        }
        let ann = try await backlinks("/byteclub/People/Ann.md")
        XCTAssertEqual(ann, ["/byteclub/Trips/Day one.md", "/byteclub/Year.md"], "by alias and by title")
        let clubPlan = try await backlinks("/byteclub/Plan.md")
        XCTAssertEqual(clubPlan, ["/byteclub/Year.md"], "[[Plan]] in Trips/ leads to Trips/Plan.md")
        let tripPlan = try await backlinks("/byteclub/Trips/Plan.md")
        XCTAssertEqual(tripPlan, ["/byteclub/Index.md", "/byteclub/Trips/Day one.md"])
        // Each listed one leads here when followed, as `links` of that note says.
        let day = try await LinksReport.make("/byteclub/Trips/Day one.md", backend: backend, names: { _ in [:] }, say: { _ in })
        XCTAssertEqual(day.outgoing.map { $0.pathDisplay ?? "-" }, ["/byteclub/People/Ann.md", "/byteclub/Trips/Plan.md"])
    }

    func testAutolinksArePlacedOnTheLineThatHoldsThem() {
        let text = "first\nsee https://a.example\n[[B]]\n"
        let placed = LinksReport.placed(NoteLinks.scan(text), in: text)
        XCTAssertEqual(placed.map(\.destination), ["https://a.example", "B"])
        XCTAssertEqual(placed.map(\.line), [1, 2])
    }

    func testEmbedsAreReadFromTheClubAndDrawnInTheLayout() async throws {
        try await put("Packing: ![[Socks]]\n", "/byteclub/Trips/List.md")
        try await put("wool socks\n", "/byteclub/Gear/Socks.md")
        let text = "Packing: ![[Socks]]\n"
        let embeds = await NoteEmbeds.notes(of: text, at: "/byteclub/Trips/List.md", store: backend.store, root: "/byteclub")
        XCTAssertEqual(embeds["socks"]?.path, "/byteclub/Gear/Socks.md")
        let rendered = CatOutput.rendered(text, path: "/byteclub/Trips/List.md", width: 40, embeds: embeds, cellWidth: { _ in 1 })
        XCTAssertTrue(rendered.plainText.contains("wool socks"), rendered.plainText)
        XCTAssertEqual(CatOutput.shownOnTerminal("a\u{1B}[2J\tb\nc"), "a\\x1b[2J\tb\nc", "escapes shown, tabs and lines kept")
    }

    func testRevisionsNameWhoMadeThem() {
        let you = RemoteAccount(id: "dbid:me", displayName: "Ada")
        let names = ["dbid:bob": "bob"]
        XCTAssertEqual(RevisionList.who("dbid:me", you: you, names: names), "you (Ada)")
        XCTAssertEqual(RevisionList.who("dbid:bob", you: you, names: names), "bob")
        XCTAssertEqual(RevisionList.who("dbid:zed", you: you, names: names), "another member", "an id is never shown as a name")
        XCTAssertEqual(RevisionList.who(nil, you: you, names: names), "-")
        XCTAssertTrue(RevisionList.isRev("a1b2"))
        XCTAssertFalse(RevisionList.isRev("a1;rm"))
    }

    func testACopyKeepsItsNameInAFolderAndTakesItsFrontMatterTags() async throws {
        try await put("---\ntags: [sea]\n---\nwaves\n", "/byteclub/Day.md")
        let (copy, said) = try await ServerCopies.copy("/byteclub/Day.md", to: "/byteclub/Archive", keepingName: true, autorename: false,
                                                       store: backend.store)
        XCTAssertEqual(copy.path, "/byteclub/Archive/Day.md")
        XCTAssertEqual(said, [])
        let tags = try await FileTags.apply(TagChange(), to: copy.path, store: backend.store)
        XCTAssertEqual(tags, ["sea"])
        do {
            _ = try await ServerCopies.copy("/byteclub/Day.md", to: "/byteclub/Archive/Day.md", keepingName: false, autorename: false,
                                            store: backend.store)
            XCTFail("a copy never replaces")
        } catch {
            guard case .conflict = error else { return XCTFail("\(error)") }
        }
    }

    func testExpiriesAreDurationsOrDatesInTheFuture() throws {
        let now = Date(timeIntervalSince1970: 1_800_000_000)
        XCTAssertEqual(try LinkExpiry.parse("7d", now: now), now.addingTimeInterval(7 * 86_400))
        XCTAssertThrowsError(try LinkExpiry.parse("2020-01-01", now: now)) { error in
            XCTAssertEqual((error as? LinkExpiry.Refusal)?.description, "--expires 2020-01-01 is in the past")
        }
        XCTAssertThrowsError(try LinkExpiry.parse("soon", now: now))
    }

    func testTaggedFilesAreFoundUnderATagButNotInHiddenFolders() async throws {
        try await put("a\n", "/byteclub/Work/a.md")
        try await put("b\n", "/byteclub/.obsidian/b.md")
        for path in ["/byteclub/Work/a.md", "/byteclub/.obsidian/b.md"] {
            _ = try await FileTags.apply(TagChange(added: ["project/alpha"]), to: path, store: backend.store)
        }
        let found = try await FileTags.tagged("project", in: "/byteclub", store: backend.store)
        XCTAssertEqual(found.map(\.path), ["/byteclub/Work/a.md"])
        do throws(RemoteError) {
            _ = try await FileTags.apply(TagChange(), to: "/byteclub/missing.md", store: backend.store)
            XCTFail("a missing file has no tags to show")
        } catch {
            guard case .notFound = error else { return XCTFail("\(error)") }
        }
    }
}
