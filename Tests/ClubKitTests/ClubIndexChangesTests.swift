import Foundation
@testable import ClubKit
import Remote
import XCTest

/// What a catch-up takes from a change page (ClubIndexSync+Changes.swift): the notes of the
/// Notes tab changed, in order, and the paths deleted, a folder's with all under it.
final class ClubIndexChangesTests: XCTestCase {
    private let layout = ClubLayout(folder: "/byteclub")

    private func file(_ path: String) -> RemoteChange {
        .updated(RemoteEntry(kind: .file, name: (path as NSString).lastPathComponent, path: path, rev: "r"))
    }

    private func gone(_ path: String) -> RemoteChange {
        .deleted(name: (path as NSString).lastPathComponent, path: path, pathLower: path.lowercased())
    }

    func testChangesAreTakenInOrderAndOnlyTheNotesTabsNotes() {
        let (changed, removed) = ClubIndexSync.notesChanged([
            file("/byteclub/A/One.md"),
            file("/byteclub/photos/desk.jpg"),
            file("/byteclub/.obsidian/workspace.md"),
            file("/byteclub/A/paper.pdf"),
            .updated(RemoteEntry(kind: .folder, name: "B", path: "/byteclub/B")),
            file("/byteclub/B/Two.md"),
            // Changed, then its folder deleted: not fetched.
            gone("/byteclub/B"),
            // Deleted, then made again: fetched.
            gone("/byteclub/A/Three.md"),
            file("/byteclub/A/Three.md"),
            file("/byteclub/A/One.md"),
        ], layout: layout)
        XCTAssertEqual(changed.map(\.path), ["/byteclub/A/One.md", "/byteclub/A/Three.md"], "once each, in the order first seen")
        XCTAssertEqual(removed, ["/byteclub/b", "/byteclub/a/three.md"])
    }
}
