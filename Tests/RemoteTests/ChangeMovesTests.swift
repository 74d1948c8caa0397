import Foundation
import Remote
import XCTest

/// Issue 54, "Who did it": a move is one change, for `byteclub watch` (``SeenEntries``) and the
/// app's lists alike (``ChangeMoves``), and says who moved it only when the server can tell.
/// Values only: no server.
final class ChangeMovesTests: XCTestCase {
    static func file(_ path: String, id: String?, rev: String = "r1", hash: String? = nil, by: String? = nil, size: Int64 = 10) -> RemoteEntry {
        RemoteEntry(kind: .file, name: (path as NSString).lastPathComponent, path: path, id: id, rev: rev, size: size,
                    contentHash: hash, modifiedBy: by)
    }

    static func folder(_ path: String, id: String?) -> RemoteEntry {
        RemoteEntry(kind: .folder, name: (path as NSString).lastPathComponent, path: path, id: id)
    }

    static func deleted(_ path: String) -> RemoteChange {
        .deleted(name: (path as NSString).lastPathComponent, path: path, pathLower: path.lowercased())
    }

    /// A watch that has seen `entries` (its first listing).
    static func seen(_ entries: [RemoteEntry]) -> SeenEntries {
        var seen = SeenEntries()
        _ = seen.replace(with: entries)
        return seen
    }

    func testAFileMovedIsOneRenamedLineByTheMemberWhoMovedIt() {
        var seen = Self.seen([Self.file("/byteclub/Plan.md", id: "id:1", rev: "r1", by: "dbid:ann")])
        // The club server lists the addition first; the moved file has a new revision, the mover's.
        let lines = seen.apply(page: [.updated(Self.file("/byteclub/Plan B.md", id: "id:1", rev: "r2", by: "dbid:bob")),
                                      Self.deleted("/byteclub/Plan.md")])
        XCTAssertEqual(lines.map(\.change), [.renamed])
        XCTAssertEqual(lines.first?.from, "/byteclub/Plan.md")
        XCTAssertEqual(lines.first?.path, "/byteclub/Plan B.md")
        XCTAssertEqual(lines.first?.by, "dbid:bob")
        XCTAssertEqual(lines.first?.text, "renamed /byteclub/Plan.md -> /byteclub/Plan B.md")
        // Seen at its new path: a change there is a change, its old path is gone.
        XCTAssertEqual(seen.apply(page: [.updated(Self.file("/byteclub/Plan B.md", id: "id:1", rev: "r3"))]).map(\.change), [.changed])
        XCTAssertEqual(seen.apply(page: [Self.deleted("/byteclub/Plan.md")]), [])
    }

    func testAFolderMovedIsOneLineForTheFolderAndNamesNoOneWhenItsFilesKeptTheirRevisions() {
        var seen = Self.seen([
            Self.folder("/byteclub/Trip", id: "id:f"), Self.folder("/byteclub/Trip/2026", id: "id:g"),
            Self.file("/byteclub/Trip/Day one.md", id: "id:1", by: "dbid:ann"), Self.file("/byteclub/Trip/2026/Deep.md", id: "id:2", by: "dbid:ann"),
        ])
        let lines = seen.apply(page: [
            Self.deleted("/byteclub/Trip"),
            .updated(Self.folder("/byteclub/Voyage", id: "id:f")), .updated(Self.folder("/byteclub/Voyage/2026", id: "id:g")),
            .updated(Self.file("/byteclub/Voyage/Day one.md", id: "id:1", by: "dbid:ann")),
            .updated(Self.file("/byteclub/Voyage/2026/Deep.md", id: "id:2", by: "dbid:ann")),
        ])
        XCTAssertEqual(lines.map(\.text), ["renamed /byteclub/Trip/ -> /byteclub/Voyage/"], "one line, for the folder")
        XCTAssertNil(lines.first?.by, "ann wrote the notes, but who moved the folder the server does not say")
        XCTAssertEqual(lines.first?.entry?.kind, .folder)
    }

    func testADeletionAndAnAdditionOfTwoFilesStayTwoLines() {
        var seen = Self.seen([Self.file("/byteclub/Old.md", id: "id:1", hash: "h")])
        let lines = seen.apply(page: [Self.deleted("/byteclub/Old.md"), .updated(Self.file("/byteclub/New.md", id: "id:2", hash: "h"))])
        XCTAssertEqual(lines.map(\.change), [.deleted, .added], "another id is another file, whatever it holds")
    }

    /// An encrypted club moves a folder a file at a time (each copied and signed for its new
    /// path, so with an id of its own, and no hash the client can read), then deletes the old
    /// folder: the copies were news before the deletion came.
    func testAFolderCopiedThenDeletedWithoutHashesIsAMoveByTheMemberWhoCopied() throws {
        let old = Self.folder("/byteclub/Week", id: "id:w")
        let gone = [Self.file("/byteclub/Week/Day one.md", id: "id:1", rev: "r1", by: "dbid:ann", size: 409),
                    Self.file("/byteclub/Week/Day two.md", id: "id:2", rev: "r1", by: "dbid:ann", size: 410)]
        let present = [Self.folder("/byteclub/Month", id: "id:m"), Self.file("/byteclub/Other.md", id: "id:9"),
                       Self.file("/byteclub/Month/Day one.md", id: "id:3", rev: "r7", by: "dbid:bob", size: 411),
                       Self.file("/byteclub/Month/Day two.md", id: "id:4", rev: "r8", by: "dbid:bob", size: 410)]
        let move = try XCTUnwrap(ChangeMoves.folderMove(from: old, gone: gone, present: present))
        XCTAssertEqual(move.to.path, "/byteclub/Month")
        XCTAssertEqual(move.mover, "dbid:bob", "each file written anew at its new place by bob")
        XCTAssertEqual(move.files.map(\.to.name), ["Day one.md", "Day two.md"])

        // One file missing at the new place: not a move, a deletion.
        XCTAssertNil(ChangeMoves.folderMove(from: old, gone: gone, present: Array(present.dropLast())))
        // Where the store names ids and hashes, the same bytes under another id are a copy (a
        // backup made before): the folder's deletion is a deletion.
        let hashed = gone.map { var entry = $0; entry.contentHash = "h-" + $0.name; return entry }
        let copies = present.map { var entry = $0; entry.contentHash = "h-" + $0.name; return entry }
        XCTAssertNil(ChangeMoves.folderMove(from: old, gone: hashed, present: copies))
    }

    func testAMoveNamesItsMoverOnlyWhenItMadeARevision() {
        let old = Self.file("/byteclub/a.md", id: "id:1", rev: "r1", by: "dbid:ann")
        XCTAssertEqual(ChangeMoves.mover(from: old, to: Self.file("/byteclub/b.md", id: "id:1", rev: "r2", by: "dbid:bob")), "dbid:bob")
        XCTAssertNil(ChangeMoves.mover(from: old, to: Self.file("/byteclub/b.md", id: "id:1", rev: "r1", by: "dbid:ann")),
                     "the same revision: ann wrote it, and need not have moved it")
        XCTAssertEqual(ChangeMoves.pairs(gone: [old], arrived: [Self.file("/byteclub/x.md", id: "id:2"), Self.file("/byteclub/b.md", id: "id:1")]),
                       [ChangeMoves.Pair(gone: 0, arrived: 1)])
    }
}
