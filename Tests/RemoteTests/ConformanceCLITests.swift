import Foundation
import TestSupport
import XCTest

/// Every backend answers alike (issue 54): one table of operations, each with the answer every
/// store must give (exit status and sentence), run through the CLI against real servers on
/// loopback: `byteclub serve` (club mode), `rclone serve webdav`, and the Dropbox store against
/// `byteclub serve` in Dropbox mode (`--dropbox --dropbox-api`). What a backend cannot do
/// (tags, history, share links on WebDAV) it says in one documented way: exit 1, "Not supported
/// by this remote: …". The answers are compared across backends, so a difference fails even
/// where the table is silent.
final class ConformanceCLITests: XCTestCase {
    private var base: URL!
    private var cli: CLI!
    private var serve: ServeProcess?
    /// Dropbox mode's own club, so each backend starts from the same empty folder.
    private var dropboxServe: ServeProcess?
    private var webdav: RcloneWebDAV?

    private struct Backend {
        var name: String
        var arguments: [String]
        var environment: [String: String] = [:]
    }

    /// One operation: what runs, and the answer every backend gives. `unsupportedOnWebDAV`: a
    /// thing WebDAV cannot do, said the documented way (exit 1, "Not supported by this
    /// remote: …"); `onWebDAV`: where a WebDAV server's own rules differ, as docs/webdav.md says.
    private struct Case {
        var title: String
        var arguments: [String]
        var status: Int32
        var says: String?
        var unsupportedOnWebDAV: Bool = false
        var onWebDAV: (status: Int32, says: String?)?
    }

    override func setUpWithError() throws {
        guard RcloneWebDAV.executable != nil else { throw XCTSkip("rclone is not installed (make deps)") }
        base = FileManager.default.temporaryDirectory.appendingPathComponent("conformance-\(UUID().uuidString)")
        cli = try CLI.isolated(in: base)
        let root = base.appendingPathComponent("served")
        try FileManager.default.createDirectory(at: root.appendingPathComponent("byteclub"), withIntermediateDirectories: true)
        serve = try ServeProcess(root: root, token: "owner-token-1", arguments: ["--member", "ann=ann-token-1"])
        let dropboxRoot = base.appendingPathComponent("served-dropbox")
        try FileManager.default.createDirectory(at: dropboxRoot.appendingPathComponent("byteclub"), withIntermediateDirectories: true)
        dropboxServe = try ServeProcess(root: dropboxRoot, token: "owner-token-1", arguments: ["--member", "ann=ann-token-1"])
        let dav = try RcloneWebDAV()
        webdav = dav
        try FileManager.default.createDirectory(at: dav.file("byteclub"), withIntermediateDirectories: true)
    }

    override func tearDown() {
        serve = nil
        dropboxServe = nil
        webdav?.remove()
        webdav = nil
        if let base { try? FileManager.default.removeItem(at: base) }
    }

    private func backends() throws -> [Backend] {
        let serve = try XCTUnwrap(serve), dav = try XCTUnwrap(webdav), dropbox = try XCTUnwrap(dropboxServe)
        // Dropbox mode: the login a `byteclub login dropbox` leaves, for the same served club.
        let state = URL(fileURLWithPath: try XCTUnwrap(cli.environment["XDG_STATE_HOME"])).appendingPathComponent("byteclub")
        try FileManager.default.createDirectory(at: state, withIntermediateDirectories: true)
        let login: [String: Any] = ["access_token": "ann-token-1", "refresh_token": "refresh", "account_id": "dbid:Conformance1",
                                    "expires_at": Int(Date().timeIntervalSince1970) + 3600, "app_key": "test-app"]
        try JSONSerialization.data(withJSONObject: login).write(to: state.appendingPathComponent("tokens.json"))
        return [Backend(name: "club", arguments: ["--server", serve.url, "--token", "ann-token-1"]),
                Backend(name: "webdav", arguments: ["--webdav", dav.url.absoluteString, "--user", dav.user],
                        environment: ["BYTECLUB_WEBDAV_PASSWORD": dav.password]),
                Backend(name: "dropbox", arguments: ["--dropbox", "--dropbox-api", dropbox.url])]
    }

    private func run(_ arguments: [String], on backend: Backend) throws -> CLI.Result {
        let cli = CLI(environment: self.cli.environment.merging(backend.environment) { $1 }, directory: self.cli.directory)
        return try cli.run(arguments + backend.arguments)
    }

    /// The answer's last stderr line, compared whole, but for the warning a server without
    /// history adds to a delete (docs/cli.md: WebDAV's deletes cannot be undone).
    private static func sentence(_ result: CLI.Result) -> String {
        let line = result.stderr.split(separator: "\n").last.map(String.init) ?? ""
        return line.replacingOccurrences(of: " (this server keeps no history: they could not be restored)", with: "")
    }

    func testEveryOperationGetsTheSameAnswerFromEveryBackend() throws {
        let local = cli.directory.appendingPathComponent("conformance")
        try FileManager.default.createDirectory(at: local, withIntermediateDirectories: true)
        let plan = local.appendingPathComponent("Plan.md"), other = local.appendingPathComponent("Other.md")
        try "the plan\n".write(to: plan, atomically: true, encoding: .utf8)
        try "another text\n".write(to: other, atomically: true, encoding: .utf8)
        let fetched = local.appendingPathComponent("fetched.md")

        // Each backend starts from the same club: a note, a note in a folder, a second note.
        let cases: [Case] = [
            Case(title: "a missing folder listed", arguments: ["ls", "Nowhere"], status: 3, says: "Not found"),
            Case(title: "a missing file fetched", arguments: ["get", "Missing.md", "-"], status: 3, says: "Not found"),
            Case(title: "a missing file deleted", arguments: ["rm", "Missing.md"], status: 3, says: "Not found"),
            Case(title: "a missing file moved", arguments: ["mv", "Missing.md", "Elsewhere.md"], status: 3, says: "Not found"),
            Case(title: "a file put over one there", arguments: ["put", other.path, "/byteclub/Plan.md"], status: 4, says: "already exists"),
            // A WebDAV server on a case-sensitive disk keeps both names (docs/webdav.md).
            Case(title: "the same name in another case", arguments: ["put", other.path, "/byteclub/PLAN.md"], status: 4, says: "already exists",
                 onWebDAV: (0, nil)),
            Case(title: "a move onto a file there", arguments: ["mv", "Second.md", "Plan.md"], status: 4, says: "already exists"),
            Case(title: "a file listed as a folder", arguments: ["ls", "Plan.md"], status: 4, says: "is a file, not a folder"),
            Case(title: "a folder fetched as a file", arguments: ["get", "Trips", "-"], status: 4, says: "is a folder, not a file"),
            Case(title: "a folder with files deleted without -r", arguments: ["rm", "Trips"], status: 64, says: "use rm -r"),
            Case(title: "a note fetched", arguments: ["get", "Plan.md", fetched.path], status: 0, says: nil),
            Case(title: "a note by its title, in a folder", arguments: ["cat", "Lisbon"], status: 0, says: nil),
            Case(title: "a tag", arguments: ["tag", "Plan.md", "+red"], status: 0, says: nil, unsupportedOnWebDAV: true),
            Case(title: "a note's history", arguments: ["log", "Plan.md"], status: 0, says: nil, unsupportedOnWebDAV: true),
            Case(title: "a share link", arguments: ["share", "Plan.md"], status: 0, says: nil, unsupportedOnWebDAV: true),
        ]
        var answers: [String: [String]] = [:]
        for backend in try backends() {
            for (text, path) in [("the plan\n", "Plan.md"), ("second\n", "Second.md"), ("Day one in Lisbon\n", "Trips/Lisbon.md")] {
                let file = local.appendingPathComponent("seed-\(UUID().uuidString).md")
                try text.write(to: file, atomically: true, encoding: .utf8)
                let put = try run(["put", file.path, "/byteclub/" + path], on: backend)
                XCTAssertEqual(put.status, 0, "\(backend.name): seeding \(path): \(put.stderr)")
            }
            var said: [String] = []
            for test in cases {
                let result = try run(test.arguments, on: backend)
                let label = "\(backend.name): \(test.title) (\(test.arguments.joined(separator: " ")))"
                if backend.name == "webdav", test.unsupportedOnWebDAV {
                    XCTAssertEqual(result.status, 1, "\(label): \(result.stderr)")
                    XCTAssertTrue(result.stderr.hasPrefix("byteclub: Not supported by this remote: "), "\(label): \(result.stderr)")
                    continue
                }
                if backend.name == "webdav", let differs = test.onWebDAV {
                    XCTAssertEqual(result.status, differs.status, "\(label): \(result.stdout) \(result.stderr)")
                    if let says = differs.says { XCTAssertTrue(result.stderr.contains(says), "\(label): \(result.stderr)") }
                    continue
                }
                XCTAssertEqual(result.status, test.status, "\(label): \(result.stdout) \(result.stderr)")
                if let says = test.says { XCTAssertTrue(result.stderr.contains(says), "\(label): \(result.stderr)") }
                if !test.unsupportedOnWebDAV, test.onWebDAV == nil { said.append("\(test.title): \(result.status) \(Self.sentence(result))") }
            }
            XCTAssertEqual(try String(contentsOf: fetched, encoding: .utf8), "the plan\n", "\(backend.name): the note came back as it was put")
            answers[backend.name] = said
            // The next backend starts from nothing of this one's.
            try? FileManager.default.removeItem(at: fetched)
        }
        // Word for word: the same mistake, the same sentence, on every backend.
        XCTAssertEqual(answers["webdav"], answers["club"])
        XCTAssertEqual(answers["dropbox"], answers["club"])
    }
}
