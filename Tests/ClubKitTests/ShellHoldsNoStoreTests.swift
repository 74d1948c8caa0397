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
        let folder = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("../../Sources/ClubCLI").standardized
        let files = try FileManager.default.contentsOfDirectory(at: folder, includingPropertiesForKeys: nil).filter { $0.pathExtension == "swift" }
        XCTAssertGreaterThan(files.count, 10, "the command line's sources are at \(folder.path)")
        let patterns = try Self.forbidden.map { try NSRegularExpression(pattern: $0) }
        var found: [String] = []
        for file in files {
            let lines = try String(contentsOf: file, encoding: .utf8).components(separatedBy: "\n")
            for (number, line) in lines.enumerated() {
                let code = line.trimmingCharacters(in: .whitespaces)
                // Documentation and comments may name the store; code may not use it.
                guard !code.hasPrefix("//") else { continue }
                let range = NSRange(code.startIndex..., in: code)
                if patterns.contains(where: { $0.firstMatch(in: code, range: range) != nil }) {
                    found.append("\(file.lastPathComponent):\(number + 1): \(code)")
                }
            }
        }
        XCTAssertEqual(found, [], "the command line reaches for the store; go through Backend's reads or backend.writes")
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
