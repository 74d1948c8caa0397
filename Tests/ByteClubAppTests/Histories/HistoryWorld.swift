import ByteClubApp
import ClubCrypt
import ClubKit
import ClubServer
import Foundation
import Remote
import TestSupport
import XCTest

/// Which backend a history runs on: both clubs of one kind.
enum HistoryBackend: String, CaseIterable, Sendable {
    case club, webdav, encrypted
}

/// One club of a history: a club server in this process (members ann and bob, stopped and
/// started again on its port for "offline"), or `rclone serve webdav` (stopped and started again).
final class HistoryClub: @unchecked Sendable {
    // Safe: touched only from the test's main actor, one step at a time.
    let index: Int
    let backend: HistoryBackend
    let base: URL
    let tokens: [HistoryMember: String]
    private var server: ClubServer?
    private var hold: PortHold?
    private var webdav: RcloneWebDAV?
    private(set) var port = 0
    private let davUser = "member"
    private let davPassword = "pw-\(UUID().uuidString.prefix(8))"

    init(index: Int, backend: HistoryBackend) async throws {
        self.index = index
        self.backend = backend
        base = FileManager.default.temporaryDirectory.appendingPathComponent("byteclub-history-\(index)-\(UUID().uuidString)")
        tokens = [.ann: "ann-\(UUID().uuidString)", .bob: "bob-\(UUID().uuidString)"]
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        try await start()
    }

    /// The served root; the club's notes are in `byteclub/` under it.
    var root: URL { base.appendingPathComponent("root") }
    var folder: URL { root.appendingPathComponent("byteclub") }
    var url: URL { backend == .webdav ? URL(string: "http://127.0.0.1:\(port)/")! : URL(string: "http://127.0.0.1:\(port)")! }
    var isRunning: Bool { server != nil || webdav != nil }

    func start() async throws {
        hold?.release()
        hold = nil
        if backend == .webdav {
            webdav = try RcloneWebDAV(user: davUser, password: davPassword, root: root, port: port == 0 ? nil : port)
            port = webdav?.port ?? 0
            return
        }
        var configuration = ClubServerConfiguration(root: root.path, token: "")
        configuration.members = HistoryMember.allCases.map { ClubMember(name: $0.rawValue, token: tokens[$0]!) }
        configuration.port = port
        configuration.logger.logLevel = .critical
        let started = try await ClubServer.start(configuration)
        server = started
        port = started.port
    }

    func stop() async throws {
        if let webdav {
            webdav.stop()
            self.webdav = nil
        } else {
            await server?.stop()
            server = nil
        }
        hold = try PortHold(port: port)
    }

    func close() async {
        hold?.release()
        hold = nil
        await server?.stop()
        server = nil
        webdav?.stop()
        webdav = nil
        try? FileManager.default.removeItem(at: base)
    }

    /// How `member`'s command line names this club.
    func arguments(for member: HistoryMember) -> [String] {
        backend == .webdav ? ["--webdav", url.absoluteString, "--user", davUser] : ["--server", url.absoluteString, "--token", tokens[member]!]
    }

    /// What `member`'s command line needs in its environment for this club.
    var environment: [String: String] { backend == .webdav ? ["BYTECLUB_WEBDAV_PASSWORD": davPassword] : [:] }

    /// The choice the executable makes for these arguments (ClubKit's one way to a store).
    func choice(for member: HistoryMember) -> BackendChoice {
        backend == .webdav ? .webdav(url: url, user: davUser, password: davPassword) : .club(url: url, token: tokens[member], pin: nil)
    }
}

/// A member's machine: their home and `XDG_*` folders (an ``AppHarness`` world), where their
/// command line runs and their app keeps its drafts, outbox and cache.
@MainActor
final class HistoryMachine {
    let member: HistoryMember
    let world: AppHarness
    /// The store that app talks through, to hold it off the club for a step.
    var appStore: StallingStore?
    /// The app, while it runs, and the club it is on.
    var app: Harness?
    var appClub: Int?
    /// A note open in the app with typed text not yet saved.
    var typing: Int?

    init(member: HistoryMember) throws {
        self.member = member
        world = try AppHarness()
    }

    var state: URL { world.state }
    var cache: URL { world.base.appendingPathComponent("cache/byteclub") }

    /// The folders this machine keeps for the club whose ``Backend/key`` is `key`.
    func drafts(_ key: String) -> URL { state.appendingPathComponent("drafts").appendingPathComponent(key) }
    func outbox(_ key: String) -> URL { state.appendingPathComponent("outbox").appendingPathComponent(key) }
    func cacheFolder(_ key: String) -> URL { cache.appendingPathComponent(key) }

    /// Runs `byteclub ARGUMENTS` in this machine's world.
    func cli(_ arguments: [String], club: HistoryClub, input: String? = nil, environment: [String: String] = [:]) throws -> ChildProcess.Result {
        try ChildProcess.run([try AppHarness.binary.path] + arguments + club.arguments(for: member), within: 60,
                             environment: world.environment.merging(club.environment) { $1 }.merging(environment) { $1 }, input: input)
    }
}
