import Foundation
import TestSupport
import XCTest

/// Every backend answers alike (issue 54): one table of operations, each with the answer every
/// store must give (exit status and sentence), run through the CLI against real servers on
/// loopback: `byteclub serve` (club mode), `rclone serve webdav`, and the Dropbox store against
/// `byteclub serve` in Dropbox mode (`--dropbox --dropbox-api`); the table is `Conformance`'s
/// (TestSupport), which the journeys also run on an encrypted club. The answers are compared
/// across backends, so a difference fails even where the table is silent.
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

    override func setUpWithError() throws {
        try Requirement.tool(RcloneWebDAV.executable != nil, "rclone is not installed (make deps)")
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

    func testEveryOperationGetsTheSameAnswerFromEveryBackend() throws {
        var answers: [String: [String: String]] = [:]
        for backend in try backends() {
            let differences = backend.name == "webdav" ? Conformance.Differences(lacksClubFeatures: true, caseSensitiveNames: true)
                : Conformance.Differences()
            answers[backend.name] = try Conformance.check(backend.name, differences: differences, scratch: cli.directory) { arguments in
                let result = try run(arguments, on: backend)
                return Conformance.Answer(status: result.status, stdout: result.stdout, stderr: result.stderr)
            }
        }
        // Word for word: the same mistake, the same sentence, on every backend.
        Conformance.assertAlike(answers["webdav"] ?? [:], answers["club"] ?? [:])
        Conformance.assertAlike(answers["dropbox"] ?? [:], answers["club"] ?? [:])
    }
}
