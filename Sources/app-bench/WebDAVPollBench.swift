import ByteClubApp
import Foundation
import LoopbackHTTP
import Remote
import TerminalUI

/// What the live club's polling costs a WebDAV server per member: the whole app (ClubApp with
/// its live updates) on `rclone serve webdav`, reached through a counting TCP relay, left idle
/// for a minute once both lists have loaded; then the same just after a save of its own (the
/// 2 s burst), and with 2,000 notes. Requests and bytes each way, per minute.
@MainActor
enum WebDAVPollBench {
    static func run(seconds: Int = 60) async throws {
        print("app-bench webdav-poll: the app idle on rclone serve webdav (loopback, no folder ETags), \(seconds) s per row, counted at a TCP relay")
        let widths = [34, 12, 14, 14, 12]
        print(row(["club", "requests/min", "bytes up/min", "bytes down/min", "listings"], widths))
        for scenario in [Scenario(notes: 20, photos: 5, save: false), Scenario(notes: 20, photos: 5, save: true),
                         Scenario(notes: 2_000, photos: 5, save: false)] {
            let result = try await measure(scenario, seconds: seconds)
            let perMinute = 60 / Double(seconds)
            print(row([scenario.label, String(format: "%.0f", Double(result.counts.requests) * perMinute),
                       format(Double(result.counts.bytesUp) * perMinute), format(Double(result.counts.bytesDown) * perMinute),
                       "\(result.listings)"], widths))
        }
        print("")
    }

    struct Scenario {
        var notes: Int
        var photos: Int
        /// A note saved by this member at the start of the minute.
        var save: Bool

        var label: String {
            "\(notes) notes, \(photos) photos" + (save ? ", a save at 0 s" : ", idle")
        }
    }

    static func measure(_ scenario: Scenario, seconds: Int) async throws -> (counts: CountingProxy.Counts, listings: Int) {
        let server = try RcloneWebDAV(user: "bench", dirCacheTime: nil)
        defer { server.remove() }
        let folder = server.file("byteclub")
        try FileManager.default.createDirectory(at: folder.appendingPathComponent("photos/2026"), withIntermediateDirectories: true)
        for i in 0..<scenario.notes {
            try Data("Note \(i): a challenge, a reply.\n".utf8).write(to: folder.appendingPathComponent(String(format: "note %05d.txt", i)))
        }
        for i in 0..<scenario.photos {
            try Data([0xFF, 0xD8, 0xFF, 0xD9]).write(to: folder.appendingPathComponent("photos/2026/desk \(i).jpg"))
        }
        let proxy = try CountingProxy(upstreamPort: server.port)
        defer { proxy.stop() }
        guard let url = URL(string: "http://127.0.0.1:\(proxy.port)/") else { throw BenchError("no proxy URL") }
        let store = try await WebDAVStore.connect(url: url, user: server.user, password: server.password)
        var configuration = AppConfiguration()
        configuration.downloadDirectory = server.base.appendingPathComponent("downloads")
        let app = ClubApp(store: store, compositor: Compositor(), configuration: configuration)
        app.start()
        try await AppBench.wait("both lists") { app.state.notes.hasLoaded && app.state.photos.hasLoaded }
        // The loads and the first cursors are done; what follows is the steady state.
        try await Task.sleep(for: .seconds(1))
        proxy.reset()
        let listingsBefore = store.pollCounts.listings
        if scenario.save {
            _ = try await store.upload(data: Data("mine\n".utf8), to: "/byteclub/mine.txt", mode: .add, autorename: false)
        }
        try await Task.sleep(for: .seconds(seconds))
        let counts = proxy.snapshot
        app.stopLiveUpdates()
        return (counts, store.pollCounts.listings - listingsBefore)
    }

    static func format(_ bytes: Double) -> String {
        bytes >= 10_000 ? String(format: "%.0f KB", bytes / 1000) : String(format: "%.0f B", bytes)
    }
}
