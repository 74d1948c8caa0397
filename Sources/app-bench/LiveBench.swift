import ByteClubApp
import ClubServer
import Foundation
import Remote
import Synchronization
import TerminalUI
#if canImport(Glibc)
import Glibc
#endif

/// The live club: two members on one club server, ray committing and ann's app showing it.
///
/// `live`: from the answer to ray's commit to the first frame of ann's app (in this process,
/// a 120×36 GridCanvas drawn on the next turn of the main queue, as the terminal's coalesced
/// redraw is) that lists the new note, over 50 changes. `live-echo`: the release `byteclub` in
/// a pseudo-terminal as ann, key echo idle and then while ray commits a change every second.
@MainActor
enum LiveBench {
    /// A club server with members ray and ann over a temp folder.
    final class MembersClub: Sendable {
        let base: URL
        let server: ClubServer
        let rayToken = "bench-ray", annToken = "bench-ann"

        init() async throws {
            base = FileManager.default.temporaryDirectory.appendingPathComponent("app-bench-live-\(UUID().uuidString)")
            let folder = base.appendingPathComponent("club/byteclub")
            try FileManager.default.createDirectory(at: folder.appendingPathComponent("photos"), withIntermediateDirectories: true)
            try Data("Welcome to the live club.\n".utf8).write(to: folder.appendingPathComponent("Welcome.txt"))
            var configuration = ClubServerConfiguration(root: base.appendingPathComponent("club").path, token: "")
            configuration.members = [ClubMember(name: "ray", token: rayToken), ClubMember(name: "ann", token: annToken)]
            configuration.logger.logLevel = .critical
            server = try await ClubServer.start(configuration)
        }

        func store(_ token: String) -> DropboxStore {
            DropboxStore(displayName: "club", endpoints: .club(server.baseURL), tokens: StaticToken(token), configuration: .default)
        }

        func close() async {
            await server.stop()
            try? FileManager.default.removeItem(at: base)
        }
    }

    /// Waits until the server holds `count` longpolls (the app is listening again).
    static func waitForLongpolls(_ server: ClubServer, _ count: Int) async throws {
        try await AppBench.wait("\(count) longpolls at the server", timeout: 30) { server.waitingLongpolls >= count }
    }

    static func latency(changes: Int = 50) async throws {
        let club = try await MembersClub()
        let ray = club.store(club.rayToken)
        let compositor = Compositor()
        var configuration = AppConfiguration()
        configuration.downloadDirectory = club.base
        let app = ClubApp(store: club.store(club.annToken), compositor: compositor, configuration: configuration)
        var shown: [String: ContinuousClock.Instant] = [:]
        var wanted: String?
        app.onLiveChanges = { _, _ in
            // The frame the terminal would draw: on the next turn of the queue.
            DispatchQueue.main.async {
                MainActor.assumeIsolated {
                    guard let name = wanted, shown[name] == nil else { return }
                    let canvas = GridCanvas(width: 120, height: 36)
                    compositor.render(into: canvas)
                    if canvas.position(of: name) != nil { shown[name] = .now }
                }
            }
        }
        app.start()
        try await AppBench.wait("the notes") { app.state.notes.hasLoaded && app.state.photos.hasLoaded }
        try await waitForLongpolls(club.server, 2)

        var samples: [Double] = []
        for i in 0..<changes {
            let name = String(format: "live-%03d", i)
            wanted = name
            let committed = try await Task.detached { () async throws -> ContinuousClock.Instant in
                _ = try await ray.upload(data: Data("change \(i)\n".utf8), to: "/byteclub/\(name).txt", mode: .add, autorename: false)
                return ContinuousClock.now
            }.value
            try await AppBench.wait("\(name) on ann's screen", timeout: 10) { shown[name] != nil }
            let elapsed = shown[name]! - committed
            samples.append(max(0, Double(elapsed.components.seconds) * 1e3 + Double(elapsed.components.attoseconds) / 1e15))
            try await waitForLongpolls(club.server, 2)
        }
        app.stopLiveUpdates()
        samples.sort()
        print("app-bench live: ray's commit (its answer) to the first 120×36 frame of ann's app listing it, one club server on loopback")
        print(row(["changes", "median ms", "p95 ms", "max ms"], [10, 10, 8, 8]))
        print(row(["\(samples.count)", String(format: "%.1f", percentile(samples, 0.5)), String(format: "%.1f", percentile(samples, 0.95)),
                   String(format: "%.1f", samples.last ?? 0)], [10, 10, 8, 8]))
        print("target: ≤ 1000 ms at p95\n")
        await club.close()
    }

    /// Like ``EchoBench/measure(_:count:while:)``, with a new line every 50 keys (not timed), so
    /// both runs type into lines of the same lengths and only what happens meanwhile differs.
    static func measure(_ app: EchoBench.PTYApp, count: Int) throws -> [Double] {
        var samples: [Double] = []
        for start in stride(from: 0, to: count, by: 50) {
            app.send("\r")
            usleep(15_000)
            samples += try EchoBench.measure(app, count: min(50, count - start))
        }
        return samples.sorted()
    }

    /// Closes the open note (discarding it) if there is one, and opens a new one named `title`,
    /// so each run types into a note of its own.
    static func newNote(_ app: EchoBench.PTYApp, _ title: String) throws {
        var offset = app.output.total
        if title != "Idle" {
            app.send("\u{1B}")
            try app.waitFor("iscard", after: offset)  // the D is underlined (its hotkey)
            offset = app.output.total
            app.send("d")
            try app.waitFor("Discarded", after: offset)
            offset = app.output.total
        }
        app.send("n")
        try app.waitFor("Title", after: offset)
        app.send(title + "\r")
    }

    static func echo() async throws {
        let executable = URL(fileURLWithPath: CommandLine.arguments[0]).resolvingSymlinksInPath()
        let binary = executable.deletingLastPathComponent().appendingPathComponent("byteclub").path
        guard FileManager.default.isExecutableFile(atPath: binary) else {
            throw BenchError("build byteclub next to app-bench first (swift build -c release --product byteclub)")
        }
        let club = try await MembersClub()
        let base = club.base
        let environment = [
            "HOME": base.path, "TERM": "xterm-256color", "LANG": "C.UTF-8", "PATH": "/usr/bin:/bin",
            "XDG_STATE_HOME": base.appendingPathComponent("state").path, "XDG_CACHE_HOME": base.appendingPathComponent("cache").path,
            "XDG_DATA_HOME": base.appendingPathComponent("data").path, "XDG_CONFIG_HOME": base.appendingPathComponent("config").path,
        ]
        let app = try EchoBench.PTYApp(binary: binary, arguments: ["--server", club.server.baseURL.absoluteString, "--token", club.annToken],
                                       environment: environment)
        defer { app.stop() }
        try app.waitFor("Welcome")
        try await waitForLongpolls(club.server, 2)
        try newNote(app, "Idle")
        let idle = try measure(app, count: 450)
        try newNote(app, "Busy")

        // Ray commits a new note every second while ann types.
        let ray = club.store(club.rayToken)
        let committed = Atomic<Int>(0)
        let writer = Task.detached {
            var i = 0
            while !Task.isCancelled {
                _ = try? await ray.upload(data: Data("tick \(i)\n".utf8), to: String(format: "/byteclub/tick-%04d.txt", i), mode: .add,
                                          autorename: false)
                committed.add(1, ordering: .relaxed)
                i += 1
                try? await Task.sleep(for: .seconds(1))
            }
        }
        let busy = try measure(app, count: 900)
        writer.cancel()
        let changes = committed.load(ordering: .relaxed)
        // Idle again, to see the machine's drift over the run.
        try newNote(app, "After")
        let after = try measure(app, count: 450)
        print("app-bench live-echo: key to echo in a pty (byteclub, 120×36, xterm-256color, note editor open), as ann on a club server")
        print(row(["while", "keys", "median ms", "p99 ms", "max ms"], [40, 6, 10, 8, 8]))
        for (label, samples) in [("idle (longpolls open)", idle), ("ray commits a note a second (\(changes) in all)", busy),
                                 ("idle again, after", after)] {
            print(row([label, "\(samples.count)", String(format: "%.2f", percentile(samples, 0.5)),
                       String(format: "%.2f", percentile(samples, 0.99)), String(format: "%.2f", samples.last ?? 0)], [40, 6, 10, 8, 8]))
        }
        print("")
        await club.close()
    }
}
