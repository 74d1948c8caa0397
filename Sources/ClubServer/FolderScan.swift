import DropboxWire
import Foundation
import SearchIndex
import Synchronization

/// `search_v2` answered by reading the notes on disk, as ripgrep would: what ``ContentSearch``
/// does while its index does not yet cover the folder (a server's first start over a folder it
/// has never seen: building the index of 100,000 notes takes seconds, reading them less).
///
/// The notes are those of the server's ``TreeSnapshot`` (what a listing shows, kept current by
/// every commit and the rescans, as the index is), so nothing is walked or `stat`ed: their
/// paths are sorted, then the notes are read on every core in waves, each matched by the
/// index's rule (``SearchIndex/scanMatch(_:path:name:rev:modified:query:)``). The scan stops
/// once the waves read hold `limit` matches: a word in every note is answered from the first
/// notes read. A scan does not rank: its matches come in path order.
///
/// Each note read whole is hashed as well (its `content_hash`), when `fstat` after the read
/// still gives the version the snapshot names: a first listing after a first search then finds
/// the notes' hashes known, where it read and hashed 100,000 notes again (a sixth of its time).
enum FolderScan {
    /// What a scan found: its matches, and the content hash of each note it read.
    struct Found {
        var hits: [SearchHit]
        var hashes: [(key: FileKey, digest: HashBook.Digest)]
    }

    /// Notes each worker takes at a time.
    static let chunk = 128
    /// Notes bigger than this are left out of a scan (the index takes them once it is built).
    static let largestNote = 64 << 20

    /// Runs the scan on Dispatch's threads (it blocks on reads), not the server's tasks'.
    static func search(_ query: SearchQuery, scope: DropboxPath, limit: Int, root: String,
                       tree: [String: TreeSnapshot.Entry]) async -> Found {
        await withCheckedContinuation { continuation in
            DispatchQueue.global(qos: .userInitiated).async {
                continuation.resume(returning: scan(query, scope: scope, limit: limit, root: root, tree: tree))
            }
        }
    }

    static func scan(_ query: SearchQuery, scope: DropboxPath, limit: Int, root: String, tree: [String: TreeSnapshot.Entry]) -> Found {
        let prefix = scope.isRoot ? "/" : scope.lower + "/"
        var picked: [(lower: String, entry: TreeSnapshot.Entry)] = []
        for (lower, entry) in tree where !entry.isDirectory && lower.hasPrefix(prefix) && isNote(lower: lower) {
            picked.append((lower, entry))
        }
        if !scope.isRoot, let entry = tree[scope.lower], !entry.isDirectory, isNote(lower: scope.lower) { picked.append((scope.lower, entry)) }
        let notes = sortedByPath(picked, skipping: scope.isRoot ? 0 : prefix.utf8.count)
        picked = []
        let wanted = max(1, limit)
        // In waves of a few chunks per core, each read whole, until the waves read hold `wanted`
        // matches: what is kept is then a prefix of the folder's matches in path order, the same
        // whatever the threads did, so a later page (a longer prefix) follows the first.
        let found = Mutex<[(Int, SearchHit)]>([])
        let hashed = Mutex<[(key: FileKey, digest: HashBook.Digest)]>([])
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
                var digests: [(key: FileKey, digest: HashBook.Digest)] = []
                // Each note opened by its name in its folder, the folder opened once for a run
                // of its notes: by whole paths, the kernel walked the root's path again for each
                // (its lookups were 5% of a scan's CPU).
                var folder: (path: Substring, descriptor: Int32)?
                defer { if let folder { close(folder.descriptor) } }
                for i in (part * chunk)..<min(notes.count, (part + 1) * chunk) {
                    let note = notes[i]
                    let slash = note.display.lastIndex(of: "/") ?? note.display.startIndex
                    let name = String(note.display[note.display.index(after: slash)...])
                    // Compared as bytes: two folders whose names differ only in their Unicode
                    // form are two folders.
                    if !(folder?.path.utf8.elementsEqual(note.display[..<slash].utf8) ?? false) {
                        if let folder { close(folder.descriptor) }
                        let descriptor = open(root + note.display[..<slash], O_RDONLY | O_DIRECTORY | O_CLOEXEC)
                        folder = descriptor >= 0 ? (note.display[..<slash], descriptor) : nil
                    }
                    let file = folder.map { openat($0.descriptor, name, O_RDONLY | O_CLOEXEC) } ?? open(root + note.display, O_RDONLY | O_CLOEXEC)
                    guard let (count, key) = read(file, size: Int(note.size), into: &buffer) else { continue }
                    // Hashed only when the version read is the snapshot's: any write since the
                    // walk, during the read too, gave the file a new ctime.
                    if let key, key == FileKey(inode: note.inode, size: note.size, ctimeNanoseconds: note.ctime, mtimeNanoseconds: note.mtime),
                       let digest = hash(buffer, count: count) {
                        digests.append((key, digest))
                    }
                    let hit = buffer.withUnsafeBufferPointer { bytes in
                        SearchIndex.scanMatch(UnsafeBufferPointer(rebasing: bytes[..<count]), path: note.display, name: name, rev: nil,
                                              modified: Date(timeIntervalSince1970: TimeInterval(note.ctime) / 1e9), query: query)
                    }
                    if let hit { mine.append((i, hit)) }
                }
                if !mine.isEmpty { found.withLock { $0 += mine } }
                if !digests.isEmpty { hashed.withLock { $0 += digests } }
            }
        }
        return Found(hits: found.withLock { $0 }.sorted { $0.0 < $1.0 }.prefix(wanted).map(\.1), hashes: hashed.withLock { $0 })
    }

    /// ``ContentSearch/isNote(_:)`` for a path already in lower case (a snapshot's key): its
    /// extension's bytes compared as they are, with no lower-cased copy made for each of
    /// 100,000 notes before the first is read.
    static func isNote(lower path: String) -> Bool {
        let bytes = path.utf8
        guard let dot = bytes.lastIndex(of: UInt8(ascii: ".")) else { return false }
        let suffix = bytes[bytes.index(after: dot)...]
        return noteExtensions.contains { $0.elementsEqual(suffix) }
    }

    private static let noteExtensions = ContentSearch.noteExtensions.map { Array($0.utf8) }

    /// The notes in the order of their paths' bytes (a total order, the same at every scan, as a
    /// later page needs), sorted by the first 16 bytes after `skipping` (the scope's prefix,
    /// which every path has) as two numbers, the whole paths compared only where those agree:
    /// sorted as strings, 100,000 paths were a seventh of a first search, and the part of it no
    /// other core shares.
    static func sortedByPath(_ picked: [(lower: String, entry: TreeSnapshot.Entry)], skipping: Int = 0) -> [TreeSnapshot.Entry] {
        var keys: [(high: UInt64, low: UInt64, index: Int)] = []
        keys.reserveCapacity(picked.count)
        for (index, note) in picked.enumerated() {
            var high: UInt64 = 0, low: UInt64 = 0
            for (offset, byte) in note.lower.utf8.dropFirst(skipping).prefix(16).enumerated() {
                if offset < 8 { high |= UInt64(byte) << (56 - 8 * offset) } else { low |= UInt64(byte) << (56 - 8 * (offset - 8)) }
            }
            keys.append((high, low, index))
        }
        keys.sort { a, b in
            if a.high != b.high { return a.high < b.high }
            if a.low != b.low { return a.low < b.low }
            return picked[a.index].lower.utf8.lexicographicallyPrecedes(picked[b.index].lower.utf8)
        }
        return keys.map { picked[$0.index].entry }
    }

    /// The content hash of a note's first `count` bytes of `buffer`.
    static func hash(_ buffer: [UInt8], count: Int) -> HashBook.Digest? {
        buffer.withUnsafeBytes { bytes in
            ContentHasher.withDigest(of: UnsafeRawBufferPointer(rebasing: bytes[..<count])) { HashBook.Digest(bytes: $0) }
        }
    }

    /// A note's bytes into `buffer` (grown as needed), and the version read as `fstat` saw it
    /// once they were all read (nil: not seen); nil when it cannot be read or is too big.
    ///
    /// A read that does not fill the buffer ends the note when `fstat` then gives its size as
    /// what was read: that `fstat` takes the place of the read that would have found the end.
    /// `fd` is closed once read; a negative one (not opened) reads as nil.
    static func read(_ fd: Int32, size: Int, into buffer: inout [UInt8]) -> (count: Int, key: FileKey?)? {
        guard fd >= 0 else { return nil }
        defer { close(fd) }
        guard size <= largestNote else { return nil }
        // The size is the snapshot's; the note may have grown since: the buffer grows as read.
        if buffer.count < size + 1 { buffer = [UInt8](repeating: 0, count: size + 1) }
        var total = 0
        while true {
            if total == buffer.count {
                guard buffer.count < largestNote else { return nil }
                buffer += [UInt8](repeating: 0, count: max(buffer.count, 16 << 10))
            }
            let got = buffer.withUnsafeMutableBytes { raw in
                Glibc.read(fd, raw.baseAddress! + total, raw.count - total)
            }
            if got < 0 {
                if errno == EINTR { continue }
                return nil
            }
            if got == 0 { return (total, nil) }
            total += got
            if total < buffer.count {
                var info = stat()
                if fstat(fd, &info) == 0, Int(info.st_size) == total { return (total, FileKey(info)) }
            }
        }
    }
}
