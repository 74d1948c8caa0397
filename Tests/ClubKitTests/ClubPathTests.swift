import ClubKit
import Remote
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

    /// Issue 53 §8: `put -r notes club:` with no remote `club` made a folder named `club:`. A
    /// `NAME:` that reads as a remote's name and names none is refused, naming the remotes there
    /// are; a title with a blank after the colon, a time, a local `./` path and a whole path are not.
    func testANameThatNamesNoRemoteIsRefusedNamingTheRemotes() throws {
        XCTAssertThrowsError(try ClubPath(checking: "club:", remotes: ["home", "away"], folder: "/byteclub")) { error in
            XCTAssertEqual((error as? UnknownRemote)?.description,
                           "club: names no remote of config.toml (it has away, home); for a file or folder named so in the club, give its whole path: /byteclub/club:")
        }
        XCTAssertThrowsError(try ClubPath(checking: "club:notes/a.md", remotes: [String](), folder: "/byteclub")) { error in
            XCTAssertEqual((error as? UnknownRemote)?.description,
                           "club: names no remote of config.toml (it has none); for a file or folder named so in the club, give its whole path: /byteclub/club:notes/a.md")
        }
        XCTAssertEqual(try ClubPath(checking: "club:photos", remotes: remotes, folder: "/byteclub").remote, "club")
        for typed in ["Plan: June", "10:30 standup", "./club:", "/byteclub/club:", "../x:y", "photos/a:b.jpg", "Trip plan"] {
            XCTAssertNoThrow(try ClubPath(checking: typed, remotes: remotes, folder: "/byteclub"), typed)
            XCTAssertNil(ClubPath.remoteLike(typed), typed)
        }
        XCTAssertEqual(ClubPath.remoteLike("my-club.2:x"), "my-club.2")
    }

    func testRelativePathsAreInTheClubsFolder() {
        XCTAssertEqual(ClubPath.resolve("", in: "/byteclub"), "/byteclub")
        XCTAssertEqual(ClubPath.resolve("photos/", in: "/byteclub"), "/byteclub/photos")
        XCTAssertEqual(ClubPath.resolve("Trip plan.md", in: "/byteclub"), "/byteclub/Trip plan.md")
        XCTAssertEqual(ClubPath.resolve("/", in: "/byteclub"), "")
        XCTAssertEqual(ClubPath.resolve("/other/x.md", in: "/byteclub"), "/other/x.md")
        XCTAssertEqual(ClubPath.resolve("notes", in: "/club b"), "/club b/notes")
    }

    /// Which note answers is the one resolver's (the core's NoteResolver, NoteResolverTests);
    /// a command asks it through ``NoteName/find(_:in:clubFolder:aliases:)``.
    func testANoteAnswersToItsNameOrTitleInAnyCase() {
        func answers(_ typed: String, _ name: String) -> Bool {
            let entry = RemoteEntry(kind: .file, name: name, path: "/byteclub/" + name)
            return NoteResolver(entries: [entry], root: "/byteclub").resolve(typed, from: nil) == .one(entry)
        }
        XCTAssertTrue(answers("Trip plan", "Trip plan.md"))
        XCTAssertTrue(answers("trip PLAN", "Trip plan.txt"))
        XCTAssertTrue(answers("Trip plan.md", "trip plan.md"))
        XCTAssertTrue(answers("Trip plan.txt", "Trip plan.md"), "with or without the extension the app hides")
        XCTAssertFalse(answers("Trip", "Trip plan.md"))
        XCTAssertFalse(answers("alps", "alps.jpg"), "a photo is not a note")
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
