import Foundation
import XCTest

/// Issue 69: the command line parses, asks and prints; what it reads and writes of a club goes
/// through the core (`Backend`'s reads, `backend.writes`). This reads the command line's
/// sources and fails on any line that reaches for the store itself, so a command cannot again
/// write around the rules the app follows.
final class ShellHoldsNoStoreTests: XCTestCase {
    /// What holding the store looks like in a source line: the backend's store, a store passed
    /// in, or one made from it.
    static let forbidden = [#"\.store\b"#, #"\bany RemoteStore\b"#, #"\bstore:\s"#, #"\bsharingStore\("#]

    func testTheCommandLineMakesNoStoreCall() throws {
        let (read, found) = try Self.lines(in: ["ClubCLI"], matching: Self.forbidden)
        XCTAssertGreaterThan(read, 10, "the command line's sources are under Sources/ClubCLI")
        XCTAssertEqual(found, [], "the command line reaches for the store; go through Backend's reads or backend.writes")
    }

    /// The code lines (not documentation or comments, which may name the store) of the Swift
    /// files in `shells` (folders of Sources/) that match any of `patterns`, as
    /// `SHELL/FILE:LINE: code`; and how many files were read.
    static func lines(in shells: [String], matching patterns: [String]) throws -> (read: Int, found: [String]) {
        let sources = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("../../Sources").standardized
        let regexes = try patterns.map { try NSRegularExpression(pattern: $0) }
        var found: [String] = [], read = 0
        for shell in shells {
            let folder = sources.appendingPathComponent(shell)
            for file in try FileManager.default.contentsOfDirectory(at: folder, includingPropertiesForKeys: nil) where file.pathExtension == "swift" {
                read += 1
                for (number, line) in try String(contentsOf: file, encoding: .utf8).components(separatedBy: "\n").enumerated() {
                    let code = line.trimmingCharacters(in: .whitespaces)
                    let range = NSRange(code.startIndex..., in: code)
                    guard !code.hasPrefix("//"), regexes.contains(where: { $0.firstMatch(in: code, range: range) != nil }) else { continue }
                    found.append("\(shell)/\(file.lastPathComponent):\(number + 1): \(code)")
                }
            }
        }
        return (read, found)
    }

    /// A write made on a store itself, not through the write path (`writes.delete(…)`): an
    /// upload, delete, move, new folder, restore, copy, tag or link, on anything named a store.
    static let storeWrite = #"\b\w*[sS]tore\w*\)?\??\.(upload|delete|move|createFolder|restore|copy|addTags?|removeTag|createSharedLink|revokeSharedLink)\("#

    /// The app reads the club through its store (listings, pictures, thumbnails), but writes
    /// only through the core's write path (`context.writes`, `OutboxSender.Direct`), as the
    /// command line does: its sources and the executable's hold no store write.
    func testTheAppWritesOnlyThroughTheCoresWritePath() throws {
        let (read, found) = try Self.lines(in: ["ByteClubApp", "byteclub", "ClubCLI"], matching: [Self.storeWrite])
        let regex = try NSRegularExpression(pattern: Self.storeWrite)
        XCTAssertGreaterThan(read, 100, "the shells' sources are under Sources/")
        XCTAssertEqual(found, [], "a shell writes on the store itself; write through the core's write path (writes)")
        // The pattern catches a store write, and leaves the write path's.
        for line in ["try await context.store.delete(entry.path)", "(store as? any SharingStore)?.createSharedLink(path, expires: nil)",
                     "try await remoteStore.upload(data: data, to: path, mode: .add, autorename: false)"] {
            XCTAssertNotNil(regex.firstMatch(in: line, range: NSRange(line.startIndex..., in: line)), line)
        }
        for line in ["try await writes.delete(entry.path)", "try await backend.writes.move(from: a, to: b, autorename: false)"] {
            XCTAssertNil(regex.firstMatch(in: line, range: NSRange(line.startIndex..., in: line)), line)
        }
    }

    /// The check itself: each pattern catches the line it is for.
    func testEachPatternCatchesWhatItIsFor() throws {
        let lines = ["let (data, entry) = try await backend.store.read(path)",
                     "static func listTagged(_ folder: String, store: any RemoteStore)",
                     "FolderTransfer(store: backend, streams: nil)",
                     "let links = try sharingStore(x)"]
        for (line, pattern) in zip(lines, Self.forbidden) {
            let regex = try NSRegularExpression(pattern: pattern)
            XCTAssertNotNil(regex.firstMatch(in: line, range: NSRange(line.startIndex..., in: line)), "\(pattern) on \(line)")
        }
        let clean = "let (data, entry) = try await backend.read(path)"
        for pattern in Self.forbidden {
            XCTAssertNil(try NSRegularExpression(pattern: pattern).firstMatch(in: clean, range: NSRange(clean.startIndex..., in: clean)))
        }
    }
}
