@testable import ByteClubApp
import Foundation
import ClubKit
import Remote
import TerminalUI
import XCTest

/// The Notes list through folders, and titles resolved across them, from the state alone.
final class FolderListingTests: XCTestCase {
    private func note(_ path: String, minutesAgo: Double = 1) -> RemoteEntry {
        RemoteEntry(kind: .file, name: (path as NSString).lastPathComponent, path: path, rev: "r", size: 10,
                    modified: Clock.now.addingTimeInterval(-minutesAgo * 60))
    }

    private func state(_ paths: [String], folders: [String] = []) -> AppState {
        var state = AppState(backend: "test")
        let generation = state.beginLoad(.notes)
        let listed = paths.enumerated().map { note($1, minutesAgo: Double($0 + 1)) }
            + folders.map { RemoteEntry(kind: .folder, name: NotesFolder.name(of: $0), path: $0) }
        state.finishLoad(.notes, generation: generation, result: .success(ClubLayout().notesTree(listed)))
        return state
    }

    private func titles(_ state: AppState) -> [String] {
        NoteListing.make(state, format: Clock.format).rows.map { $0.cells[0] }
    }

    /// The index by folder: each folder's notes in the list's order, whether a folder's notes
    /// come together (a run: one lookup of the folder) or between another's; the folders above
    /// counted with every note under them, and a folder's name in the case its first note gave.
    func testTheFolderIndexHoldsEachFoldersNotesInOrderWhereverTheyCome() {
        let paths = ["/byteclub/Trip/a.md", "/byteclub/Trip/b.md", "/byteclub/Home/c.md", "/byteclub/trip/d.md",
                     "/byteclub/x.md", "/byteclub/Trip/Deep/e.md", "/byteclub/Home/f.md", "/byteclub/y.md"]
        let table = EntryTable(paths.map { note($0) })
        let built = FolderIndex.build(notes: table, files: [], folders: [])
        XCTAssertEqual(built.notes["/byteclub/trip"], [0, 1, 3])
        XCTAssertEqual(built.notes["/byteclub/home"], [2, 6])
        XCTAssertEqual(built.notes["/byteclub"], [4, 7])
        XCTAssertEqual(built.notes["/byteclub/trip/deep"], [5])
        XCTAssertEqual(built.children["/byteclub"]?["trip"]?.notes, 4, "three notes in it and one below")
        XCTAssertEqual(built.children["/byteclub"]?["trip"]?.name, "Trip")
        XCTAssertEqual(built.children["/byteclub"]?["home"]?.notes, 2)
        XCTAssertEqual(built.children["/byteclub/trip"]?["deep"]?.notes, 1)
    }

    /// Issue 55: a vault's other files are rows of their folder after its notes, counted in
    /// their folders' rows, never taken for notes; a live change to one changes its row.
    func testAttachmentsAreRowsOfTheirFolderAndCountedInItsRow() {
        let layout = ClubLayout()
        var state = AppState(backend: "test")
        let generation = state.beginLoad(.notes)
        let listed = ["/byteclub/Vault/Plan.md", "/byteclub/Vault/Papers/paper.pdf", "/byteclub/Vault/Papers/board.canvas",
                      "/byteclub/Vault/Papers/Reading.md", "/byteclub/photos/x.pdf", "/byteclub/.obsidian/app.json"].map { note($0) }
            + ["/byteclub/Vault", "/byteclub/Vault/Papers"].map { RemoteEntry(kind: .folder, name: NotesFolder.name(of: $0), path: $0) }
        XCTAssertEqual(listed.filter(layout.isAttachment).map(\.name), ["paper.pdf", "board.canvas"], "not under photos/ or a hidden folder")
        state.finishLoad(.notes, generation: generation, result: .success(layout.notesTree(listed) + listed.filter(layout.isAttachment)))
        XCTAssertEqual(state.notes.entries.map(\.name).sorted(), ["Plan.md", "Reading.md"], "a PDF is no note")
        XCTAssertEqual(state.notes.files.map(\.name).sorted(), ["board.canvas", "paper.pdf"])
        let top = NoteListing.make(state, format: Clock.format).rows
        XCTAssertEqual(top.first?.cells, ["▸ Vault/", "2 notes", "· 2 files"])
        state.openFolder("/byteclub/Vault/Papers")
        XCTAssertEqual(titles(state), ["◂ ..", "Reading", "◇ board.canvas", "◇ paper.pdf"])
        // Another member adds an audio file: its folder's row counts it at once.
        _ = state.applyChanges(.notes, [.updated(note("/byteclub/Vault/Papers/talk.mp3"))], layout: layout, format: Clock.format)
        XCTAssertEqual(titles(state), ["◂ ..", "Reading", "◇ board.canvas", "◇ paper.pdf", "◇ talk.mp3"])
        state.openFolder("/byteclub")
        XCTAssertEqual(NoteListing.make(state, format: Clock.format).rows.first?.cells, ["▸ Vault/", "2 notes", "· 3 files"])
    }

    func testTheTopListsItsFoldersWithCountsAtAnyDepthThenItsNotes() {
        var state = state(["/byteclub/Welcome.md", "/byteclub/Trips/Day one.md", "/byteclub/Trips/2026/Deep.md", "/byteclub/photos/x.md",
                           "/byteclub/.obsidian/y.md"], folders: ["/byteclub/Trips", "/byteclub/Empty", "/byteclub/photos"])
        XCTAssertEqual(titles(state), ["▸ Empty/", "▸ Trips/", "Welcome"])
        XCTAssertEqual(NoteListing.make(state, format: Clock.format).rows[1].cells[1], "2 notes")
        state.openFolder("/byteclub/Trips")
        XCTAssertEqual(titles(state), ["◂ ..", "▸ 2026/", "Day one"])
        state.openFolder("/byteclub/Trips/2026")
        XCTAssertEqual(titles(state), ["◂ ..", "Deep"])
        XCTAssertEqual(state.notesFolder.relative, "Trips/2026")
        state.upFolder()
        XCTAssertEqual(state.notesFolder.path, "/byteclub/Trips")
        XCTAssertEqual(state.selectedNoteItem(in: NoteListing.make(state, format: Clock.format)).map { if case .folder(let f) = $0 { f.name } else { "?" } }, "2026",
                       "up a folder selects the folder just left")
    }

    func testAFirstLoadShowsItsNotesSoFarUntilItsResult() {
        var state = AppState(backend: "test")
        state.message = StatusMessage("Loading…")
        let generation = state.beginLoad(.notes)
        state.showPartialLoad(.notes, ClubLayout().notesTree([note("/byteclub/A.md"), note("/byteclub/B.md")]), count: 2)
        XCTAssertEqual(titles(state), ["A", "B"], "the first page is listed")
        XCTAssertEqual(state.shownMessage?.text, "Loading notes… 2 so far")
        state.showPartialLoad(.notes, nil, count: 4_000)
        XCTAssertEqual(titles(state), ["A", "B"], "later pages only count")
        XCTAssertEqual(state.shownMessage?.text, "Loading notes… 4,000 so far")
        XCTAssertFalse(state.notes.hasLoaded, "a draft's note may still come: drafts wait for the whole list")
        state.finishLoad(.notes, generation: generation, result: .success(ClubLayout().notesTree([note("/byteclub/A.md"), note("/byteclub/B.md"),
                                                                                                   note("/byteclub/C.md", minutesAgo: 5)])))
        XCTAssertEqual(titles(state), ["A", "B", "C"])
        XCTAssertEqual(state.shownMessage?.text, "3 notes")
    }

    func testAFolderOnlyANotesPathNamesIsListedToo() {
        let state = state(["/byteclub/Deep/Down/n.md"])
        XCTAssertEqual(titles(state), ["▸ Deep/"])
        XCTAssertEqual(state.allNoteFolders, ["/byteclub", "/byteclub/Deep", "/byteclub/Deep/Down"])
    }

    func testATitleResolvesNearestFirstAndTwoAsNearAreBothAnswers() {
        let entries = ["/byteclub/Plan.md", "/byteclub/Trips/Plan.md", "/byteclub/Trips/2026/Day.md", "/byteclub/A/Same.md", "/byteclub/B/Same.md"]
            .map { note($0) }
        let resolver = NoteResolver(entries: entries, root: "/byteclub", aliases: ["sailing": ["/byteclub/trips/2026/day.md"]])
        XCTAssertEqual(resolver.resolve("Plan", from: "/byteclub/Trips/2026/Day.md"), .one(entries[1]), "Trips is nearer than the top")
        XCTAssertEqual(resolver.resolve("plan", from: "/byteclub/Other.md"), .one(entries[0]))
        XCTAssertEqual(resolver.resolve("Same", from: "/byteclub/Plan.md"), .several([entries[3], entries[4]]), "never guessed")
        XCTAssertEqual(resolver.resolve("Trips/2026/Day", from: nil), .one(entries[2]))
        XCTAssertEqual(resolver.resolve("2026/Day", from: "/byteclub/Plan.md"), .one(entries[2]), "a path's end, as Obsidian finds it")
        XCTAssertEqual(resolver.resolve("Sailing", from: nil), .one(entries[2]), "an alias is a title")
        XCTAssertEqual(resolver.resolve("Nowhere", from: nil), .none)
    }
}
