import ClubKit
import XCTest

/// Paths as every command reads them (issue 43 §2): `NAME:PATH` names a remote of config.toml
/// as rclone's do, a path without `/` is in the club's folder, and a note answers to its title.
final class ClubPathTests: XCTestCase {
    let remotes: Set<String> = ["club", "home"]

    func testARemoteIsNamedBeforeTheColonOnlyWhenConfigHasIt() {
        XCTAssertEqual(ClubPath(parsing: "club:", remotes: remotes), ClubPath(parsing: "", remotes: []).with(remote: "club"))
        XCTAssertEqual(ClubPath(parsing: "club:photos/alps.jpg", remotes: remotes).remote, "club")
        XCTAssertEqual(ClubPath(parsing: "club:photos/alps.jpg", remotes: remotes).text, "photos/alps.jpg")
        // A note titled with a colon, a local-looking path, an absolute path: never a remote.
        XCTAssertNil(ClubPath(parsing: "Plan: June", remotes: remotes).remote)
        XCTAssertNil(ClubPath(parsing: "./club:x", remotes: remotes).remote)
        XCTAssertNil(ClubPath(parsing: "/club:x", remotes: remotes).remote)
        XCTAssertEqual(ClubPath(parsing: "Plan: June", remotes: remotes).text, "Plan: June")
    }

    func testRelativePathsAreInTheClubsFolder() {
        XCTAssertEqual(ClubPath.resolve("", in: "/byteclub"), "/byteclub")
        XCTAssertEqual(ClubPath.resolve("photos/", in: "/byteclub"), "/byteclub/photos")
        XCTAssertEqual(ClubPath.resolve("Trip plan.md", in: "/byteclub"), "/byteclub/Trip plan.md")
        XCTAssertEqual(ClubPath.resolve("/", in: "/byteclub"), "")
        XCTAssertEqual(ClubPath.resolve("/other/x.md", in: "/byteclub"), "/other/x.md")
        XCTAssertEqual(ClubPath.resolve("notes", in: "/club b"), "/club b/notes")
    }

    func testANoteAnswersToItsNameOrTitleInAnyCase() {
        XCTAssertTrue(NoteName.answers(to: "Trip plan", name: "Trip plan.md"))
        XCTAssertTrue(NoteName.answers(to: "trip PLAN", name: "Trip plan.txt"))
        XCTAssertTrue(NoteName.answers(to: "Trip plan.md", name: "trip plan.md"))
        XCTAssertTrue(NoteName.answers(to: "Trip plan.txt", name: "Trip plan.md"), "with or without the extension the app hides")
        XCTAssertFalse(NoteName.answers(to: "Trip", name: "Trip plan.md"))
        XCTAssertFalse(NoteName.answers(to: "alps", name: "alps.jpg"), "a photo is not a note")
        XCTAssertEqual(NoteName.title("Café notes.md"), "Café notes")
        XCTAssertEqual(NoteName.title("v1.2 plan"), "v1.2 plan")
    }
}

private extension ClubPath {
    func with(remote: String) -> ClubPath {
        var copy = self
        copy.remote = remote
        return copy
    }
}
