import ByteClubApp
import ClubKit
import Foundation
import Remote
import TerminalUI
import TestSupport
import XCTest

/// Issue 54, "Search on WebDAV": the app and `byteclub search` keep one index per club in one
/// file (`$XDG_CACHE_HOME/byteclub/<club>/search.sqlite`). `byteclub search` listed only the top
/// folder, so its sync forgot every note in a subfolder, and the running app, which trusted its
/// last sync, found none of them with `Ctrl-F` until it restarted. Both now keep the index by
/// one rule (``ClubIndexSync``: the Notes tab's notes, at any depth), and the app asks whether
/// another process wrote to the file and, if one did, brings it current against its own list.
///
/// The app in this process on a real `rclone serve webdav`, with its real SQLite index in the
/// folder the command line uses for that club; the built `byteclub` with the same XDG folders.
@MainActor
final class SharedSearchIndexTests: XCTestCase {
    var server: RcloneWebDAV!
    var base: URL!

    override func setUp() async throws {
        try Requirement.tool(RcloneWebDAV.executable != nil, "rclone is not installed (make deps)")
        server = try RcloneWebDAV()
        base = FileManager.default.temporaryDirectory.appendingPathComponent("shared-search-index-\(UUID().uuidString)")
        try write("Welcome to the harbour club\n", "byteclub/Welcome.md")
        try write("# Day one\nkayak to the island\n", "byteclub/Trips/Day one.md")
        try write("the lighthouse keeper's log\n", "byteclub/Old Stuff/2025/Deep two.md")
    }

    override func tearDown() async throws {
        server?.remove()
        if let base { try? FileManager.default.removeItem(at: base) }
    }

    func write(_ text: String, _ relative: String) throws {
        let url = server.file(relative)
        try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
        try Data(text.utf8).write(to: url)
    }

    var cacheHome: URL { base.appendingPathComponent("home/cache") }

    /// The app on the WebDAV folder with its index where the command line keeps this club's
    /// (`Paths.cache(key)` under ``cacheHome``), started and done indexing every note.
    func startedApp() async throws -> (Harness, indexFolder: URL) {
        let store = try await WebDAVStore.connect(url: server.url, user: server.user, password: server.password)
        let indexFolder = cacheHome.appendingPathComponent("byteclub").appendingPathComponent(Paths.key(displayName: store.displayName))
        let harness = Harness(store: store, drafts: DraftStore(directory: base.appendingPathComponent("drafts"))) { configuration in
            configuration.searchIndex = AppConfiguration.searchIndex(in: indexFolder)
        }
        await harness.start()
        let reader = try AppConfiguration.searchIndex(in: indexFolder)()
        await harness.waitUntil("every note indexed, subfolders too") {
            ["harbour", "kayak", "lighthouse"].allSatisfy { ((try? reader.search($0, limit: 5, under: nil)) ?? []).count == 1 }
        }
        return (harness, indexFolder)
    }

    /// The built `byteclub` as a script runs it, with this test's XDG folders, off the main
    /// actor (the app goes on meanwhile).
    func byteclub(_ arguments: [String]) async throws -> ByteclubRun {
        let home = base.appendingPathComponent("home")
        var environment = ProcessInfo.processInfo.environment
        environment["HOME"] = home.path
        for (variable, folder) in [("XDG_DATA_HOME", "data"), ("XDG_STATE_HOME", "state"), ("XDG_CONFIG_HOME", "config"), ("XDG_CACHE_HOME", "cache")] {
            environment[variable] = home.appendingPathComponent(folder).path
        }
        let work = base.appendingPathComponent("work"), temp = base.appendingPathComponent("tmp")
        try FileManager.default.createDirectory(at: work, withIntermediateDirectories: true)
        try FileManager.default.createDirectory(at: temp, withIntermediateDirectories: true)
        environment["TMPDIR"] = temp.path
        environment["BYTECLUB_TOKEN"] = nil
        environment["BYTECLUB_WEBDAV_PASSWORD"] = server.password
        let all = arguments + ["--webdav", server.url.absoluteString, "--user", server.user]
        let (frozen, folder) = (environment, work)
        return try await Task.detached { try ByteclubRun.run(all, in: folder, environment: frozen, timeout: 60) }.value
    }

    func paths(_ run: ByteclubRun) throws -> [String] {
        let hits = try XCTUnwrap(try JSONSerialization.jsonObject(with: run.stdout) as? [[String: Any]], run.out + run.err)
        return hits.compactMap { $0["path_display"] as? String }
    }

    /// Searches the running app the way a user does: Ctrl-F, the words, and the hits listed.
    func searchInTheApp(_ harness: Harness, _ words: String, finds name: String, _ what: String) async {
        if harness.app.state.search != nil { harness.press(.escape) }
        harness.press(.ctrl("f"))
        for character in words { harness.press(.char(character)) }
        await harness.waitUntil(what, timeout: 15) { harness.app.state.search?.hits.map(\.name) == [name] }
    }

    /// The trial: the app open and done indexing, one `byteclub search` on the same club, then
    /// `Ctrl-F` in the app. Before, the search's sync (4 top-level rows) had forgotten every note
    /// in a subfolder, and the app found none of them until it restarted.
    func testACommandLineSearchLeavesTheRunningAppsIndexWhole() async throws {
        let (harness, indexFolder) = try await startedApp()

        let cli = try await byteclub(["search", "harbour", "--json"])
        XCTAssertEqual(cli.status, 0, cli.err)
        XCTAssertEqual(try paths(cli), ["/byteclub/Welcome.md"])
        let indexes = (FileManager.default.enumerator(atPath: cacheHome.path)?.allObjects as? [String] ?? []).filter { $0.hasSuffix("search.sqlite") }
        XCTAssertEqual(indexes.map { cacheHome.appendingPathComponent($0).standardizedFileURL.path },
                       [indexFolder.appendingPathComponent("search.sqlite").standardizedFileURL.path],
                       "one index for the club: the command line's is the app's")

        await searchInTheApp(harness, "kayak", finds: "Day one.md", "the app's Ctrl-F finds a note in a subfolder after the CLI's search")
        await searchInTheApp(harness, "lighthouse", finds: "Deep two.md", "and one two folders down")

        // The command line finds them too, from the same file.
        let deep = try await byteclub(["search", "lighthouse", "--json"])
        XCTAssertEqual(deep.status, 0, deep.err)
        XCTAssertEqual(try paths(deep), ["/byteclub/Old Stuff/2025/Deep two.md"])
        await searchInTheApp(harness, "kayak", finds: "Day one.md", "still, after a second search")
        harness.app.requestQuit()
    }

    /// Whatever another process does to the shared file, the app does not trust its last sync:
    /// rows taken away under it (as an older `byteclub search` did) are put back when the
    /// results screen opens, without a restart and without the notes list moving.
    func testTheAppPutsBackRowsAnotherProcessTookFromTheSharedIndex() async throws {
        let (harness, indexFolder) = try await startedApp()
        let other = try AppConfiguration.searchIndex(in: indexFolder)()
        try other.remove(path: "/byteclub/Trips/Day one.md")
        try other.remove(path: "/byteclub/Old Stuff/2025/Deep two.md")
        XCTAssertEqual(try other.search("kayak", limit: 5, under: nil).count, 0, "gone from the file")

        await searchInTheApp(harness, "kayak", finds: "Day one.md", "the row another process removed is back")
        await searchInTheApp(harness, "lighthouse", finds: "Deep two.md", "and the other")
        XCTAssertEqual(try other.search("lighthouse", limit: 5, under: nil).map(\.path), ["/byteclub/Old Stuff/2025/Deep two.md"],
                       "in the file both share")
        harness.app.requestQuit()
    }
}
