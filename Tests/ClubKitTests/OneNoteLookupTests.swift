import ClubKit
import Foundation
import Remote
import SearchIndex
import TestSupport
import XCTest

/// Issue 71, "one note costs one note": a name is resolved from the club's index, brought
/// current through the change feed, and answers exactly as a listing of the whole club does.
final class OneNoteLookupTests: EmbeddedClubTestCase {
    /// The club's index, made current by a whole sync (which marks it), as `links` and `search` leave it.
    private func markedIndex() async throws -> SearchIndex {
        let index = try backend.searchIndex()
        try await ClubSearch.bringCurrent(index, backend: backend, say: { XCTFail("said \($0)") }, progress: { _, _ in })
        XCTAssertNotNil(try index.changeMark(folder: backend.folder), "a whole sync marks the index")
        return index
    }

    /// Every note at any depth, listed, with every alias: the resolver `find` used before.
    private func wholeClub(_ index: SearchIndex) async throws -> NoteResolver {
        let listed = try await ClubLayout(folder: backend.folder).fetch(.notes, from: backend.store)
        let notes = listed.filter { $0.kind == .file && ClubLayout.hasExtension($0.name, in: ClubLayout.noteExtensions) }
        return NoteResolver(entries: notes, root: backend.folder, aliases: NoteResolver.aliases(of: try index.notesWithFrontMatter(naming: "aliases")))
    }

    /// The notes an answer names (a listing's entries carry more than the index keeps: ids, sizes).
    private static func paths(_ answer: NoteResolver.Answer) -> [String] {
        switch answer {
        case .none: return []
        case .one(let entry): return [entry.path]
        case .several(let entries): return entries.map(\.path)
        }
    }

    func testTheIndexGivesTheAnswersOfAListingOfTheWholeClub() async throws {
        let seed = UInt64(ProcessInfo.processInfo.environment["SEED"] ?? "") ?? UInt64.random(in: 1...UInt64.max)
        print("OneNoteLookupTests seed \(seed)")
        var random = SeededGenerator(seed: seed)
        let titles = ["Plan", "plan B", "Café", "CAFÉ", "Day one", "v1.2", "日本", "Trip plan", "Trip", "!!!"]
        let folders = ["", "A/", "B/", "A/Deep/", "Old Stuff/2025/", "b/", "Trips/"]
        var names: [String] = []
        for _ in 0..<40 {
            let title = titles.randomElement(using: &random)!, folder = folders.randomElement(using: &random)!
            let ext = Bool.random(using: &random) ? "md" : "txt"
            let alias = Int.random(in: 0..<6, using: &random) == 0 ? titles.randomElement(using: &random)! : nil
            let text = (alias.map { "---\naliases: [\"\($0)\"]\n---\n" } ?? "") + "# \(title)\n"
            let path = "/byteclub/\(folder)\(title).\(ext)"
            _ = try? await backend.store.upload(data: Data(text.utf8), to: path, mode: .add, autorename: false)
            names.append(folder + title)
        }
        let index = try await markedIndex()
        let whole = try await wholeClub(index)
        let noAliases = NoteResolver(entries: whole.entries, root: backend.folder)
        var asked = titles + names + ["Nowhere", "Deep/Plan", "2025/Day one", "Trips/Trip plan.md"]
        asked += asked.map { $0.uppercased() } + titles.map { $0 + ".md" } + titles.map { $0.lowercased() + ".TXT" }
        for name in asked {
            let found = try NoteResolver.lookingUp([name], root: backend.folder, in: index)
            for from in [nil, "/byteclub/A/Deep/x.md", "/byteclub/Trips/x.md"] {
                XCTAssertEqual(Self.paths(found.resolve(name, from: from)), Self.paths(whole.resolve(name, from: from)),
                               "\(name) from \(from ?? "the club folder") (seed \(seed))")
            }
            let byIndex = await NoteName.find("/byteclub/" + name, in: backend.store, clubFolder: backend.folder, index: { index })
            let byListing = await NoteName.find("/byteclub/" + name, in: backend.store, clubFolder: backend.folder,
                                                aliases: { whole.aliases })
            XCTAssertEqual(byIndex, byListing, "\(name) (seed \(seed))")
            // With no index and so no aliases (a machine that never synced the club): a note at
            // the top answers without a listing, and the answer is still the listing's.
            let cold = await NoteName.find("/byteclub/" + name, in: backend.store, clubFolder: backend.folder)
            XCTAssertEqual(cold, Self.match(noAliases.resolve(name, from: nil), typed: "/byteclub/" + name),
                           "\(name), no index (seed \(seed))")
        }
    }

    /// What `find` says for a resolver's answer (nothing found: the name itself).
    private static func match(_ answer: NoteResolver.Answer, typed: String) -> NoteName.Match {
        switch answer {
        case .none: return .path(typed)
        case .one(let entry): return .path(entry.path)
        case .several(let entries): return .ambiguous(entries.map(\.path))
        }
    }

    func testChangesSinceTheMarkAreTakenInAndAGoneNoteIsLookedForInTheListing() async throws {
        try await put("far\n", "/byteclub/A/Deep/Ledger.md")
        try await put("other\n", "/byteclub/B/Notes.md")
        let index = try await markedIndex()
        let store = backend.store, folder = backend.folder
        func find(_ name: String) async -> NoteName.Match {
            await NoteName.find(folder + "/" + name, in: store, clubFolder: folder, index: { index })
        }
        var found = await find("Ledger")
        XCTAssertEqual(found, .path("/byteclub/A/Deep/Ledger.md"))

        // A nearer note of the title, made after the mark: caught up, it is the answer.
        try await put("near\n", "/byteclub/A/Ledger.md")
        found = await find("ledger")
        XCTAssertEqual(found, .path("/byteclub/A/Ledger.md"))
        XCTAssertNotNil(try index.note(at: "/byteclub/A/Ledger.md"), "the change was taken into the index")
        // Two as near: both, for the user to choose.
        try await put("twin\n", "/byteclub/B/Ledger.txt")
        found = await find("Ledger")
        XCTAssertEqual(found, .ambiguous(["/byteclub/A/Ledger.md", "/byteclub/B/Ledger.txt"]))
        // A folder deleted: what was under it goes from the index too.
        _ = try await store.delete("/byteclub/B")
        found = await find("Ledger")
        XCTAssertEqual(found, .path("/byteclub/A/Ledger.md"))
        XCTAssertNil(try index.note(at: "/byteclub/B/Notes.md"))
        // A title moved to a new name.
        _ = try await store.move(from: "/byteclub/A/Ledger.md", to: "/byteclub/A/Books.md", autorename: false)
        found = await find("Books")
        XCTAssertEqual(found, .path("/byteclub/A/Books.md"))
        found = await find("Ledger")
        XCTAssertEqual(found, .path("/byteclub/A/Deep/Ledger.md"))
        found = await find("Nowhere")
        XCTAssertEqual(found, .path("/byteclub/Nowhere"), "no such note: the name itself, for the command's error")
        let current = await ClubIndexSync.catchUp(index, layout: ClubLayout(folder: folder), store: store)
        XCTAssertTrue(current)

        // The mark forgotten (another byteclub took a note out of the index): not current, so
        // the listing answers, and the note the index no longer holds is still found.
        try index.remove(path: "/byteclub/A/Books.md")
        let stillCurrent = await ClubIndexSync.catchUp(index, layout: ClubLayout(folder: folder), store: store)
        XCTAssertFalse(stillCurrent)
        found = await find("Books")
        XCTAssertEqual(found, .path("/byteclub/A/Books.md"))
        // That listing found the index one note behind: it is current again, and marked.
        XCTAssertNotNil(try index.note(at: "/byteclub/A/Books.md"), "the note the listing found is back in the index")
        XCTAssertNotNil(try index.changeMark(folder: folder))
        let currentAgain = await ClubIndexSync.catchUp(index, layout: ClubLayout(folder: folder), store: store)
        XCTAssertTrue(currentAgain)
    }
}
