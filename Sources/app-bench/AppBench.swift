import ByteClubApp
import ClubServer
import Foundation
import Imaging
import Remote
import TerminalUI

/// A club folder in a temp dir, served on loopback, and apps on it.
final class BenchClub: Sendable {
    let base: URL
    let root: URL
    let server: ClubServer
    let token = "app-bench"

    init(populate: @Sendable (URL) throws -> Void) async throws {
        base = FileManager.default.temporaryDirectory.appendingPathComponent("app-bench-\(UUID().uuidString)")
        root = base.appendingPathComponent("club")
        try FileManager.default.createDirectory(at: root.appendingPathComponent("byteclub/photos"), withIntermediateDirectories: true)
        try populate(root.appendingPathComponent("byteclub"))
        var configuration = ClubServerConfiguration(root: root.path, token: token)
        configuration.logger.logLevel = .critical
        server = try await ClubServer.start(configuration)
    }

    func store() -> DropboxStore {
        DropboxStore(displayName: "embedded", endpoints: .club(server.baseURL), tokens: StaticToken(token), configuration: .default)
    }

    @MainActor
    func app(_ compositor: Compositor, thumbnails: URL? = nil) -> ClubApp {
        var configuration = AppConfiguration()
        configuration.thumbnailsDirectory = thumbnails
        configuration.downloadDirectory = base.appendingPathComponent("downloads")
        return ClubApp(store: store(), compositor: compositor, configuration: configuration)
    }

    func close() async {
        await server.stop()
        try? FileManager.default.removeItem(at: base)
    }
}

/// Milliseconds since `start`.
func milliseconds(since start: ContinuousClock.Instant) -> Double {
    milliseconds(from: start, to: .now)
}

func milliseconds(from start: ContinuousClock.Instant, to end: ContinuousClock.Instant) -> Double {
    let elapsed = end - start
    return Double(elapsed.components.seconds) * 1e3 + Double(elapsed.components.attoseconds) / 1e15
}

func row(_ cells: [String], _ widths: [Int]) -> String {
    zip(cells, widths).enumerated().map { index, pair in
        let (text, width) = pair
        let padding = String(repeating: " ", count: max(0, width - text.count))
        return index == 0 ? text + padding : padding + text
    }.joined(separator: "  ")
}

func percentile(_ sorted: [Double], _ p: Double) -> Double {
    sorted.isEmpty ? 0 : sorted[min(sorted.count - 1, Int(Double(sorted.count) * p))]
}

@MainActor
enum AppBench {
    /// Polls (letting the main queue deliver results) until `condition` holds.
    static func wait(_ what: String, timeout: TimeInterval = 120, _ condition: () -> Bool) async throws {
        let deadline = Date().addingTimeInterval(timeout)
        while !condition() {
            if Date() > deadline { throw BenchError("timed out waiting for \(what)") }
            try await Task.sleep(for: .milliseconds(1))
        }
    }

    /// The first frame of a new app on a cache an earlier app filled, `runs` times: each frame's
    /// milliseconds from the app's making, sorted. A frame without `mark` is an error.
    static func firstFramesFromCache(runs: Int = 5, mark: String, _ makeApp: (Compositor) -> ClubApp) throws -> [Double] {
        var frames: [Double] = []
        for _ in 0..<runs {
            let compositor = Compositor()
            let start = ContinuousClock.now
            let app = makeApp(compositor)
            app.start()
            let canvas = GridCanvas(width: 120, height: 36)
            compositor.render(into: canvas)
            let elapsed = milliseconds(since: start)
            guard canvas.position(of: mark) != nil else { throw BenchError("the first frame from the cache does not show \(mark)") }
            frames.append(elapsed)
            app.stopLiveUpdates()
        }
        return frames.sorted()
    }

    // MARK: 10,000 notes to the first frame

    static func notes() async throws {
        let count = 10_000
        let club = try await BenchClub { folder in
            for i in 0..<count {
                let text = "Note \(i): a challenge, a reply, 你好 Grüße.\n"
                try Data(text.utf8).write(to: folder.appendingPathComponent(String(format: "note %05d.txt", i)))
            }
        }
        print("app-bench notes: \(count) notes in /byteclub, club server on loopback, 120×36 frame")
        print(row(["run", "first frame ms", "rows"], [24, 16, 8]))
        var samples: [Double] = []
        for run in 0..<6 {
            let compositor = Compositor()
            let app = club.app(compositor)
            let start = ContinuousClock.now
            app.start()
            try await wait("the notes") { app.state.notes.hasLoaded }
            let canvas = GridCanvas(width: 120, height: 36)
            compositor.render(into: canvas)
            let elapsed = milliseconds(since: start)
            guard canvas.position(of: "note 0") != nil else { throw BenchError("the first frame does not list the notes") }
            let label = run == 0 ? "first listing, hashes all" : "again \(run)"
            print(row([label, String(format: "%.1f", elapsed), "\(app.state.notes.entries.count)"], [24, 16, 8]))
            if run > 0 { samples.append(elapsed) }
        }
        samples.sort()
        print(row(["median of again 1–5", String(format: "%.1f", percentile(samples, 0.5)), ""], [24, 16, 8]))

        // What an app start sees: a server started anew on the same folder, its hash cache on disk.
        await club.server.stop()
        var configuration = ClubServerConfiguration(root: club.root.path, token: club.token)
        configuration.logger.logLevel = .critical
        let restarted = try await ClubServer.start(configuration)
        let compositor = Compositor()
        var appConfiguration = AppConfiguration()
        appConfiguration.downloadDirectory = club.base
        let app = ClubApp(store: DropboxStore(displayName: "embedded", endpoints: .club(restarted.baseURL), tokens: StaticToken(club.token)),
                          compositor: compositor, configuration: appConfiguration)
        let start = ContinuousClock.now
        app.start()
        try await wait("the notes") { app.state.notes.hasLoaded }
        compositor.render(into: GridCanvas(width: 120, height: 36))
        print(row(["server restarted", String(format: "%.1f", milliseconds(since: start)), "\(app.state.notes.entries.count)"], [24, 16, 8]))
        print("target: ≤ 300 ms\n")
        await restarted.stop()
        try? FileManager.default.removeItem(at: club.base)
    }

    // MARK: Typing in a 1 MiB note, through the whole app

    static func editor() async throws {
        var text = ""
        for i in 0..<20_000 {
            text += "Line \(i): the quick brown fox jumps over the lazy dog, 你好 Grüße 🎉.\n".prefix(52)
            text += "\n"
        }
        let body = text
        let club = try await BenchClub { folder in
            try Data(body.utf8).write(to: folder.appendingPathComponent("big note.txt"))
        }
        let drafts = club.base.appendingPathComponent("drafts")
        let compositor = Compositor()
        var configuration = AppConfiguration()
        configuration.drafts = DraftStore(directory: drafts)
        let app = ClubApp(store: club.store(), compositor: compositor, configuration: configuration)
        app.start()
        try await wait("the notes") { app.state.notes.hasLoaded }
        compositor.handle(.enter)
        try await wait("the note") { app.state.note?.isEditing == true }
        for _ in 0..<10_000 { compositor.handle(.down) }  // the middle of the note
        let canvas = GridCanvas(width: 120, height: 36)
        compositor.render(into: canvas)
        var samples: [Double] = []
        for i in 0..<500 {
            let start = ContinuousClock.now
            compositor.handle(.char(i % 10 == 9 ? " " : "x"))
            canvas.clear()
            compositor.render(into: canvas)
            samples.append(milliseconds(since: start))
            // Let the journal's timer run now and then, as it would between keystrokes.
            if i % 50 == 49 { try await Task.sleep(for: .milliseconds(400)) }
        }
        samples.sort()
        print("app-bench editor: a 1 MiB note of \(body.split(separator: "\n", omittingEmptySubsequences: false).count - 1) lines opened from the server, 500 keys at its middle, each + a 120×36 frame")
        print(row(["keys", "median ms", "p99 ms", "max ms", "draft on disk"], [6, 10, 8, 8, 14]))
        let draft = DraftStore(directory: drafts).all().first?.body.count ?? 0
        print(row(["500", String(format: "%.2f", percentile(samples, 0.5)), String(format: "%.2f", percentile(samples, 0.99)),
                   String(format: "%.2f", samples.last ?? 0), "\(draft) chars"], [6, 10, 8, 8, 14]))
        print("target: ≤ 5 ms per key and redraw\n")
        await club.close()
    }

    // MARK: 200 photos, scrolling while thumbnails arrive

    static func photos() async throws {
        let count = 200
        // One real panorama, 200 copies: the server makes each thumbnail from a full JPEG.
        var pixels = [UInt8](repeating: 0, count: 1600 * 400 * 3)
        for y in 0..<400 {
            for x in 0..<1600 {
                let i = (y * 1600 + x) * 3
                pixels[i] = UInt8(x * 255 / 1600)
                pixels[i + 1] = UInt8(y * 255 / 400)
                pixels[i + 2] = UInt8((x + y) % 256)
            }
        }
        let jpeg = try JPEG.encode(RGBImage(width: 1600, height: 400, pixels: pixels), quality: 85)
        let club = try await BenchClub { folder in
            for i in 0..<count { try jpeg.write(to: folder.appendingPathComponent(String(format: "photos/pano-%03d.jpg", i))) }
        }
        let compositor = Compositor()
        let app = club.app(compositor)
        app.start()
        app.select(.photos)
        try await wait("the photos") { app.state.photos.hasLoaded }
        let canvas = GridCanvas(width: 120, height: 36)
        var frames: [Double] = []
        var framesWhileLoading = 0
        // One key and one frame every 16 ms, down the list and back up: the network never
        // blocks a frame, thumbnails fill in as they arrive.
        let keys: [Key] = Array(repeating: .down, count: count - 1) + Array(repeating: .up, count: count - 1)
        for key in keys {
            let start = ContinuousClock.now
            compositor.handle(key)
            canvas.clear()
            compositor.render(into: canvas)
            frames.append(milliseconds(since: start))
            if app.thumbnails.fetchedCount < count { framesWhileLoading += 1 }
            try await Task.sleep(for: .milliseconds(16))
        }
        frames.sort()
        print("app-bench photos: \(count) photos, 4-line rows with chafa thumbnails, 1 key + 1 frame per 16 ms, down and up")
        print(row(["frames", "median ms", "p99 ms", "max ms", "thumbnails fetched"], [8, 10, 8, 8, 20]))
        print(row(["\(frames.count)", String(format: "%.2f", percentile(frames, 0.5)), String(format: "%.2f", percentile(frames, 0.99)),
                   String(format: "%.2f", frames.last ?? 0), "\(app.thumbnails.fetchedCount) (\(framesWhileLoading) frames while loading)"],
                  [8, 10, 8, 8, 20]))
        print("target: ≤ 16 ms per frame\n")
        await club.close()
    }

    // MARK: A 1 GiB upload: progress events reaching the UI

    /// A file of `size` bytes of varied data, written once.
    static func bigFile(_ size: Int64, in directory: URL) throws -> URL {
        let url = directory.appendingPathComponent("upload-\(size).jpg")
        FileManager.default.createFile(atPath: url.path, contents: nil)
        let handle = try FileHandle(forWritingTo: url)
        defer { try? handle.close() }
        var block = [UInt8](repeating: 0, count: 1 << 20)
        block[0] = 0xFF; block[1] = 0xD8; block[2] = 0xFF
        var written: Int64 = 0
        var seed: UInt64 = 0x9E37_79B9_7F4A_7C15
        while written < size {
            for i in stride(from: written == 0 ? 8 : 0, to: block.count, by: 8) {
                seed = seed &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
                withUnsafeBytes(of: seed) { bytes in for k in 0..<8 { block[i + k] = bytes[k] } }
            }
            let chunk = Int(min(Int64(block.count), size - written))
            try handle.write(contentsOf: block[0..<chunk])
            written += Int64(chunk)
        }
        return url
    }

    static func upload(size: Int64) async throws {
        let club = try await BenchClub { _ in }
        let file = try bigFile(size, in: club.base)
        let compositor = Compositor()
        let app = club.app(compositor)
        app.start()
        try await wait("the lists") { app.state.notes.hasLoaded && app.state.photos.hasLoaded }
        let canvas = GridCanvas(width: 120, height: 36)
        let start = ContinuousClock.now
        app.upload(file)
        var frames = 0
        var perSecond: [Int] = []
        var lastCount = 0
        var nextSecond = 1.0
        while app.state.message?.text.hasPrefix("Uploaded") != true {
            if app.state.message?.kind == .error { throw BenchError(app.state.message?.text ?? "upload failed") }
            // Frames as the terminal would draw them, at most one per turn.
            compositor.render(into: canvas)
            frames += 1
            try await Task.sleep(for: .milliseconds(5))
            let elapsed = milliseconds(since: start) / 1000
            if elapsed >= nextSecond {
                perSecond.append(app.transferProgressEvents - lastCount)
                lastCount = app.transferProgressEvents
                nextSecond += 1
            }
        }
        let seconds = milliseconds(since: start) / 1000
        let events = app.transferProgressEvents
        let sorted = perSecond.sorted()
        print("app-bench upload: \(ByteFormat.size(size)) through the app (upload sessions), club server on loopback")
        print(row(["seconds", "MB/s", "progress events", "events/s", "min/s", "max/s"], [8, 8, 16, 10, 6, 6]))
        print(row([String(format: "%.1f", seconds), String(format: "%.0f", Double(size) / seconds / 1e6), "\(events)",
                   String(format: "%.1f", Double(events) / seconds), "\(sorted.first ?? 0)", "\(sorted.last ?? 0)"], [8, 8, 16, 10, 6, 6]))
        print("target: 10–60 events per second\n")
        await club.close()
    }

    // MARK: Esc during an upload

    static func cancel() async throws {
        let club = try await BenchClub { _ in }
        let file = try bigFile(256 << 20, in: club.base)
        let compositor = Compositor()
        let app = club.app(compositor)
        app.start()
        try await wait("the lists") { app.state.notes.hasLoaded && app.state.photos.hasLoaded }
        print("app-bench cancel: Esc during a 256 MiB upload, 10 runs")
        print(row(["run", "modal gone ms", "task ended ms", "server files"], [5, 14, 14, 13]))
        var gone: [Double] = [], ended: [Double] = []
        for run in 1...10 {
            app.upload(file)
            try await wait("some progress") { app.state.transfers.active.first.map { $0.progress.done > 16 << 20 } ?? false }
            let start = ContinuousClock.now
            compositor.handle(.escape)
            let modalGone = milliseconds(since: start)
            guard !(compositor.top is TransferModal) else { throw BenchError("the modal is still up after Esc") }
            try await wait("the cancel") { app.state.message?.text == "Upload cancelled" }
            let taskEnded = milliseconds(since: start)
            let files = try FileManager.default.contentsOfDirectory(atPath: club.root.appendingPathComponent("byteclub/photos").path)
            print(row(["\(run)", String(format: "%.2f", modalGone), String(format: "%.2f", taskEnded), "\(files.count)"], [5, 14, 14, 13]))
            gone.append(modalGone)
            ended.append(taskEnded)
        }
        gone.sort()
        ended.sort()
        print(row(["median", String(format: "%.2f", percentile(gone, 0.5)), String(format: "%.2f", percentile(ended, 0.5)), ""], [5, 14, 14, 13]))
        print("target: ≤ 100 ms from the key to the modal gone and the connection aborted\n")
        await club.close()
    }
}

struct BenchError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}
