import Foundation
import Imaging
import TestSupport
import XCTest

/// Transfers that outlive the app: three uploads running, `q`, Enter (the question's default
/// is "Background"); the agent carries them on. A new run of the app shows them in the
/// Transfers panel at their current percentage, and `byteclub transfers --wait` sees them
/// finish, byte for byte. Nothing is killed on the way.
final class BackgroundAgentEndToEndTests: XCTestCase {
    var app: AppHarness!

    override func setUpWithError() throws {
        app = try AppHarness()
    }

    override func tearDown() {
        // The agent leaves by itself once idle (1 s here); a failed test's agent is killed.
        if let locks = try? FileManager.default.contentsOfDirectory(atPath: runtime.appendingPathComponent("byteclub").path) {
            for lock in locks where lock.hasSuffix(".lock") {
                let pid = (try? String(contentsOfFile: runtime.appendingPathComponent("byteclub/" + lock).path, encoding: .utf8))
                    .flatMap { pid_t($0.trimmingCharacters(in: .whitespacesAndNewlines)) }
                if let pid, pid > 0 { kill(pid, SIGKILL) }
            }
        }
        app.close()
    }

    var runtime: URL { app.base.appendingPathComponent("run") }
    var photos: URL { app.club.appendingPathComponent("byteclub/photos") }

    /// Three photos of 3 MB (a small noisy JPEG, then random bytes after its end marker, so the
    /// app takes it as a photo): at 300 KB/s each takes about ten seconds.
    func makeTrip() throws -> [URL] {
        let trip = app.home.appendingPathComponent("trip")
        try FileManager.default.createDirectory(at: trip, withIntermediateDirectories: true)
        var generator = SystemRandomNumberGenerator()
        return try (1...3).map { n in
            let pixels = (0..<(64 * 32 * 3)).map { _ in UInt8.random(in: 0...255, using: &generator) }
            var data = try JPEG.encode(RGBImage(width: 64, height: 32, pixels: pixels), quality: 80)
            data.append(contentsOf: (0..<((3 << 20) - data.count)).map { _ in UInt8.random(in: 0...255, using: &generator) })
            let url = trip.appendingPathComponent("trip-\(n).jpg")
            try data.write(to: url)
            return url
        }
    }

    /// The panel's row of `name`: its percentage and state.
    func row(_ name: String, in screen: String) -> (percent: Int?, state: String)? {
        guard let line = screen.split(separator: "\n").first(where: { $0.contains(name) && !$0.contains("? help") }) else { return nil }
        let text = String(line)
        var percent: Int?
        if let range = text.range(of: #"\d{1,3}%"#, options: .regularExpression) { percent = Int(text[range].dropLast()) }
        let state = ["queued", "running", "paused", "done", "failed", "cancelled"].first { text.contains(" \($0)") } ?? ""
        return (percent, state)
    }

    func testQuittingToTheBackgroundKeepsThreeUploadsGoing() throws {
        try prepareClub()
        // A club server of its own: the agent and the app reach the same one, as a LAN club does.
        let server = try ServeProcess(root: app.club, token: "e2e-agent-token")
        try quitToTheBackgroundAndBack(remote: ["--server", server.url, "--token", "e2e-agent-token"])
        withExtendedLifetime(server) {}
    }

    /// The default club, embedded: the agent serves the folder itself, and reopening the app
    /// starts a second server over the same folder, which must leave the agent's uploads in
    /// flight alone (ClubServer's `servers.lock`).
    func testQuittingToTheBackgroundOnTheEmbeddedClub() throws {
        try prepareClub()
        try quitToTheBackgroundAndBack(remote: ["--data-dir", app.club.path])
    }

    func prepareClub() throws {
        try FileManager.default.createDirectory(at: runtime, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        try FileManager.default.createDirectory(at: photos, withIntermediateDirectories: true)
        try Data("hi\n".utf8).write(to: app.club.appendingPathComponent("byteclub/Hello agent.txt"))
    }

    /// Three uploads, `q` Enter, the app reopened mid-way, `transfers --wait`, the bytes compared.
    func quitToTheBackgroundAndBack(remote: [String]) throws {
        let files = try makeTrip()
        let club = remote + ["--download-dir", app.downloads.path]
        let tmux = try app.launch(club + ["--bwlimit", "300K"],
                                  environment: ["XDG_RUNTIME_DIR": runtime.path, "BYTECLUB_AGENT_IDLE_SECONDS": "1"])
        tmux.waitFor("Hello agent")
        try tmux.type("2")
        tmux.waitFor("PanoPhotos")
        try tmux.type("u")
        tmux.waitFor("Upload a photo")
        try tmux.type(files[0].deletingLastPathComponent().path)
        try tmux.press("Enter")
        tmux.waitFor("trip-3.jpg")
        try tmux.type("*")
        tmux.waitFor("3 marked · Enter upload them")
        try tmux.press("Enter")
        tmux.waitFor("Uploading 3 photos")

        // q: the question names the background, which Enter chooses.
        try tmux.type("q")
        tmux.waitFor("Keep them going in the background?")
        XCTAssertTrue(tmux.capture().contains("Background"))
        try tmux.press("Enter")
        tmux.waitFor(app.exitLine(0))
        guard tmux.capture().contains(app.exitLine(0)) else {
            let agentLogs = (try? FileManager.default.contentsOfDirectory(atPath: app.state.appendingPathComponent("agent").path)) ?? []
            return XCTFail("the app did not hand over and quit; its log:\n" + String((AppHarness.text(app.log) ?? "").suffix(3000))
                + "\nagent folder: \(agentLogs)\n" + agentLogs.map { AppHarness.text(app.state.appendingPathComponent("agent/" + $0)) ?? "" }.joined())
        }

        // Reopened mid-way: the agent's three uploads, each at its own percentage, moving.
        try app.launch(club)
        tmux.waitFor("Hello agent")
        try tmux.type("T")
        tmux.waitFor("Esc/c cancel · p pause/resume")
        tmux.waitFor("three running rows part-way") { screen in
            let rows = (1...3).compactMap { self.row("trip-\($0).jpg", in: screen) }
            return rows.count == 3 && rows.allSatisfy { $0.state == "running" && (1...99).contains($0.percent ?? 0) }
        }
        XCTAssertTrue(tmux.capture().contains("↑3"), "the status bar sums them:\n" + tmux.capture())
        try tmux.type("T")
        try tmux.type("q")
        tmux.waitFor(app.exitLine(0))

        // A script waits for them: exit 0 once all three are done, and the bytes are the same.
        let binary = try AppHarness.binary
        try tmux.type(([binary.path, "transfers", "--wait"] + remote).map(TmuxSession.quote).joined(separator: " ") + "; echo \"WAITED=$?\"")
        try tmux.press("Enter")
        tmux.waitFor("WAITED=0", timeout: 40)
        for (n, file) in files.enumerated() {
            XCTAssertEqual(try Data(contentsOf: photos.appendingPathComponent("trip-\(n + 1).jpg")), try Data(contentsOf: file))
        }
    }
}
