import ByteClubApp
import ClubServer
import Foundation
import Remote
import Synchronization
import TerminalUI
import TestSupport
import XCTest

// Test methods in `@MainActor` classes are `async`: swift-corelibs-xctest's test discovery
// cannot call a synchronous main-actor method.

/// Fixed times, so relative dates print the same on every run.
enum Clock {
    /// "Now" for every test: 2026-11-21 21:00:00 UTC.
    static let now = Date(timeIntervalSince1970: 1_795_294_800)

    static var format: DisplayFormat {
        DisplayFormat(now: { Clock.now }, timeZone: TimeZone(identifier: "UTC")!)
    }

    static func ago(_ seconds: TimeInterval) -> Date { now.addingTimeInterval(-seconds) }
}

/// A real club server on loopback, seeded with the sample club from the source tree (the same
/// folder `SampleClub.seed(into:)` copies on first run), and a DropboxStore talking to it.
final class SampleClubServer: Sendable {
    let base: URL
    let server: ClubServer
    let token = "app-tests-\(UUID().uuidString)"

    init() async throws {
        base = FileManager.default.temporaryDirectory.appendingPathComponent("byteclub-app-tests-\(UUID().uuidString)")
        let root = base.appendingPathComponent("club")
        try FileManager.default.createDirectory(at: root, withIntermediateDirectories: true)
        let sample = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("Resources/SampleClub/byteclub")
        try FileManager.default.copyItem(at: sample, to: root.appendingPathComponent("byteclub"))
        var configuration = ClubServerConfiguration(root: root.path, token: token)
        configuration.logger.logLevel = .error
        server = try await ClubServer.start(configuration)
    }

    /// The store, with the server's modification times (which follow the copy) replaced by
    /// fixed ones so the snapshots do not depend on when the test ran.
    func store() -> any RemoteStore {
        let store = DropboxStore(displayName: "embedded", endpoints: .club(server.baseURL), tokens: StaticToken(token),
                                 configuration: .ephemeral)
        return StampedStore(base: store, stamps: [
            "Welcome to Byte Club.txt": Clock.ago(2 * 3600),
            "Challenge 1 - Unicode widths.txt": Clock.ago(3 * 86_400 + 600),
            "alps-sunrise.jpg": Clock.ago(40 * 86_400),
            "city-dusk.jpg": Clock.ago(38 * 86_400),
            "coast-noon.jpg": Clock.ago(12 * 86_400),
            "desk-at-night.jpg": Clock.ago(86_400),
        ])
    }

    func close() async {
        await server.stop()
        try? FileManager.default.removeItem(at: base)
    }
}

/// A RemoteStore that forwards to another and overrides the modification time of named files.
struct StampedStore: ForwardingStore {
    let base: any RemoteStore
    let stamps: [String: Date]

    private func stamp(_ entry: RemoteEntry) -> RemoteEntry {
        var entry = entry
        if let date = stamps[entry.name] { entry.modified = date }
        return entry
    }

    func listPage(_ folder: String, cursor: String?, limit: Int) async throws(RemoteError) -> (entries: [RemoteEntry], next: String?) {
        let page = try await base.listPage(folder, cursor: cursor, limit: limit)
        return (page.entries.map(stamp), page.next)
    }
    func metadata(_ path: String) async throws(RemoteError) -> RemoteEntry { stamp(try await base.metadata(path)) }
    func search(in folder: String, extensions: [String]) async throws(RemoteError) -> [RemoteEntry] {
        try await base.search(in: folder, extensions: extensions).map(stamp)
    }
    // The sample-club tests run without live updates, as before this store forwarded them.
    func latestCursor(_ folder: String, recursive: Bool) async throws(RemoteError) -> RemoteCursor {
        throw .notSupported("change cursors")
    }
}

/// A scripted store: lists what `files` holds, or fails with `failure` when it is set.
final class FakeStore: RemoteStore {
    let displayName: String
    private let script: Mutex<(files: [RemoteEntry], failure: RemoteError?)>

    init(displayName: String = "http://192.168.1.20:8421", files: [RemoteEntry] = [], failure: RemoteError? = nil) {
        self.displayName = displayName
        self.script = Mutex((files, failure))
    }

    func set(files: [RemoteEntry]? = nil, failure: RemoteError?) {
        script.withLock {
            if let files { $0.files = files }
            $0.failure = failure
        }
    }

    private func current() throws(RemoteError) -> [RemoteEntry] {
        let (files, failure) = script.withLock { ($0.files, $0.failure) }
        if let failure { throw failure }
        return files
    }

    static func file(_ path: String, size: Int64, modified: Date) -> RemoteEntry {
        RemoteEntry(kind: .file, name: (path as NSString).lastPathComponent, path: path, size: size, modified: modified)
    }

    func listPage(_ folder: String, cursor: String?, limit: Int) async throws(RemoteError) -> (entries: [RemoteEntry], next: String?) {
        let prefix = folder.lowercased() + "/"
        return (try current().filter { $0.pathLower.hasPrefix(prefix) && !$0.pathLower.dropFirst(prefix.count).contains("/") }, nil)
    }
    func search(in folder: String, extensions: [String]) async throws(RemoteError) -> [RemoteEntry] {
        let prefix = folder.lowercased() + "/"
        return try current().filter { entry in
            entry.pathLower.hasPrefix(prefix) && extensions.contains { entry.pathLower.hasSuffix("." + $0) }
        }
    }
    func metadata(_ path: String) async throws(RemoteError) -> RemoteEntry { throw .notFound(path) }
    func download(_ path: String, to destination: URL, resumeData: Data?, progress: ProgressHandler?,
                  onResumeData: (@Sendable (Data) -> Void)?) async throws(RemoteError) -> RemoteEntry { throw .notFound(path) }
    func upload(file: URL, to path: String, mode: WriteMode, autorename: Bool, progress: ProgressHandler?) async throws(RemoteError) -> RemoteEntry {
        throw .local("read-only fake")
    }
    func upload(data: Data, to path: String, mode: WriteMode, autorename: Bool) async throws(RemoteError) -> RemoteEntry {
        throw .local("read-only fake")
    }
    func thumbnail(_ path: String, size: ThumbnailSize) async throws(RemoteError) -> Data { throw .notFound(path) }
    func delete(_ path: String) async throws(RemoteError) -> RemoteEntry { throw .notFound(path) }
    func move(from: String, to: String, autorename: Bool) async throws(RemoteError) -> RemoteEntry { throw .notFound(from) }
    func createFolder(_ path: String) async throws(RemoteError) -> RemoteEntry { throw .local("read-only fake") }
}

/// An app on a bare compositor, as the terminal would hold it, with a way to wait for loads.
@MainActor
final class Harness {
    let app: ClubApp
    let compositor = Compositor()
    var quitStatus: Int32?
    private var finished: [Tab] = []
    private var waiters: [(count: Int, continuation: CheckedContinuation<Void, Never>)] = []

    init(store: any RemoteStore, drafts: DraftStore? = nil, effects: any UIEffects = MainQueueEffects(),
         configure: (inout AppConfiguration) -> Void = { _ in }) {
        var configuration = AppConfiguration()
        configuration.format = Clock.format
        configuration.drafts = drafts
        configure(&configuration)
        app = ClubApp(store: store, compositor: compositor, configuration: configuration, effects: effects)
        // Weak, not unowned: a load still running when the test ends (a WebDAV listing answered
        // after its server stopped) finishes after the harness is gone, and an unowned read there
        // crashed the whole test process.
        app.onQuit = { [weak self] status in self?.quitStatus = status }
        app.onLoadFinished = { [weak self] tab in
            guard let self else { return }
            self.finished.append(tab)
            let ready = self.waiters.filter { $0.count <= self.finished.count }
            self.waiters.removeAll { $0.count <= self.finished.count }
            for waiter in ready { waiter.continuation.resume() }
        }
    }

    /// Waits until `count` loads in all have finished (each delivered on the main queue).
    func waitForLoads(_ count: Int, timeout: TimeInterval = 20, file: StaticString = #filePath, line: UInt = #line) async {
        guard finished.count < count else { return }
        let deadline = Task { @MainActor [weak self] in
            try? await Task.sleep(for: .seconds(timeout))
            guard let self, !Task.isCancelled, self.finished.count < count else { return }
            XCTFail("only \(self.finished.count) of \(count) loads finished in \(timeout) s", file: file, line: line)
            let waiters = self.waiters
            self.waiters.removeAll()
            for waiter in waiters { waiter.continuation.resume() }
        }
        await withCheckedContinuation { waiters.append((count, $0)) }
        deadline.cancel()
    }

    /// Polls `condition` while the main queue delivers results, until it holds or the deadline passes.
    func waitUntil(_ what: String, timeout: TimeInterval = 20, file: StaticString = #filePath, line: UInt = #line,
                   _ condition: @MainActor () -> Bool) async {
        let deadline = Date().addingTimeInterval(timeout)
        while !condition() {
            guard Date() < deadline else {
                XCTFail("timed out after \(timeout) s waiting for \(what)", file: file, line: line)
                return
            }
            // Lets the main queue run the deliveries this waits for.
            try? await Task.sleep(for: .milliseconds(5))
        }
    }

    /// Starts the app and waits for both tabs' first load (on WebDAV a tab may load twice
    /// before the other has loaded once: its list, then the list at its cursor).
    func start() async {
        app.start()
        await waitForLoads(2)
        await waitUntil("both tabs' first load") { Set(self.finished).isSuperset(of: Tab.allCases) }
    }

    func press(_ keys: Key...) {
        for key in keys { compositor.handle(key) }
    }

    /// Opens the note named `name` from the Notes list, as a user does (Home, Down to its row,
    /// Enter), and waits until it is open in the editor.
    func open(note name: String, file: StaticString = #filePath, line: UInt = #line) async throws {
        let row = try XCTUnwrap(app.noteItems.firstIndex { if case .note(let entry, _) = $0 { entry.name == name } else { false } },
                                "\(name) is not in the list", file: file, line: line)
        press(.home)
        for _ in 0..<row { press(.down) }
        press(.enter)
        await waitUntil("\(name) open", file: file, line: line) { self.app.state.note?.entry?.name == name && self.app.state.note?.isEditing == true }
    }

    func render(width: Int, height: Int) -> GridCanvas {
        let canvas = GridCanvas(width: width, height: height)
        compositor.render(into: canvas)
        return canvas
    }
}

/// UI effects whose clock the test turns: delayed and repeated work runs only in ``advance(by:)``,
/// synchronously, in time order; results of work off the queue arrive as on the app's main queue.
@MainActor
final class ManualEffects: UIEffects {
    private let live = MainQueueEffects()
    private(set) var clock: Double = 1000
    private var timers: [(due: Double, interval: Double?, body: @MainActor () -> Void, handle: Handle)] = []

    final class Handle: UIRepeating {
        var isCancelled = false
        func cancel() { isCancelled = true }
    }

    func perform<T: Sendable>(_ work: @escaping @Sendable () async throws(RemoteError) -> T,
                              then deliver: @escaping @MainActor (Result<T, RemoteError>) -> Void) -> Task<Void, Never> {
        live.perform(work, then: deliver)
    }

    func after(_ delay: Duration, _ body: @escaping @MainActor () -> Void) {
        timers.append((clock + seconds(delay), nil, body, Handle()))
    }

    func repeating(every interval: Duration, _ body: @escaping @MainActor () -> Void) -> any UIRepeating {
        let handle = Handle()
        timers.append((clock + seconds(interval), seconds(interval), body, handle))
        return handle
    }

    func relay(_ body: @escaping @MainActor @Sendable (Int64, Int64) -> Void) -> ProgressHandler {
        live.relay(body)
    }

    func now() -> Double { clock }

    /// How many delayed pieces of work wait (not the repeating ones: the app's clock tick
    /// repeats for as long as it runs).
    var pending: Int { timers.filter { !$0.handle.isCancelled && $0.interval == nil }.count }
    /// How many repeating pieces of work run.
    var repeatingCount: Int { timers.filter { !$0.handle.isCancelled && $0.interval != nil }.count }

    /// Moves the clock on, running what falls due on the way.
    func advance(by duration: Duration) {
        let end = clock + seconds(duration)
        while let index = timers.indices.filter({ !timers[$0].handle.isCancelled && timers[$0].due <= end })
                .min(by: { timers[$0].due < timers[$1].due }) {
            let timer = timers.remove(at: index)
            clock = max(clock, timer.due)
            if let interval = timer.interval { timers.append((timer.due + interval, interval, timer.body, timer.handle)) }
            timer.body()
        }
        clock = end
    }

    private func seconds(_ duration: Duration) -> Double {
        Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18
    }
}
