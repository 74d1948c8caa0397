import Foundation
import TestSupport
import XCTest

/// The notes list of a big club walked whole in a real terminal (issue 56): 20,000 notes in 500
/// folders on a `byteclub serve`, the list's rows made as they are drawn (``NoteRows``). Ray's
/// app scrolls the club's folder from its first folder to its last, opens each, pages it from
/// its first note to its last and reads every row; meanwhile ann adds a note to a folder ray has
/// not reached yet and deletes one from another. Each folder's rows must be exactly its notes on
/// the server's disk, in the list's order: the new note where the order puts it, the deleted
/// one gone and its neighbours side by side.
final class PagedListEndToEndTests: XCTestCase {
    static let folders = 500
    static let notesPerFolder = 40
    var club: TwoMemberClub!

    override func tearDown() {
        club?.close()
    }

    static func folderName(_ f: Int) -> String { String(format: "Shelf %03d", f) }
    static func noteTitle(_ f: Int, _ n: Int) -> String { String(format: "S%03d N%02d", f, n) }

    static func seed(_ folder: URL) throws {
        for f in 0..<folders {
            let shelf = folder.appendingPathComponent(folderName(f))
            try FileManager.default.createDirectory(at: shelf, withIntermediateDirectories: true)
            for n in 0..<notesPerFolder {
                let title = noteTitle(f, n)
                try Data("\(title): kept on the shelf\n".utf8).write(to: shelf.appendingPathComponent(title + ".md"))
            }
        }
    }

    func testEveryNoteOfTwentyThousandInFiveHundredFoldersIsListedInItsPlaceWhileAnotherMemberAddsAndDeletes() throws {
        club = try TwoMemberClub(serverLog: false, seed: Self.seed)
        try BigClubEndToEndTests.warm(club)
        let ray = try club.launch(.ray)
        ray.waitFor("the club's folders") { $0.contains(Self.folderName(0) + "/") }
        try ray.press("Home")

        let added = (folder: 400, title: "S400 N99 added by ann")
        let deleted = (folder: 450, title: Self.noteTitle(450, 17))
        for f in 0..<Self.folders {
            if f == 100 {
                // Ann changes two folders ray has not reached: one note more, one less.
                let file = club.base.appendingPathComponent("\(added.title).md")
                try Data("\(added.title)\n".utf8).write(to: file)
                let ann = club.token(of: .ann)
                let put = try club.app(.ann).cli(["put", file.path, "/byteclub/\(Self.folderName(added.folder))/\(added.title).md",
                                                  "--server", club.url, "--token", ann])
                XCTAssertEqual(put.status, 0, put.stderr)
                let rm = try club.app(.ann).cli(["rm", "/byteclub/\(Self.folderName(deleted.folder))/\(deleted.title).md",
                                                 "--server", club.url, "--token", ann])
                XCTAssertEqual(rm.status, 0, rm.stderr)
            }
            let expected = listOrder(of: Self.folderName(f))
            let seen = try readFolder(f, in: ray, expecting: expected)
            XCTAssertEqual(seen, expected, "the rows of \(Self.folderName(f))")
            if f == added.folder { XCTAssertEqual(seen.first, added.title, "the newest note first") }
            if f == deleted.folder {
                XCTAssertFalse(seen.contains(deleted.title))
                XCTAssertEqual(seen.count, Self.notesPerFolder - 1)
            }
            guard seen == expected else { return }
            // Back to the club's folder, its row selected again, and down to the next.
            try ray.press("BSpace")
            ray.waitFor("the club's folder again") { Self.titles(in: $0).isEmpty && $0.contains(Self.folderName(f) + "/") }
            if f + 1 < Self.folders { try ray.press("j") }
        }
        // The club's folder scrolled to its last row on the way.
        XCTAssertTrue(ray.capture().contains(Self.folderName(Self.folders - 1) + "/"))
    }

    /// Opens folder `f` (its row selected) and pages it to its end: the note titles its rows
    /// showed, in order. Each screen is read once it shows a whole run of rows from the top or
    /// to the end (a notice of ann's change may cover two rows for a moment).
    private func readFolder(_ f: Int, in tmux: TmuxSession, expecting expected: [String]) throws -> [String] {
        let page = min(expected.count, 20)
        try tmux.press("Enter")
        let top = tmux.waitFor("the first rows of \(Self.folderName(f))") { screen in
            let titles = Self.titles(in: screen)
            return titles.count >= page && titles == Array(expected.prefix(titles.count))
        }
        var seen = Self.titles(in: top)
        let isEnd = { (screen: String) -> Bool in
            let titles = Self.titles(in: screen)
            return titles.count >= page && titles == Array(expected.suffix(titles.count))
        }
        // The app shows a listing's first page while the rest comes (a folder on a page's edge,
        // Shelf 048 at the 2,000th entry, shows its first rows first). The whole listing took
        // 3 s here alone and 26 s beside four other test processes, while the walk got to
        // Shelf 048 in a few: a folder whose end is not listed yet waits for the listing's end,
        // with a deadline of its own, and then pages.
        if !isEnd(top), top.contains("Loading notes") {
            tmux.waitFor("the rest of the club's listing", timeout: BigClubEndToEndTests.wholeListing) { !$0.contains("Loading notes") }
        }
        // The rest may still come after the keys, so the keys go again until the last rows show.
        let deadline = Date().addingTimeInterval(20)
        var end: String?
        while end == nil, Date() < deadline {
            try tmux.press("NPage")
            try tmux.press("NPage")
            let pressed = Date()
            repeat {
                let screen = tmux.capture()
                if isEnd(screen) { end = screen; break }
                // A short poll interval, not a wait for something to happen.
                usleep(20_000)
            } while Date().timeIntervalSince(pressed) < 2
        }
        let last = end ?? tmux.waitFor("the last rows of \(Self.folderName(f))", timeout: 1, isEnd)
        for title in Self.titles(in: last) where !seen.contains(title) { seen.append(title) }
        return seen
    }

    /// The note titles on `screen`, top to bottom.
    static func titles(in screen: String) -> [String] {
        screen.split(separator: "\n").compactMap { line in
            guard let range = line.range(of: #"(?<!")S[0-9]{3} N[0-9]{2}( added by ann)?"#, options: .regularExpression) else { return nil }
            return String(line[range])
        }
    }

    /// The titles of `folder`'s notes on the server's disk, in the list's order: newest first by
    /// the server's time (the file's ctime, in whole seconds), then by path.
    func listOrder(of folder: String) -> [String] {
        let directory = club.notesFolder.appendingPathComponent(folder)
        let names = ((try? FileManager.default.contentsOfDirectory(atPath: directory.path)) ?? []).filter { $0.hasSuffix(".md") }
        var dated: [(seconds: Int, name: String)] = []
        for name in names {
            var info = stat()
            _ = stat(directory.appendingPathComponent(name).path, &info)
            dated.append((Int(info.st_ctim.tv_sec), name))
        }
        dated.sort { a, b in a.seconds != b.seconds ? a.seconds > b.seconds : a.name.lowercased() < b.name.lowercased() }
        return dated.map { String($0.name.dropLast(3)) }
    }
}
