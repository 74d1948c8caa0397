import Foundation
import XCTest
#if canImport(Glibc)
import Glibc
#endif

/// A club whose server goes away and comes back, for the offline end-to-end tests: `byteclub
/// serve` with two members (ray and ann) over a served folder, killed with SIGKILL and started
/// again on the same port and root, and ray's app (an ``AppHarness``) on it with `--server`.
///
/// ``writeAsAnn(_:note:)`` changes a note as ann while ray's app cannot reach the server: a
/// second server on the same root, on another port that only ann is told of, answers one
/// `byteclub put` and is killed again, so ray's app never sees a server answer meanwhile.
public final class OfflineClub {
    public enum Member: String, CaseIterable { case ray, ann }

    public let base: URL
    public let app: AppHarness
    private var server: Process?
    /// The port ray's app is told of; the server always comes back on it.
    public private(set) var port = 0
    /// The port while the server is down, so no other test's server is handed it meanwhile.
    private var hold: PortHold?

    /// Seeds the served folder with `notes` (file name → text) and starts the server.
    public init(notes: [String: String]) throws {
        base = FileManager.default.temporaryDirectory.appendingPathComponent("byteclub-offline-\(UUID().uuidString)")
        app = try AppHarness()
        try FileManager.default.createDirectory(at: notesFolder.appendingPathComponent("photos"), withIntermediateDirectories: true)
        let folder = notesFolder.path + "/"
        for (name, text) in notes {
            if name.contains("/") {
                try FileManager.default.createDirectory(atPath: ((folder + name) as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
            }
            try Self.writeFixture(text, to: folder + name)
        }
        try startServer()
    }

    /// Writes a fixture file in one `write(2)`: `String.write(atomically:)` (a temporary file, a
    /// rename and Foundation's bookkeeping per file) took 5.6 s for 10,000 notes, 30 s under load.
    public static func writeFixture(_ text: String, to path: String) throws {
        var text = text
        let fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
        guard fd >= 0 else { throw NSError(domain: "fixture", code: Int(errno), userInfo: [NSLocalizedDescriptionKey: "cannot create \(path)"]) }
        defer { _ = Glibc.close(fd) }
        let written = text.withUTF8 { write(fd, $0.baseAddress, $0.count) }
        guard written == text.utf8.count else {
            throw NSError(domain: "fixture", code: Int(errno), userInfo: [NSLocalizedDescriptionKey: "cannot write \(path)"])
        }
    }

    /// The served folder (`serve --root`), and the club's notes in it, on the server's disk.
    public var root: URL { base.appendingPathComponent("served") }
    public var notesFolder: URL { root.appendingPathComponent("byteclub") }
    public var url: String { "http://127.0.0.1:\(port)" }

    public func token(of member: Member) -> String { "offline-\(member.rawValue)-token" }

    /// A note's text on the server's disk, or nil.
    public func text(ofNote name: String) -> String? { AppHarness.text(notesFolder.appendingPathComponent(name)) }
    public func exists(_ name: String) -> Bool { FileManager.default.fileExists(atPath: notesFolder.appendingPathComponent(name).path) }

    /// Starts ray's app on the club.
    @discardableResult
    public func launchRay() throws -> TmuxSession {
        try app.launch(["--server", url, "--token", token(of: .ray)])
    }

    // MARK: The server

    /// Starts `byteclub serve` on ``port`` (a free one the first time) and waits until it listens.
    public func startServer() throws {
        precondition(server == nil, "the server is running")
        hold?.release()
        hold = nil
        let (process, bound) = try Self.serve(root: root, port: port, members: Member.allCases.map { ($0.rawValue, token(of: $0)) })
        server = process
        port = bound
    }

    /// Kills the server outright (SIGKILL), as a machine that went away.
    public func killServer() {
        guard let server else { return }
        Self.kill(server)
        self.server = nil
        hold = try? PortHold(port: port)
    }

    /// `byteclub serve --root root --port port` with `members`; returns the process and its port.
    private static func serve(root: URL, port: Int, members: [(String, String)]) throws -> (Process, Int) {
        try MemberServe.start(["serve", "--insecure-http", "--root", root.path, "--create", "--port", "\(port)", "--log-level", "error"]
                                + members.flatMap { ["--member", "\($0.0)=\($0.1)"] }, port: port)
    }

    private static func kill(_ process: Process) {
        guard process.isRunning else { return }
        Glibc.kill(process.processIdentifier, SIGKILL)
        process.waitUntilExit()
    }

    // MARK: Another member, meanwhile

    /// Ann replaces the note `name` with `text` through the API (`byteclub put --mode overwrite`
    /// with her token), on a server of its own over the same root while ray's is down.
    public func writeAsAnn(_ text: String, note name: String) throws {
        precondition(server == nil, "ray's server must be down, or ray's app would see ann's change live")
        let (annServer, annPort) = try Self.serve(root: root, port: 0, members: Member.allCases.map { ($0.rawValue, token(of: $0)) })
        defer { Self.kill(annServer) }
        let local = base.appendingPathComponent("ann-\(UUID().uuidString).txt")
        try text.write(to: local, atomically: true, encoding: .utf8)
        let cliHome = base.appendingPathComponent("ann-cli")
        let put = Process()
        put.executableURL = try AppHarness.binary
        put.arguments = ["put", local.path, "/byteclub/\(name)", "--mode", "overwrite",
                         "--server", "http://127.0.0.1:\(annPort)", "--token", token(of: .ann)]
        // Its own HOME and XDG folders: no config.toml or remote of the machine's user.
        put.environment = ["HOME": cliHome.path, "XDG_CONFIG_HOME": cliHome.appendingPathComponent("config").path,
                           "XDG_STATE_HOME": cliHome.appendingPathComponent("state").path,
                           "XDG_CACHE_HOME": cliHome.appendingPathComponent("cache").path, "PATH": "/usr/bin:/bin", "LANG": "C.UTF-8"]
        let errors = Pipe()
        put.standardOutput = FileHandle.nullDevice
        put.standardError = errors
        try put.run()
        let deadline = Date().addingTimeInterval(30)
        while put.isRunning, Date() < deadline { usleep(20_000) }
        if put.isRunning { Self.kill(put) }
        put.waitUntilExit()
        guard put.terminationStatus == 0 else {
            let said = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
            throw NSError(domain: "put", code: Int(put.terminationStatus), userInfo: [NSLocalizedDescriptionKey: "byteclub put as ann failed: \(said)"])
        }
    }

    // MARK: Ray's files

    /// The outbox items on disk, as text (every club's folder under `$XDG_STATE_HOME/byteclub/outbox`).
    public func outboxItems() -> [String] {
        let outbox = app.state.appendingPathComponent("outbox")
        let clubs = (try? FileManager.default.contentsOfDirectory(atPath: outbox.path)) ?? []
        return clubs.flatMap { club -> [String] in
            let folder = outbox.appendingPathComponent(club)
            let names = (try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? []
            return names.filter { $0.hasSuffix(".json") && !$0.hasPrefix(".") }.sorted()
                .compactMap { AppHarness.text(folder.appendingPathComponent($0)) }
        }
    }

    /// Whether the app has written the Notes tab's list to its disk cache
    /// (`$XDG_CACHE_HOME/byteclub/<club>/listing-notes`, written shortly after a load).
    public func notesListCached() -> Bool {
        let cache = app.base.appendingPathComponent("cache/byteclub")
        let clubs = (try? FileManager.default.contentsOfDirectory(atPath: cache.path)) ?? []
        return clubs.contains { FileManager.default.fileExists(atPath: cache.appendingPathComponent("\($0)/listing-notes").path) }
    }

    /// The kinds and paths of the outbox items the app's log says were sent, in the order it
    /// logged them ("outbox item=save /byteclub/Plans.txt result=…").
    public func sentInLog() -> [String] {
        let log = AppHarness.text(app.log) ?? ""
        return log.split(separator: "\n").compactMap { line -> String? in
            guard line.contains(" outbox "), let start = line.range(of: "item=") else { return nil }
            let rest = line[start.upperBound...]
            let end = rest.range(of: " result=")?.lowerBound ?? rest.endIndex
            return String(rest[..<end])
        }
    }

    /// For a failure's message: the files under the app's cache folder and the end of its log.
    public func diagnostics() -> String {
        let cache = app.base.appendingPathComponent("cache")
        let files = (FileManager.default.enumerator(atPath: cache.path)?.allObjects as? [String]) ?? []
        let log = (AppHarness.text(app.log) ?? "").split(separator: "\n").suffix(40).joined(separator: "\n")
        return "cache: \(files.sorted())\nlog:\n\(log)"
    }

    /// The status bar: the screen's line with the "? help" hint.
    public static func statusBar(_ screen: String) -> String {
        screen.split(separator: "\n").last { $0.contains("? help") || $0.contains("F1 help") }.map(String.init) ?? ""
    }

    public func close() {
        app.close()
        killServer()
        hold?.release()
        hold = nil
        try? FileManager.default.removeItem(at: base)
    }
}
