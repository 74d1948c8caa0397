import Foundation
import XCTest

/// Every backend answers alike (issue 54): one table of operations through the CLI, each with
/// the answer every store must give (exit status and sentence). `ConformanceCLITests` runs it
/// against `byteclub serve`, `rclone serve webdav` and Dropbox mode; the journeys run it on an
/// encrypted club. What a backend cannot do it says in one documented way (exit 1, "Not
/// supported by this remote: …"); where a backend's own rules differ (a WebDAV server's
/// case-sensitive names), docs/webdav.md says so and the case says what it answers there.
public enum Conformance {
    /// How a backend differs from the table, where docs say it does.
    public struct Differences: Sendable {
        /// Cannot tag, keep history or make share links (WebDAV).
        public var lacksClubFeatures = false
        /// Names that differ only in case are two files (a WebDAV server on a case-sensitive disk).
        public var caseSensitiveNames = false
        /// A share link publishes a decrypted copy only when asked (`--decrypted`), else exit 64
        /// saying so (an encrypted club, docs/cli.md).
        public var sharesOnlyDecryptedOnRequest = false

        public init(lacksClubFeatures: Bool = false, caseSensitiveNames: Bool = false, sharesOnlyDecryptedOnRequest: Bool = false) {
            self.lacksClubFeatures = lacksClubFeatures
            self.caseSensitiveNames = caseSensitiveNames
            self.sharesOnlyDecryptedOnRequest = sharesOnlyDecryptedOnRequest
        }
    }

    /// One command's end, as the table compares it.
    public struct Answer: Sendable {
        public var status: Int32
        public var stdout: String
        public var stderr: String

        public init(status: Int32, stdout: String, stderr: String) {
            self.status = status
            self.stdout = stdout
            self.stderr = stderr
        }
    }

    private struct Case {
        var title: String
        var arguments: [String]
        var status: Int32
        var says: String?
        /// Tags, history, share links: what a backend without them says it cannot do.
        var clubFeature = false
        var caseOnly = false
    }

    /// Seeds an empty club folder (a note, a second note, a note in a folder), runs the table with
    /// `run` (a command line without the backend's own arguments), checks each answer, and
    /// returns the answers every backend must give word for word (by case), to compare across
    /// backends with ``assertAlike(_:_:file:line:)``.
    public static func check(_ name: String, differences: Differences = Differences(), scratch: URL,
                             run: ([String]) throws -> Answer, file: StaticString = #filePath, line: UInt = #line) throws -> [String: String] {
        let local = scratch.appendingPathComponent("conformance-\(name)")
        try FileManager.default.createDirectory(at: local, withIntermediateDirectories: true)
        let other = local.appendingPathComponent("Other.md"), fetched = local.appendingPathComponent("fetched.md")
        try "another text\n".write(to: other, atomically: true, encoding: .utf8)
        for (text, path) in [("the plan\n", "Plan.md"), ("second\n", "Second.md"), ("Day one in Lisbon\n", "Trips/Lisbon.md")] {
            let seed = local.appendingPathComponent("seed-\(UUID().uuidString).md")
            try text.write(to: seed, atomically: true, encoding: .utf8)
            let put = try run(["put", seed.path, "/byteclub/" + path])
            XCTAssertEqual(put.status, 0, "\(name): seeding \(path): \(put.stderr)", file: file, line: line)
        }
        let cases: [Case] = [
            Case(title: "a missing folder listed", arguments: ["ls", "Nowhere"], status: 3, says: "Not found"),
            Case(title: "a missing file fetched", arguments: ["get", "Missing.md", "-"], status: 3, says: "Not found"),
            Case(title: "a missing file deleted", arguments: ["rm", "Missing.md"], status: 3, says: "Not found"),
            Case(title: "a missing file moved", arguments: ["mv", "Missing.md", "Elsewhere.md"], status: 3, says: "Not found"),
            Case(title: "a file put over one there", arguments: ["put", other.path, "/byteclub/Plan.md"], status: 4, says: "already exists"),
            Case(title: "the same name in another case", arguments: ["put", other.path, "/byteclub/PLAN.md"], status: 4, says: "already exists",
                 caseOnly: true),
            Case(title: "a move onto a file there", arguments: ["mv", "Second.md", "Plan.md"], status: 4, says: "already exists"),
            Case(title: "a file listed as a folder", arguments: ["ls", "Plan.md"], status: 4, says: "is a file, not a folder"),
            Case(title: "a folder fetched as a file", arguments: ["get", "Trips", "-"], status: 4, says: "is a folder, not a file"),
            Case(title: "a folder with files deleted without -r", arguments: ["rm", "Trips"], status: 64, says: "use rm -r"),
            Case(title: "a note fetched", arguments: ["get", "Plan.md", fetched.path], status: 0),
            Case(title: "a note by its title, in a folder", arguments: ["cat", "Lisbon"], status: 0),
            Case(title: "a tag", arguments: ["tag", "Plan.md", "+red"], status: 0, clubFeature: true),
            Case(title: "a note's history", arguments: ["log", "Plan.md"], status: 0, clubFeature: true),
            Case(title: "a share link", arguments: ["share", "Plan.md"], status: 0, clubFeature: true),
            Case(title: "a rename in another case", arguments: ["mv", "Second.md", "SECOND.md"], status: 0),
            Case(title: "the renamed note read", arguments: ["get", "second.md", "-"], status: 0),
        ]
        var said: [String: String] = [:]
        for test in cases {
            let result = try run(test.arguments)
            let label = "\(name): \(test.title) (\(test.arguments.joined(separator: " ")))"
            if test.clubFeature, differences.lacksClubFeatures {
                XCTAssertEqual(result.status, 1, "\(label): \(result.stderr)", file: file, line: line)
                XCTAssertTrue(result.stderr.hasPrefix("byteclub: Not supported by this remote: "), "\(label): \(result.stderr)", file: file, line: line)
                continue
            }
            if test.arguments.first == "share", differences.sharesOnlyDecryptedOnRequest {
                XCTAssertEqual(result.status, 64, "\(label): \(result.stderr)", file: file, line: line)
                XCTAssertTrue(result.stderr.contains("add --decrypted to share it"), "\(label): \(result.stderr)", file: file, line: line)
                let decrypted = try run(test.arguments + ["--decrypted"])
                XCTAssertEqual(decrypted.status, 0, "\(label) --decrypted: \(decrypted.stderr)", file: file, line: line)
                continue
            }
            if test.caseOnly, differences.caseSensitiveNames {
                XCTAssertEqual(result.status, 0, "\(label): two names, two files: \(result.stderr)", file: file, line: line)
                continue
            }
            XCTAssertEqual(result.status, test.status, "\(label): \(result.stdout) \(result.stderr)", file: file, line: line)
            if let says = test.says { XCTAssertTrue(result.stderr.contains(says), "\(label): \(result.stderr)", file: file, line: line) }
            // Where the scratch folder is named (`get`'s "saved …"), it is each backend's own.
            if !test.clubFeature { said[test.title] = "\(result.status) " + sentence(result).replacingOccurrences(of: local.path, with: "LOCAL") }
        }
        XCTAssertEqual(try? String(contentsOf: fetched, encoding: .utf8), "the plan\n", "\(name): the note came back as it was put", file: file, line: line)
        return said
    }

    /// Two backends' answers are the same word for word, for every case both answer alike (a
    /// documented difference is checked on its own by ``check``).
    public static func assertAlike(_ one: [String: String], _ other: [String: String], file: StaticString = #filePath, line: UInt = #line) {
        let common = Set(one.keys).intersection(other.keys)
        XCTAssertGreaterThanOrEqual(common.count, 10, "most of the table is compared", file: file, line: line)
        for title in common.sorted() {
            XCTAssertEqual(one[title], other[title], "the same answer to \(title)", file: file, line: line)
        }
    }

    /// The answer's last stderr line, compared whole, but for the warning a server without
    /// history adds to a delete (docs/cli.md: WebDAV's deletes cannot be undone).
    private static func sentence(_ result: Answer) -> String {
        let line = result.stderr.split(separator: "\n").last.map(String.init) ?? ""
        return line.replacingOccurrences(of: " (this server keeps no history: they could not be restored)", with: "")
    }
}
