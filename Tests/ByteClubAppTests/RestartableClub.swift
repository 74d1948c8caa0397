import ByteClubApp
import ClubServer
import Foundation
#if canImport(Glibc)
import Glibc
#endif
import Remote
import Synchronization
import TerminalUI
import TestSupport
import XCTest

/// A club server over a folder that outlives it: stopped and started again on the same port.
final class RestartableClub: @unchecked Sendable {
    // Safe: `server` is only touched from the test's main actor (start/stop/close), one at a time.
    let base: URL
    let rayToken = "ray-\(UUID().uuidString)"
    let annToken = "ann-\(UUID().uuidString)"
    private var server: ClubServer?
    private var port = 0
    /// The port while the server is stopped, so no other test's server is handed it meanwhile.
    private var hold: PortHold?

    /// The server's access log, line by line, when a test reads it (OneSavePathTests).
    let requests: RequestLog?

    init(notes: [String: String], requests: RequestLog? = nil) async throws {
        self.requests = requests
        base = FileManager.default.temporaryDirectory.appendingPathComponent("byteclub-offline-club-\(UUID().uuidString)")
        let folder = base.appendingPathComponent("club/byteclub")
        try FileManager.default.createDirectory(at: folder.appendingPathComponent("photos"), withIntermediateDirectories: true)
        for (name, text) in notes { try text.write(to: folder.appendingPathComponent(name), atomically: true, encoding: .utf8) }
        try await start()
    }

    var folder: URL { base.appendingPathComponent("club/byteclub") }
    var url: URL { URL(string: "http://127.0.0.1:\(port)")! }

    func text(_ name: String) -> String? { try? String(contentsOf: folder.appendingPathComponent(name), encoding: .utf8) }

    func start() async throws {
        var configuration = ClubServerConfiguration(root: base.appendingPathComponent("club").path, token: "")
        configuration.members = [ClubMember(name: "ray", token: rayToken), ClubMember(name: "ann", token: annToken)]
        configuration.port = port
        configuration.logger.logLevel = .error
        if let requests { configuration.logger = requests.logger() }
        hold?.release()
        hold = nil
        let started = try await ClubServer.start(configuration)
        server = started
        port = started.port
    }

    func stop() async throws {
        await server?.stop()
        server = nil
        hold = try PortHold(port: port)
    }

    /// Ray's app on this club, as the executable configures it: drafts and an outbox under
    /// `state`, the change feed on or off, and `retry` (by default, retries as the app's).
    @MainActor
    func rayApp(state: URL, live: Bool, retry: RetryPolicy = RetryPolicy()) -> Harness {
        let store = DropboxStore(displayName: "club", endpoints: .club(url), tokens: StaticToken(rayToken),
                                 connection: ConnectionOptions(idleTimeout: 10), retry: retry)
        return Harness(store: store, drafts: DraftStore(directory: state.appendingPathComponent("drafts"))) { configuration in
            configuration.outbox = Outbox(directory: state.appendingPathComponent("outbox"))
            configuration.liveUpdates = live
        }
    }

    func close() async {
        hold?.release()
        hold = nil
        await server?.stop()
        try? FileManager.default.removeItem(at: base)
    }
}

/// Counts full listings (first pages, no cursor) by folder.
final class ListingCounter: Sendable {
    private let counts = Mutex<[String: Int]>([:])
    func count(_ folder: String) { counts.withLock { $0[folder.lowercased(), default: 0] += 1 } }
    func fullListings(of folder: String) -> Int { counts.withLock { $0[folder.lowercased()] ?? 0 } }
}

extension NoteItem {
    /// The row's title, as the list shows it without marks.
    var title: String {
        switch self {
        case .note(let entry, _): return ClubLayout.title(of: entry.name)
        case .draft(let draft): return draft.title
        case .folder(let folder): return folder.name + "/"
        case .file(let entry): return entry.name
        }
    }
}

/// Forwards every call and counts listings that start from nothing (no cursor).
struct CountingStore: ForwardingStore {
    let base: any RemoteStore
    let counter: ListingCounter

    func listPage(_ folder: String, cursor: String?, limit: Int) async throws(RemoteError) -> (entries: [RemoteEntry], next: String?) {
        let page = try await base.listPage(folder, cursor: cursor, limit: limit)
        if cursor == nil, limit > 1 { counter.count(folder) }
        return page
    }
}
