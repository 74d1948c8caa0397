import ByteClubApp
import Foundation
import LoopbackHTTP
import Remote
import TerminalUI

/// 2,000 notes in a WebDAV folder (`rclone serve webdav` on loopback): from start to the
/// first frame that lists them, with and without connecting (the PROPFIND that checks the
/// password and the OPTIONS that reads the server's DAV classes).
@MainActor
enum WebDAVFirstFrame {
    static func run() async throws {
        let count = 2_000
        let server = try RcloneWebDAV(user: "bench", dirCacheTime: nil)
        defer { server.remove() }
        let folder = server.file("byteclub")
        try FileManager.default.createDirectory(at: folder.appendingPathComponent("photos"), withIntermediateDirectories: true)
        for i in 0..<count {
            let text = "Note \(i): a challenge, a reply, 你好 Grüße.\n"
            try Data(text.utf8).write(to: folder.appendingPathComponent(String(format: "note %05d ✓.txt", i)))
        }
        print("app-bench webdav: \(count) notes in /byteclub on rclone serve webdav (loopback), 120×36 frame")
        print(row(["run", "connect ms", "first frame ms", "rows"], [24, 12, 16, 8]))
        var samples: [Double] = []
        var withConnect: [Double] = []
        for run in 0..<6 {
            let connectStart = ContinuousClock.now
            let store = try await WebDAVStore.connect(url: server.url, user: server.user, password: server.password)
            let connected = milliseconds(since: connectStart)
            let compositor = Compositor()
            var configuration = AppConfiguration()
            configuration.downloadDirectory = server.base.appendingPathComponent("downloads")
            let app = ClubApp(store: store, compositor: compositor, configuration: configuration)
            let start = ContinuousClock.now
            app.start()
            try await AppBench.wait("the notes") { app.state.notes.hasLoaded }
            let canvas = GridCanvas(width: 120, height: 36)
            compositor.render(into: canvas)
            let elapsed = milliseconds(since: start)
            guard canvas.position(of: "note 0") != nil else { throw BenchError("the first frame does not list the notes") }
            print(row([run == 0 ? "first" : "again \(run)", String(format: "%.1f", connected), String(format: "%.1f", elapsed),
                       "\(app.state.notes.entries.count)"], [24, 12, 16, 8]))
            if run > 0 {
                samples.append(elapsed)
                withConnect.append(elapsed + connected)
            }
        }
        samples.sort()
        withConnect.sort()
        print(row(["median of again 1–5", "", String(format: "%.1f", percentile(samples, 0.5)), ""], [24, 12, 16, 8]))
        print(row(["  with connecting", "", String(format: "%.1f", percentile(withConnect, 0.5)), ""], [24, 12, 16, 8]))
        print("target: ≤ 500 ms\n")
    }
}
