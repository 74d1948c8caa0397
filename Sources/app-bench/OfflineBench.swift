import DropboxWire
import ByteClubApp
import ClubServer
import Foundation
import LoopbackHTTP
import Remote
import TerminalUI
#if canImport(Glibc)
import Glibc
#endif

/// Offline first (issue 15), through the whole app on the main queue (MainQueueEffects).
///
/// `outbox`: 20 saves queued with the Outbox API while the club server is down; the app starts,
/// finds the server refusing, goes offline; the server comes back on the same port and root
/// after a chosen time offline, and the clock runs from its return (listening again) to the
/// last item confirmed (the outbox empty). Split in two: until the app noticed (its probe,
/// ``OfflineProbe``: 1 s, then a tenth of the outage so far, at most 4 s; or any other request
/// answered), and from then until the 20 items were sent one request at a time; the same 20
/// saves sent by `curl` in a shell loop are the reference for the second part. Then what the probe
/// costs a server that is down behind a proxy (OfflineBench+Probe.swift).
///
/// `offline-start`: a cache of 10,000 notes on disk and a server address where nothing
/// listens: from creating the ClubApp to the first 120×36 frame that shows the cached rows.
@MainActor
enum OfflineBench {
    static let saves = 20

    // MARK: outbox

    static func outbox(runs: Int = 3) async throws {
        let base = FileManager.default.temporaryDirectory.appendingPathComponent("app-bench-outbox-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: base) }
        let root = base.appendingPathComponent("club")
        let folder = root.appendingPathComponent("byteclub")
        try FileManager.default.createDirectory(at: folder.appendingPathComponent("photos"), withIntermediateDirectories: true)
        for i in 0..<saves {
            try Data("Note \(i)\nline two\n".utf8).write(to: folder.appendingPathComponent(String(format: "note %02d.txt", i)))
        }
        let token = "app-bench-outbox"
        var configuration = ClubServerConfiguration(root: root.path, token: token)
        configuration.logger.logLevel = .critical
        var server: ClubServer? = try await ClubServer.start(configuration)
        let url = server!.baseURL
        configuration.port = url.port ?? 0

        print("app-bench outbox: \(saves) saves queued while the club server is down, then the server back on the same port;")
        print("the app (ClubApp, MainQueueEffects) probes while offline, each a tenth of the outage so far (1 s to 4 s). Times from the server's return.")
        let widths = [32, 12, 12, 12]
        print(row(["back after offline for", "noticed ms", "sent 20 ms", "total ms"], widths))
        var drains: [Double] = []
        // Returns early in an outage, and three after longer ones, once each: the probe waits a
        // tenth of the outage so far, at most 4 s (reached at 40 s offline).
        let offlineTimes: [(seconds: Double, runs: Int)] = [(0.5, runs), (5, runs), (12, runs), (40, 1), (90, 1), (300, 1)]
        for (offlineFor, runs) in offlineTimes {
            var noticed: [Double] = [], sent: [Double] = [], total: [Double] = []
            for run in 0..<runs {
                if let running = server { await running.stop() }
                server = nil
                let store = appStore(url: url, token: token)
                let revs = try await currentRevs(root: root, configuration: configuration)
                let outbox = Outbox(directory: base.appendingPathComponent("outbox-\(offlineFor)-\(run)"))
                for (path, rev) in revs {
                    let item = OutboxItem(kind: .save, path: path, baseRev: rev, title: (path as NSString).lastPathComponent,
                                          text: "Note at \(path)\nline two, run \(run) after \(offlineFor) s offline\n", queued: Date())
                    try outbox.append(item)
                }
                var appConfiguration = AppConfiguration()
                appConfiguration.downloadDirectory = base.appendingPathComponent("downloads")
                appConfiguration.outbox = outbox
                let compositor = Compositor()
                let app = ClubApp(store: store, compositor: compositor, configuration: appConfiguration)
                app.start()
                try await AppBench.wait("the app offline", timeout: 30) { app.state.offline.isOffline }
                let wentOffline = ContinuousClock.now
                while ContinuousClock.now - wentOffline < .milliseconds(Int(offlineFor * 1000)) { try await Task.sleep(for: .milliseconds(5)) }
                server = try await ClubServer.start(configuration)
                let back = ContinuousClock.now
                try await AppBench.wait("the app online", timeout: 60) { !app.state.offline.isOffline }
                let online = ContinuousClock.now
                try await AppBench.wait("the outbox sent", timeout: 60) { app.state.offline.waiting == 0 }
                let done = ContinuousClock.now
                guard outbox.all().isEmpty else { throw BenchError("the outbox is not empty") }
                for (path, _) in revs {
                    let text = String(decoding: try Data(contentsOf: root.appendingPathComponent(String(path.dropFirst()))), as: UTF8.self)
                    guard text.contains("run \(run) after \(offlineFor) s") else { throw BenchError("\(path) does not hold the save: \(text)") }
                }
                app.requestQuit()
                noticed.append(ms(online - back))
                sent.append(ms(done - online))
                total.append(ms(done - back))
            }
            drains += sent
            noticed.sort(); sent.sort(); total.sort()
            let label = runs == 1 ? String(format: "%.1f s (1 run)", offlineFor) : String(format: "%.1f s (median of %d)", offlineFor, runs)
            print(row([label, String(format: "%.0f", percentile(noticed, 0.5)), String(format: "%.0f", percentile(sent, 0.5)),
                       String(format: "%.0f", percentile(total, 0.5))], widths))
        }
        drains.sort()

        // The reference: the same 20 saves (update at their revs) by curl, one process each, in a shell loop.
        var curls: [Double] = []
        for run in 0..<runs {
            let revs = try await currentRevs(root: root, configuration: configuration, server: server)
            curls.append(try curlLoop(url: url, token: token, revs: revs, run: run, base: base))
        }
        curls.sort()
        print("")
        print(row(["sending \(saves) saves", "median ms", "per save ms", "runs"], widths))
        print(row(["the app's outbox (online→sent)", String(format: "%.0f", percentile(drains, 0.5)),
                   String(format: "%.1f", percentile(drains, 0.5) / Double(saves)), "\(drains.count)"], widths))
        print(row(["curl in a shell loop", String(format: "%.0f", percentile(curls, 0.5)),
                   String(format: "%.1f", percentile(curls, 0.5) / Double(saves)), "\(curls.count)"], widths))
        print("target: ≤ 5000 ms from the server's return to the last item confirmed\n")
        if let server { await server.stop() }
        try await probeCost()
    }

    /// A store set up as the terminal UI sets its own: an unreachable server is not retried
    /// (the outbox takes over), other failures a few times.
    static func appStore(url: URL, token: String) -> DropboxStore {
        var retry = RetryPolicy()
        retry.maxAttempts = 5
        retry.maxDelay = 2
        retry.retriesUnreachable = false
        return DropboxStore(displayName: "club", endpoints: .club(url), tokens: StaticToken(token), configuration: .default, retry: retry)
    }

    /// The notes' paths and current revs, asked of the server (started for the question if
    /// `server` is nil, and stopped again).
    static func currentRevs(root: URL, configuration: ClubServerConfiguration, server: ClubServer? = nil) async throws -> [(String, String)] {
        let running: ClubServer
        if let server { running = server } else { running = try await ClubServer.start(configuration) }
        let store = DropboxStore(displayName: "club", endpoints: .club(running.baseURL), tokens: StaticToken(configuration.token))
        let entries = try await store.list("/byteclub").filter { $0.kind == .file }
        if server == nil { await running.stop() }
        return entries.compactMap { entry in entry.rev.map { (entry.path, $0) } }.sorted { $0.0 < $1.0 }
    }

    /// Sends the saves with curl, one `update` upload each, from one shell script; its wall time in ms.
    static func curlLoop(url: URL, token: String, revs: [(String, String)], run: Int, base: URL) throws -> Double {
        var script = "set -e\n"
        for (index, (path, rev)) in revs.enumerated() {
            let body = base.appendingPathComponent("curl-\(run)-\(index).txt")
            try Data("Note at \(path)\nline two, curl run \(run)\n".utf8).write(to: body)
            let argument = #"{"path":"\#(path)","mode":{".tag":"update","update":"\#(rev)"},"autorename":false}"#
            script += "curl -sS -f -o /dev/null -X POST '\(url.appendingPathComponent(Endpoint.upload.relativePath).absoluteString)' -H 'Authorization: Bearer \(token)' "
                + "-H 'Content-Type: application/octet-stream' -H '" + "Dropbox-API-Arg: \(argument)' --data-binary @'\(body.path)'\n"
        }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/bin/sh")
        process.arguments = ["-c", script]
        let start = ContinuousClock.now
        try process.run()
        process.waitUntilExit()
        let elapsed = ms(ContinuousClock.now - start)
        guard process.terminationStatus == 0 else { throw BenchError("curl's loop failed (status \(process.terminationStatus))") }
        return elapsed
    }

    // MARK: offline-start

    static func offlineStart(count: Int = 10_000) async throws {
        let base = FileManager.default.temporaryDirectory.appendingPathComponent("app-bench-offline-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: base) }
        let cache = ClubCache(directory: base.appendingPathComponent("cache"))
        let saved = Date().addingTimeInterval(-3600)
        let entries = (0..<count).map { i -> RemoteEntry in
            let name = String(format: "note %05d.txt", i)
            return RemoteEntry(kind: .file, name: name, path: "/byteclub/" + name, pathLower: "/byteclub/" + name, id: "id:\(i)",
                               rev: String(format: "%016x", i + 1), size: 48, modified: saved.addingTimeInterval(Double(-i)),
                               contentHash: String(repeating: "0", count: 64), modifiedBy: "dbid:" + String(repeating: "r", count: 35))
        }
        try cache.saveListing(.notes, ClubCache.Listing(entries: entries, cursor: nil, saved: saved))
        try cache.saveListing(.photos, ClubCache.Listing(entries: [], cursor: nil, saved: saved))
        let port = try LoopbackPort.free()
        let url = URL(string: "http://127.0.0.1:\(port)")!

        print("app-bench offline-start: \(count) notes in the disk cache, the server down (nothing listens on :\(port)), 120×36 frame")
        let widths = [24, 16, 12, 8]
        print(row(["run", "first frame ms", "cache read ms", "rows"], widths))
        var samples: [Double] = []
        for run in 0..<6 {
            let readStart = ContinuousClock.now
            guard cache.listing(.notes)?.entries.count == count else { throw BenchError("the cache does not read back") }
            let readMs = ms(ContinuousClock.now - readStart)
            var configuration = AppConfiguration()
            configuration.downloadDirectory = base.appendingPathComponent("downloads")
            configuration.cache = cache
            configuration.outbox = Outbox(directory: base.appendingPathComponent("outbox"))
            let compositor = Compositor()
            let start = ContinuousClock.now
            let app = ClubApp(store: appStore(url: url, token: "none"), compositor: compositor, configuration: configuration)
            app.start()
            var shown = false
            let canvas = GridCanvas(width: 120, height: 36)
            while !shown {
                compositor.render(into: canvas)
                shown = canvas.position(of: "◷ Cached") != nil && canvas.position(of: "note 0") != nil
                if !shown {
                    if ContinuousClock.now - start > .seconds(30) { throw BenchError("no frame shows the cached notes") }
                    try await Task.sleep(for: .milliseconds(1))
                }
            }
            let elapsed = ms(ContinuousClock.now - start)
            print(row([run == 0 ? "first" : "again \(run)", String(format: "%.1f", elapsed), String(format: "%.1f", readMs),
                       "\(app.state.notes.entries.count)"], widths))
            if run > 0 { samples.append(elapsed) }
            app.requestQuit()
        }
        samples.sort()
        print(row(["median of again 1–5", String(format: "%.1f", percentile(samples, 0.5)), "", ""], widths))
        print("target: ≤ 500 ms\n")
    }

    static func ms(_ duration: Duration) -> Double {
        Double(duration.components.seconds) * 1e3 + Double(duration.components.attoseconds) / 1e15
    }
}
