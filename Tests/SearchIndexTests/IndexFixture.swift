import Foundation
import XCTest
@testable import SearchIndex

/// A fresh index folder per test, removed afterwards.
final class IndexFolder {
    let url: URL

    init() throws {
        url = FileManager.default.temporaryDirectory.appendingPathComponent("search-index-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    }

    deinit { try? FileManager.default.removeItem(at: url) }

    var file: URL { url.appendingPathComponent(SearchIndex.fileName) }
}

func note(_ path: String, _ text: String, rev: String = "r1", modified: TimeInterval = 1_700_000_000, by: String? = "dbid:alice") -> IndexedNote {
    IndexedNote(path: path, rev: rev, modified: Date(timeIntervalSince1970: modified), modifiedBy: by, text: text)
}

/// A thread-safe log for progress callbacks and fetch counts.
final class Recorder<T: Sendable>: @unchecked Sendable {
    // @unchecked: every access to `items` holds `lock`.
    private let lock = NSLock()
    private var items: [T] = []

    func append(_ item: T) { lock.withLock { items.append(item) } }
    var all: [T] { lock.withLock { items } }
}
