import ByteClubApp
import Foundation
import ClubKit
import LoopbackHTTP
import Remote
import TerminalUI

/// `app-bench club --webdav [--notes N]`: the same club's notes on `rclone serve webdav`
/// (loopback, rclone's own directory cache): the app's first frame listing notes, cold, and
/// every note cached and indexed. WebDAV has no batch: the index fetches the notes with
/// parallel GETs over kept-alive connections.
@MainActor
enum ClubWebDAVBench {
    static func run(_ options: ClubBench.Options) async throws {
        let server = try RcloneWebDAV(user: "bench", dirCacheTime: nil)
        defer { server.remove() }
        Interrupts.register { server.stop() }
        let interrupts = Interrupts.stopChildren()
        defer { interrupts.forEach { $0.cancel() } }
        let seeding = ContinuousClock.now
        try ClubBench.seed(server.file("byteclub"), ClubBench.Options(notes: options.notes, photos: 0, folders: options.folders, put: 0))
        let shape = options.folders == 0 ? "in one folder" : "in \(options.folders) folders"
        say("app-bench club --webdav: \(ClubBench.grouped(options.notes)) notes of 1 KiB \(shape) on rclone serve webdav (written in \(ClubBench.seconds(since: seeding)));")
        say("the app on this process's main queue, WebDAVStore over loopback. Release build: targets are for it.")
        let widths = [52, 12, 12, 22]
        say(row(["measure", "byteclub", "target", ""], widths))

        let work = server.base.appendingPathComponent("app")
        let connected = ContinuousClock.now
        let store = try await WebDAVStore.connect(url: server.url, user: server.user, password: server.password)
        var configuration = AppConfiguration()
        configuration.cache = ClubCache(directory: work.appendingPathComponent("cache"))
        configuration.searchIndex = AppConfiguration.searchIndex(in: work.appendingPathComponent("index"))
        configuration.downloadDirectory = work.appendingPathComponent("downloads")
        configuration.liveUpdates = false
        let compositor = Compositor()
        let app = ClubApp(store: store, compositor: compositor, configuration: configuration)
        let (firstFrame, allIndexed, delays) = try await ClubBench.coldSync(app, compositor, notes: options.notes, since: connected)
        say(row(["app, cold start (connecting too): first frame", ClubBench.ms(firstFrame), "≤ 2 s", ""], widths))
        say(row(["app, every note cached and indexed, cold", ClubBench.ms(allIndexed), "≤ 60 s", ""], widths))
        say(row(["app, main-queue delay p99 during the first sync", ClubBench.ms(percentile(delays, 0.99)), "≤ 16 ms",
                           "max \(ClubBench.ms(delays.last ?? 0))"], widths))
        say(row(["app, peak RSS, cold start to every note indexed", ClubBench.mib(ProcessStatus.own("VmHWM:")), "≤ 150 MiB", ""], widths))
        let real = try realFirstFrame(server, in: server.base.appendingPathComponent("real"))
        say(row(["real app (byteclub in a pty, live updates on): first frame", real.map(ClubBench.ms) ?? "—", "≤ 2 s",
                 real == nil ? "no byteclub beside app-bench" : ""], widths))
        say("")
    }

    /// The released `byteclub` beside this executable in a pty, on the same server: ms to the
    /// first frame that shows a note's name (``ClubBench/realFirstFrame(_:extra:home:)``).
    static func realFirstFrame(_ server: RcloneWebDAV, in home: URL) throws -> Double? {
        try ClubBench.realFirstFrame(["--webdav", server.url.absoluteString, "--user", server.user],
                                     extra: ["BYTECLUB_WEBDAV_PASSWORD": server.password], home: home)
    }
}
