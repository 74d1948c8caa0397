@testable import ByteClubApp
import Foundation
import Remote
import TerminalUI
import XCTest

/// A change page applied to the lists (``AppState/applyChanges(_:_:layout:format:before:)``),
/// without a server: what it says, and that the selection stays on its item and the scroll
/// position with it.
final class LiveDeltaTests: XCTestCase {
    let layout = ClubLayout()

    static func note(_ name: String, rev: String = "r1", id: String? = nil, minutesAgo: Double, by: String? = nil) -> RemoteEntry {
        RemoteEntry(kind: .file, name: name, path: "/byteclub/" + name, id: id ?? "id:" + name, rev: rev, size: 10,
                    modified: Clock.ago(minutesAgo * 60), modifiedBy: by)
    }

    /// Notes n0 (newest) … n(count-1), loaded.
    func state(notes count: Int) -> AppState {
        var state = AppState(backend: "test")
        let generation = state.beginLoad(.notes)
        state.finishLoad(.notes, generation: generation, result: .success(ClubLayout.sortedNotes(
            (0..<count).map { Self.note("n\($0).txt", minutesAgo: Double($0 + 1)) })))
        return state
    }

    func names(_ state: AppState) -> [String] { state.notes.entries.map(\.name) }

    func selectedName(_ state: AppState) -> String? {
        if case .note(let entry, _)? = state.selectedNoteItem(in: NoteListing.make(state, format: Clock.format)) { return entry.name }
        return nil
    }

    /// Another member's `put -r`: the server asks for a second between pages; a list of more
    /// than 10,000 entries waits 3 s (each page is a pass over it), a longer ask stands.
    func testABigListTakesABurstsPagesLessOften() {
        XCTAssertEqual(LiveUpdates.burstWait(backoff: 1, listed: 500), 1)
        XCTAssertEqual(LiveUpdates.burstWait(backoff: 1, listed: 10_000), 1)
        XCTAssertEqual(LiveUpdates.burstWait(backoff: 1, listed: 100_000), LiveUpdates.bigListBurstWait)
        XCTAssertEqual(LiveUpdates.burstWait(backoff: 5, listed: 100_000), 5)
    }

    func testANewNoteIsAddedAndTheSelectionStaysOnItsItem() {
        var state = state(notes: 3)
        state.notes.list.selected = 1
        let events = state.applyChanges(.notes, [.updated(Self.note("Trip plan.txt", minutesAgo: 0, by: "dbid:ray"))],
                                        layout: layout, format: Clock.format)
        XCTAssertEqual(events.map(\.kind), [.added])
        XCTAssertEqual(names(state), ["Trip plan.txt", "n0.txt", "n1.txt", "n2.txt"], "newest first")
        XCTAssertEqual(selectedName(state), "n1.txt", "the selection follows its item, not its index")
        XCTAssertEqual(state.notes.list.selected, 2)
        XCTAssertEqual(events[0].sentence(by: "ray", tab: .notes), "ray added \"Trip plan\"")
    }

    func testTheScrollPositionMovesWithTheSelectedItem() {
        var state = state(notes: 40)
        state.notes.list.selected = 25
        state.notes.list.offset = 20
        _ = state.applyChanges(.notes, [.updated(Self.note("a.txt", minutesAgo: 0)), .updated(Self.note("b.txt", minutesAgo: 0.5))],
                               layout: layout, format: Clock.format)
        XCTAssertEqual(selectedName(state), "n25.txt")
        XCTAssertEqual(state.notes.list.selected, 27)
        XCTAssertEqual(state.notes.list.offset, 22, "the selected row stays on the same screen row")
        // A change below the selection moves nothing.
        _ = state.applyChanges(.notes, [.deleted(name: "n39.txt", path: "/byteclub/n39.txt", pathLower: "/byteclub/n39.txt")],
                               layout: layout, format: Clock.format)
        XCTAssertEqual(state.notes.list.selected, 27)
        XCTAssertEqual(state.notes.list.offset, 22)
    }

    func testDeletingTheSelectedNoteKeepsThePosition() {
        var state = state(notes: 4)
        state.notes.list.selected = 2
        let events = state.applyChanges(.notes, [.deleted(name: "n2.txt", path: "/byteclub/n2.txt", pathLower: "/byteclub/n2.txt")],
                                        layout: layout, format: Clock.format)
        XCTAssertEqual(events.map(\.kind), [.deleted])
        XCTAssertEqual(events[0].sentence(by: nil, tab: .notes), "Someone deleted \"n2\"")
        XCTAssertEqual(names(state), ["n0.txt", "n1.txt", "n3.txt"])
        XCTAssertEqual(selectedName(state), "n3.txt", "the next note takes the deleted one's place")
        // The last one deleted: the selection stays inside the list.
        state.notes.list.selected = 2
        _ = state.applyChanges(.notes, [.deleted(name: "n3.txt", path: "/byteclub/n3.txt", pathLower: "/byteclub/n3.txt")],
                               layout: layout, format: Clock.format)
        XCTAssertEqual(selectedName(state), "n1.txt")
        // A folder's deletion takes everything in it; a deletion of something unknown is no news.
        XCTAssertEqual(state.applyChanges(.notes, [.deleted(name: "x.txt", path: "/byteclub/x.txt", pathLower: "/byteclub/x.txt")],
                                          layout: layout, format: Clock.format), [])
        _ = state.applyChanges(.notes, [.deleted(name: "byteclub", path: "/byteclub", pathLower: "/byteclub")], layout: layout, format: Clock.format)
        XCTAssertEqual(names(state), [])
        XCTAssertEqual(state.notes.list.selected, 0)
    }

    func testAMoveIsARenameAndTheSelectionFollowsIt() {
        var state = state(notes: 3)
        state.notes.list.selected = 2
        let old = state.notes.entries[2]
        var renamed = Self.note("Renamed.txt", rev: "r1", id: old.id, minutesAgo: 3)
        renamed.modifiedBy = "dbid:ann"
        let events = state.applyChanges(.notes, [.deleted(name: old.name, path: old.path, pathLower: old.pathLower), .updated(renamed)],
                                        layout: layout, format: Clock.format)
        XCTAssertEqual(events.map(\.kind), [.renamed])
        XCTAssertEqual(events[0].sentence(by: "ann", tab: .notes), "ann renamed \"n2\" to \"Renamed\"")
        XCTAssertEqual(selectedName(state), "Renamed.txt")
        // The server may list the addition first.
        let again = Self.note("Again.txt", rev: "r1", id: old.id, minutesAgo: 3, by: "dbid:ann")
        let reversed = state.applyChanges(.notes, [.updated(again), .deleted(name: "Renamed.txt", path: "/byteclub/Renamed.txt",
                                                                             pathLower: "/byteclub/renamed.txt")],
                                          layout: layout, format: Clock.format)
        XCTAssertEqual(reversed.map(\.kind), [.renamed])
        XCTAssertEqual(reversed.first?.previous?.name, "Renamed.txt")
        XCTAssertEqual(selectedName(state), "Again.txt")
    }

    /// Issue 54: a folder another member renamed was said as its notes' deletions and
    /// additions (`Someone deleted "Day one" (+1 more)`, or one note `moved` for each, named for
    /// the last writer of the first): it is one event, its mover named only when known.
    func testAFolderMovedIsOneEventAndWhoMovedItIsNotGuessed() {
        var state = AppState(backend: "test")
        let generation = state.beginLoad(.notes)
        let trip = RemoteEntry(kind: .folder, name: "Trip", path: "/byteclub/Trip", id: "id:f")
        func note(_ path: String, id: String, rev: String = "r1", by: String = "dbid:ann") -> RemoteEntry {
            RemoteEntry(kind: .file, name: (path as NSString).lastPathComponent, path: path, id: id, rev: rev, size: 10,
                        modified: Clock.ago(60), modifiedBy: by)
        }
        state.finishLoad(.notes, generation: generation, result: .success([
            trip, note("/byteclub/Trip/Day one.txt", id: "id:1"), note("/byteclub/Trip/Day two.txt", id: "id:2"), note("/byteclub/Top.txt", id: "id:3"),
        ]))
        let moved: [RemoteChange] = [
            .deleted(name: "Trip", path: "/byteclub/Trip", pathLower: "/byteclub/trip"),
            .updated(RemoteEntry(kind: .folder, name: "Voyage", path: "/byteclub/Voyage", id: "id:f")),
            .updated(note("/byteclub/Voyage/Day one.txt", id: "id:1")), .updated(note("/byteclub/Voyage/Day two.txt", id: "id:2")),
        ]
        let events = state.applyChanges(.notes, moved, layout: layout, format: Clock.format)
        XCTAssertEqual(events.map(\.kind), [.renamedFolder])
        XCTAssertNil(events.first?.modifiedBy, "ann wrote the notes; who moved them the server does not say")
        XCTAssertEqual(events.first?.sentence(by: nil, tab: .notes), "Someone renamed folder \"Trip\" to \"Voyage\"")
        XCTAssertEqual(Set(state.notes.entries.map(\.path)), ["/byteclub/Voyage/Day one.txt", "/byteclub/Voyage/Day two.txt", "/byteclub/Top.txt"])
        XCTAssertEqual(state.notes.folders.map(\.path), ["/byteclub/Voyage"])

        // Into another folder, by a member whose byteclub wrote each note anew there (an
        // encrypted club's move: copies, other ids, then the old folder deleted).
        let copies: [RemoteChange] = [.updated(note("/byteclub/Old/Voyage/Day one.txt", id: "id:7", rev: "r7", by: "dbid:ray")),
                                      .updated(note("/byteclub/Old/Voyage/Day two.txt", id: "id:8", rev: "r8", by: "dbid:ray"))]
        XCTAssertEqual(state.applyChanges(.notes, copies, layout: layout, format: Clock.format).map(\.kind), [.added, .added])
        let gone = state.applyChanges(.notes, [.deleted(name: "Voyage", path: "/byteclub/Voyage", pathLower: "/byteclub/voyage")],
                                      layout: layout, format: Clock.format)
        XCTAssertEqual(gone.map(\.kind), [.renamedFolder])
        XCTAssertEqual(gone.first?.modifiedBy, "dbid:ray")
        XCTAssertEqual(gone.first?.sentence(by: "ray", tab: .notes), "ray moved folder \"Voyage\" to Old/")
    }

    func testAChangedNoteMovesToTheTopAndARevAlreadyListedIsNoNews() {
        var state = state(notes: 3)
        state.notes.list.selected = 0
        var changed = state.notes.entries[2]
        changed.rev = "r2"
        changed.size = 99
        changed.modified = Clock.now
        let events = state.applyChanges(.notes, [.updated(changed)], layout: layout, format: Clock.format)
        XCTAssertEqual(events.map(\.kind), [.changed])
        XCTAssertEqual(names(state), ["n2.txt", "n0.txt", "n1.txt"])
        XCTAssertEqual(selectedName(state), "n0.txt")
        let version = state.notes.version
        XCTAssertEqual(state.applyChanges(.notes, [.updated(changed)], layout: layout, format: Clock.format), [], "seen already")
        XCTAssertEqual(state.notes.version, version, "nothing changed, so the rows are kept")
    }

    func testNotesAtAnyDepthAndPhotosUnderTheirsAreListed() {
        var state = state(notes: 1)
        let deeper = RemoteEntry(kind: .file, name: "x.txt", path: "/byteclub/sub/x.txt", rev: "r", modified: Clock.now)
        let picture = RemoteEntry(kind: .file, name: "a.jpg", path: "/byteclub/a.jpg", rev: "r", modified: Clock.now)
        let folder = RemoteEntry(kind: .folder, name: "New.txt", path: "/byteclub/New.txt")
        let inPhotos = RemoteEntry(kind: .file, name: "n.md", path: "/byteclub/photos/n.md", rev: "r", modified: Clock.now)
        let hidden = RemoteEntry(kind: .file, name: "h.md", path: "/byteclub/.obsidian/h.md", rev: "r", modified: Clock.now)
        let outside = RemoteEntry(kind: .file, name: "o.md", path: "/elsewhere/o.md", rev: "r", modified: Clock.now)
        let added = state.applyChanges(.notes, [.updated(deeper), .updated(picture), .updated(folder), .updated(inPhotos), .updated(hidden), .updated(outside)],
                                       layout: layout, format: Clock.format)
        XCTAssertEqual(added.map(\.entry.path), ["/byteclub/sub/x.txt"], "a note in a folder is a note; a folder is no news of its own")
        XCTAssertEqual(state.notes.folders.map(\.path), ["/byteclub/New.txt"], "the folder is listed, and may hold notes later")
        let photo = RemoteEntry(kind: .file, name: "p.JPG", path: "/byteclub/photos/2026/p.JPG", rev: "r", modified: Clock.now)
        let events = state.applyChanges(.photos, [.updated(photo), .updated(picture)], layout: layout, format: Clock.format)
        XCTAssertEqual(events.map(\.kind), [.added])
        XCTAssertEqual(events[0].sentence(by: "ray", tab: .photos), "ray added \"p.JPG\"")
        XCTAssertEqual(state.photos.entries.map(\.name), ["p.JPG"])
    }

    func testAFilteredListKeepsItsSelectionAndNamesAreEscaped() {
        var state = state(notes: 5)
        state.notes.list.filter = "n3"
        state.notes.list.selected = 0
        _ = state.applyChanges(.notes, [.updated(Self.note("n33.txt", minutesAgo: 0))], layout: layout, format: Clock.format)
        XCTAssertEqual(selectedName(state), "n3.txt", "the new match is above; the selection stays on n3")
        XCTAssertEqual(state.notes.list.selected, 1)
        let hostile = LiveEvent(kind: .added, entry: Self.note("\u{1b}]0;pwned\u{07}.txt", minutesAgo: 0))
        XCTAssertEqual(hostile.sentence(by: "r\u{1b}[2Jay", tab: .notes), "r\\x1b[2Jay added \"\\x1b]0;pwned\\x07\"")
    }
}
