import ClubKit
import Foundation
import Remote
import XCTest

/// What the command line builds its backend with, imported directly: no binary, no flags.
final class BackendTests: XCTestCase {
    private var scratch: URL!
    private var saved: [String: String?] = [:]

    override func setUp() {
        scratch = FileManager.default.temporaryDirectory.appendingPathComponent("clubkit-\(UUID().uuidString)")
        try? FileManager.default.createDirectory(at: scratch, withIntermediateDirectories: true)
        // Paths reads the XDG folders from the environment: this test's own, put back after.
        for (name, folder) in [("XDG_STATE_HOME", "state"), ("XDG_CACHE_HOME", "cache"), ("XDG_DATA_HOME", "data")] {
            saved[name] = ProcessInfo.processInfo.environment[name]
            setenv(name, scratch.appendingPathComponent(folder).path, 1)
        }
    }

    override func tearDown() {
        for (name, value) in saved {
            if let value { setenv(name, value, 1) } else { unsetenv(name) }
        }
        try? FileManager.default.removeItem(at: scratch)
    }

    func testTheEmbeddedBackendServesItsSeededClubOverLoopbackAndStops() async throws {
        let root = scratch.appendingPathComponent("club")
        let backend = try await Backend.connect(.embedded(root: root), connection: ConnectionOptions())
        let notes = try await backend.store.list("/byteclub")
        await backend.close()
        XCTAssertTrue(notes.contains { $0.name == "Welcome to Byte Club.txt" }, "the sample notes are seeded and listed through the real server")
        XCTAssertEqual(backend.embeddedRoot, root)
        XCTAssertEqual(backend.server?.baseURL.host, "127.0.0.1")
        XCTAssertTrue(backend.key.hasPrefix("embedded-"), "the embedded club's folders are named after its root: \(backend.key)")
        XCTAssertEqual(backend.label, "embedded")
    }

    /// The status bar names the club, never its URL; the folders on disk still follow the URL.
    func testAClubServerIsCalledClubWhileItsFoldersFollowItsURL() async throws {
        let url = URL(string: "http://10.0.0.7:8421/")!
        let backend = try await Backend.connect(.club(url: url, token: "t", pin: nil), connection: ConnectionOptions())
        XCTAssertEqual(backend.label, "club")
        XCTAssertEqual(backend.key, Paths.key(displayName: url.absoluteString), "the outbox and the cache stay where they were")
        XCTAssertNotEqual(backend.key, Paths.key(displayName: "club"))
    }

    func testAClubServerWithoutATokenIsRefusedInWords() async throws {
        // The refusal is of a missing token: one from this process's environment would be used.
        let outside = ProcessInfo.processInfo.environment["BYTECLUB_TOKEN"]
        unsetenv("BYTECLUB_TOKEN")
        defer { if let outside { setenv("BYTECLUB_TOKEN", outside, 1) } }
        do {
            _ = try await Backend.connect(.club(url: URL(string: "http://127.0.0.1:9")!, token: nil, pin: nil), connection: ConnectionOptions())
            XCTFail("connected without a token")
        } catch let error as BackendError {
            XCTAssertEqual(error, .serverNeedsToken)
            XCTAssertEqual(error.description, "--server needs --token (or BYTECLUB_TOKEN)")
        }
    }

    func testTwoClubsNeverShareAFolderNameAndAnAccountIsPartOfIt() {
        let one = Paths.key(displayName: "http://10.0.0.1:8421")
        let other = Paths.key(displayName: "http://10.0.0.2:8421")
        XCTAssertNotEqual(one, other)
        XCTAssertNotEqual(Paths.key(displayName: "dropbox", account: "dbid:a"), Paths.key(displayName: "dropbox", account: "dbid:b"))
        XCTAssertNotEqual(Paths.key(displayName: "http://h", folder: "/byteclub"), Paths.key(displayName: "http://h", folder: "/other"))
        XCTAssertEqual(Paths.outbox(one).deletingLastPathComponent().path, scratch.appendingPathComponent("state/byteclub/outbox").path)
    }

    func testTheFallbackAccountIsStableForOneLoginAndDiffersForAnother() {
        let login = StoredTokens(accessToken: "a", refreshToken: "refresh-1", expiresAt: Date(), appKey: "k")
        let again = StoredTokens(accessToken: "b", refreshToken: "refresh-1", expiresAt: Date(), appKey: "k")
        let other = StoredTokens(accessToken: "a", refreshToken: "refresh-2", expiresAt: Date(), appKey: "k")
        XCTAssertEqual(DropboxAccount.fallback(login), DropboxAccount.fallback(again))
        XCTAssertNotEqual(DropboxAccount.fallback(login), DropboxAccount.fallback(other))
        XCTAssertTrue(DropboxAccount.fallback(login).hasPrefix("login-"))
    }

    func testFormerFoldersMoveToTheAccountsOwnNameButNeverIntoOneThatExists() async throws {
        let root = scratch.appendingPathComponent("club")
        let embedded = try await Backend.connect(.embedded(root: root), connection: ConnectionOptions())
        await embedded.close()
        var backend = Backend(store: embedded.store, server: nil, label: "dropbox", account: "dbid:me", formerAccounts: ["login-1", nil])
        let manager = FileManager.default
        let fromFallback = Paths.outbox(Paths.key(displayName: backend.store.displayName, account: "login-1"))
        try manager.createDirectory(at: fromFallback, withIntermediateDirectories: true)
        try Data("queued".utf8).write(to: fromFallback.appendingPathComponent("item"))
        let fromPlain = Paths.cache(Paths.key(displayName: backend.store.displayName, account: nil))
        try manager.createDirectory(at: fromPlain, withIntermediateDirectories: true)
        backend.adoptFormerFolders()
        XCTAssertEqual(try Data(contentsOf: Paths.outbox(backend.key).appendingPathComponent("item")), Data("queued".utf8))
        XCTAssertFalse(manager.fileExists(atPath: fromFallback.path))
        XCTAssertTrue(manager.fileExists(atPath: Paths.cache(backend.key).path), "the plain name's cache moved too")
        // A later folder under an old name stays where it is: the account's own is there now.
        try manager.createDirectory(at: fromFallback, withIntermediateDirectories: true)
        try Data("later".utf8).write(to: fromFallback.appendingPathComponent("other"))
        backend.folder = "/byteclub"
        backend.adoptFormerFolders()
        XCTAssertTrue(manager.fileExists(atPath: fromFallback.appendingPathComponent("other").path))
        XCTAssertFalse(manager.fileExists(atPath: Paths.outbox(backend.key).appendingPathComponent("other").path))
    }
}
