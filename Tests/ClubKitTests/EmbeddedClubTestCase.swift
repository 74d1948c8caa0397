import ClubKit
import Foundation
import Remote
import XCTest

/// A test with an embedded club of its own, seeded as a new club is, in a scratch folder; the
/// XDG folders (cache, state, data, config) point into it too, so a search index or an outbox made
/// there never touches the machine's.
class EmbeddedClubTestCase: XCTestCase {
    var scratch: URL!
    var backend: Backend!
    private var saved: [String: String?] = [:]

    override func setUp() async throws {
        scratch = FileManager.default.temporaryDirectory.appendingPathComponent("clubkit-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: scratch, withIntermediateDirectories: true)
        for (name, folder) in [("XDG_STATE_HOME", "state"), ("XDG_CACHE_HOME", "cache"), ("XDG_DATA_HOME", "data"), ("XDG_CONFIG_HOME", "config")] {
            saved[name] = ProcessInfo.processInfo.environment[name]
            setenv(name, scratch.appendingPathComponent(folder).path, 1)
        }
        backend = try await Backend.connect(.embedded(root: scratch.appendingPathComponent("club")), connection: ConnectionOptions())
    }

    override func tearDown() async throws {
        await backend?.close()
        for (name, value) in saved {
            if let value { setenv(name, value, 1) } else { unsetenv(name) }
        }
        try? FileManager.default.removeItem(at: scratch)
    }

    /// `text` as a new file at `path` in the club.
    func put(_ text: String, _ path: String) async throws {
        _ = try await backend.store.upload(data: Data(text.utf8), to: path, mode: .add, autorename: false)
    }
}
