import ClubKit
import Foundation
import XCTest

/// What `import` finds in a vault (issue 53 §7): every file, each a note, a picture or another
/// file; hidden entries left out with a line; what cannot come (a FIFO, a symbolic link) named,
/// and never opened.
final class VaultFilesTests: XCTestCase {
    private var vault: URL!

    override func setUpWithError() throws {
        vault = FileManager.default.temporaryDirectory.appendingPathComponent("vault-files-\(UUID().uuidString)/Sailing")
        try FileManager.default.createDirectory(at: vault, withIntermediateDirectories: true)
    }

    override func tearDown() {
        try? FileManager.default.removeItem(at: vault.deletingLastPathComponent())
    }

    private func write(_ relative: String, _ text: String) throws {
        let file = vault.appendingPathComponent(relative)
        try FileManager.default.createDirectory(at: file.deletingLastPathComponent(), withIntermediateDirectories: true)
        try Data(text.utf8).write(to: file)
    }

    func testEveryFileIsANoteAPictureOrAnotherFile() throws {
        try write("Welcome.md", "# Welcome\n")
        try write("Trips/Day one.txt", "Day one\n")
        try write("assets/deck.JPG", "jpeg")
        try write("assets/shot.png", "png")
        try write("paper.pdf", "%PDF")
        try write("icons/logo.svg", "<svg/>")
        try write("audio/song.mp3", "mp3")
        try write("data/settings.json", "{}")
        try write("Plans/route.canvas", "{}")
        try write("README", "no extension")
        try write(".obsidian/app.json", "{}")
        try write(".DS_Store", "")
        try write("Trips/.trash/old.md", "gone")

        let found = VaultFiles(walking: vault)
        XCTAssertEqual(found.name, "Sailing")
        XCTAssertEqual(found.files.map(\.relative), ["Plans/route.canvas", "README", "Trips/Day one.txt", "Welcome.md", "assets/deck.JPG",
                                                     "assets/shot.png", "audio/song.mp3", "data/settings.json", "icons/logo.svg", "paper.pdf"])
        let kinds = Dictionary(uniqueKeysWithValues: found.files.map { ($0.relative, $0.kind) })
        XCTAssertEqual(kinds["Welcome.md"], .note)
        XCTAssertEqual(kinds["Trips/Day one.txt"], .note)
        XCTAssertEqual(kinds["assets/deck.JPG"], .picture)
        XCTAssertEqual(kinds["assets/shot.png"], .picture)
        for other in ["paper.pdf", "icons/logo.svg", "audio/song.mp3", "data/settings.json", "Plans/route.canvas", "README"] {
            XCTAssertEqual(kinds[other], .other, other)
        }
        XCTAssertEqual(found.files.first { $0.relative == "paper.pdf" }?.size, 4)
        XCTAssertEqual(found.files.first { $0.relative == "Trips/Day one.txt" }?.components, ["Trips", "Day one.txt"])
        XCTAssertEqual(found.hidden, [".DS_Store", ".obsidian/", "Trips/.trash/"])
        XCTAssertEqual(found.leftOut, [])
        XCTAssertEqual(found.skippedLines(), ["skipped .obsidian/ (Obsidian's settings, not notes)", "skipped .DS_Store, Trips/.trash/ (hidden)"])
        XCTAssertEqual(VaultFiles.summary([.note: 2, .picture: 1, .other: 6]), "2 notes, 1 picture and 6 other files")
        XCTAssertEqual(VaultFiles.summary([.other: 1]), "0 notes, 0 pictures and 1 other file")
    }

    func testAFIFOAndALinkAreNamedAndNeverOpened() throws {
        try write("Note.md", "Listen: [[stream.mp3]]\n")
        try write("paper.pdf", "%PDF")
        try FileManager.default.createDirectory(at: vault.appendingPathComponent("audio"), withIntermediateDirectories: true)
        // Opened for reading, a FIFO with no writer blocks: the walk must only lstat it.
        XCTAssertEqual(mkfifo(vault.appendingPathComponent("audio/stream.mp3").path, 0o644), 0)
        try FileManager.default.createSymbolicLink(atPath: vault.appendingPathComponent("link.pdf").path, withDestinationPath: "paper.pdf")

        let found = VaultFiles(walking: vault)
        XCTAssertEqual(found.files.map(\.relative), ["Note.md", "paper.pdf"])
        XCTAssertEqual(found.leftOut.map(\.relative), ["audio/stream.mp3", "link.pdf"])
        XCTAssertEqual(found.leftOut.first?.reason, "a FIFO, not a file")
        XCTAssertTrue(found.leftOut.last?.reason.hasPrefix("a symbolic link") == true, found.leftOut.last?.reason ?? "")
    }

    func testTheClubsOwnFoldersAreNotMembersFiles() {
        XCTAssertTrue(VaultFiles.isClubsOwn([".byteclub", "import.json"]))
        XCTAssertTrue(VaultFiles.isClubsOwn(["Sailing", ".byteclub", "import.json"]))
        XCTAssertTrue(VaultFiles.isClubsOwn([".clubkeys", "roster.age"]))
        XCTAssertTrue(VaultFiles.isClubsOwn([".byteclub-upload-1234"]))
        XCTAssertFalse(VaultFiles.isClubsOwn(["Sailing", "paper.pdf"]))
        XCTAssertFalse(VaultFiles.isClubsOwn([".obsidian", "app.json"]), "a member's hidden file is the member's")
    }
}
