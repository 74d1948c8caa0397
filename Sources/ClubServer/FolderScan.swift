import DropboxWire
import Foundation
import SearchIndex
import Synchronization

/// `search_v2` answered by reading the notes on disk, as ripgrep would: what ``ContentSearch``
/// does while its index does not yet cover the folder (a server's first start over a folder it
/// has never seen: building the index of 100,000 notes takes seconds, reading them less than one).
///
/// The folder is walked as every walk here is (``FolderPaths/walk(_:recursive:_:)``: inside the
/// root, links not entered, the server's own folder left out), then the notes are read on every
/// core, a few hundred per turn, each matched by the index's rule
/// (``SearchIndex/scanMatch(_:path:name:rev:modified:query:)``). The scan stops once it has
/// `limit` matches: a word in every note is answered from the first notes read. A scan does not
/// rank: its matches come in the walk's order.
enum FolderScan {
    /// Notes each worker takes at a time.
    static let chunk = 128
    /// Notes bigger than this are left out of a scan (the index takes them once it is built).
    static let largestNote = 64 << 20

    /// Runs the scan on Dispatch's threads (it blocks on reads), not the server's tasks'.
    static func search(_ query: SearchQuery, scope: DropboxPath, limit: Int, paths: FolderPaths) async throws -> [SearchHit] {
        try await withCheckedThrowingContinuation { continuation in
            DispatchQueue.global(qos: .userInitiated).async {
                continuation.resume(with: Result { try scan(query, scope: scope, limit: limit, paths: paths) })
            }
        }
    }

    struct Note {
        var host: String
        var path: DropboxPath
        var info: stat
    }

    static func scan(_ query: SearchQuery, scope: DropboxPath, limit: Int, paths: FolderPaths) throws -> [SearchHit] {
        // A scope that is not there finds nothing, as the index would.
        guard let start = try? paths.resolve(scope), start.exists else { return [] }
        var walked: [Note] = []
        if start.isDirectory {
            _ = try paths.walk(start, recursive: true) { found, info in
                if !found.isDirectory, ContentSearch.isNote(found.path.name) { walked.append(Note(host: found.host, path: found.path, info: info)) }
                return true
            }
        } else if ContentSearch.isNote(start.path.name) {
            var info = stat()
            if stat(start.host, &info) == 0 { walked.append(Note(host: start.host, path: start.path, info: info)) }
        }
        let notes = walked
        let wanted = max(1, limit)
        // In waves of a few chunks per core, each read whole, until the waves read hold `wanted`
        // matches: what is kept is then a prefix of the folder's matches in walk order, the same
        // whatever the threads did, so a later page (a longer prefix) follows the first.
        let found = Mutex<[(Int, SearchHit)]>([])
        let chunks = (notes.count + chunk - 1) / chunk
        let wave = 4 * max(1, ProcessInfo.processInfo.activeProcessorCount)
        var next = 0
        while next < chunks, found.withLock({ $0.count }) < wanted {
            let first = next
            let count = min(wave, chunks - first)
            next += count
            DispatchQueue.concurrentPerform(iterations: count) { offset in
                let part = first + offset
                var buffer = [UInt8](repeating: 0, count: 16 << 10)
                var mine: [(Int, SearchHit)] = []
                for i in (part * chunk)..<min(notes.count, (part + 1) * chunk) {
                    let note = notes[i]
                    guard let count = read(note.host, size: Int(note.info.st_size), into: &buffer) else { continue }
                    let hit = buffer.withUnsafeBufferPointer { bytes in
                        SearchIndex.scanMatch(UnsafeBufferPointer(rebasing: bytes[..<count]), path: note.path.display, name: note.path.name,
                                              rev: FileKey(note.info).rev,
                                              modified: Date(timeIntervalSince1970: TimeInterval(note.info.st_ctim.tv_sec)), query: query)
                    }
                    if let hit { mine.append((i, hit)) }
                }
                if !mine.isEmpty { found.withLock { $0 += mine } }
            }
        }
        return found.withLock { $0 }.sorted { $0.0 < $1.0 }.prefix(wanted).map(\.1)
    }

    /// A note's bytes into `buffer` (grown as needed), or nil when it cannot be read or is too big.
    private static func read(_ host: String, size: Int, into buffer: inout [UInt8]) -> Int? {
        guard size <= largestNote else { return nil }
        let fd = open(host, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { return nil }
        defer { close(fd) }
        if buffer.count < size + 1 { buffer = [UInt8](repeating: 0, count: size + 1) }
        var total = 0
        while true {
            if total == buffer.count {
                guard buffer.count < largestNote else { return nil }
                buffer += [UInt8](repeating: 0, count: buffer.count)
            }
            let got = buffer.withUnsafeMutableBytes { raw in
                Glibc.read(fd, raw.baseAddress! + total, raw.count - total)
            }
            if got < 0 {
                if errno == EINTR { continue }
                return nil
            }
            if got == 0 { return total }
            total += got
        }
    }
}
