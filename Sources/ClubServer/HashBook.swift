import Foundation

/// The content-hash cache a `FolderStore` keeps in `.byteclub/content-hashes`, with no disk.
///
/// One line per file version: "inode size ctime-ns mtime-ns hash". Without it, the first listing
/// after a start reads every file to hash it. A damaged line is skipped; a file whose key
/// changed is hashed again, so a stale line can never give a wrong hash.
///
/// Each hash is kept as its 32 bytes (``Digest``), not as its 64-letter text: a 100,000-note
/// club's book held 11 MiB of texts (`heaptrack`, issue 56), and the file is read and written
/// as bytes, with no text of the whole file beside them.
struct HashBook: Sendable, Equatable {
    /// A content hash's 32 bytes, made from and given back as its 64 lower-case hex digits.
    struct Digest: Hashable, Sendable {
        private var words: (UInt64, UInt64, UInt64, UInt64)

        /// From 64 hex digits (either case); nil for anything else.
        init?(hex: some Collection<UInt8>) {
            guard hex.count == 64 else { return nil }
            // Four words filled in turn, with no array between (made for each hash a listing
            // learnt, an array was most of the time of taking a hash in).
            var parsed: (UInt64, UInt64, UInt64, UInt64) = (0, 0, 0, 0)
            var offset = 0
            for digit in hex {
                guard let value = Self.value(of: digit).map(UInt64.init) else { return nil }
                switch offset >> 4 {
                case 0: parsed.0 = parsed.0 << 4 | value
                case 1: parsed.1 = parsed.1 << 4 | value
                case 2: parsed.2 = parsed.2 << 4 | value
                default: parsed.3 = parsed.3 << 4 | value
                }
                offset += 1
            }
            words = parsed
        }

        init?(hex: String) { self.init(hex: hex.utf8) }

        /// From the hash's 32 bytes (as ``ContentHasher`` gives them); nil for any other count.
        init?(bytes: UnsafeRawBufferPointer) {
            guard bytes.count == 32 else { return nil }
            func word(_ at: Int) -> UInt64 { UInt64(bigEndian: bytes.loadUnaligned(fromByteOffset: at, as: UInt64.self)) }
            words = (word(0), word(8), word(16), word(24))
        }

        var hex: String {
            String(unsafeUninitializedCapacity: 64) { buffer in
                write(into: buffer)
                return 64
            }
        }

        /// Its 64 hex digits appended to `text`.
        func appendHex(to text: inout [UInt8]) {
            let start = text.count
            text.append(contentsOf: repeatElement(0, count: 64))
            text.withUnsafeMutableBufferPointer { write(into: UnsafeMutableBufferPointer(rebasing: $0[start...])) }
        }

        private func write(into buffer: UnsafeMutableBufferPointer<UInt8>) {
            let digits: StaticString = "0123456789abcdef"
            for (index, word) in [words.0, words.1, words.2, words.3].enumerated() {
                for nibble in 0..<16 {
                    buffer[index * 16 + nibble] = digits.utf8Start[Int(word >> UInt64(60 - nibble * 4) & 0xF)]
                }
            }
        }

        static func == (a: Digest, b: Digest) -> Bool { a.words == b.words }
        func hash(into hasher: inout Hasher) {
            hasher.combine(words.0)
            hasher.combine(words.1)
            hasher.combine(words.2)
            hasher.combine(words.3)
        }

        private static func value(of digit: UInt8) -> UInt8? {
            switch digit {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): digit - UInt8(ascii: "0")
            case UInt8(ascii: "a")...UInt8(ascii: "f"): digit - UInt8(ascii: "a") + 10
            case UInt8(ascii: "A")...UInt8(ascii: "F"): digit - UInt8(ascii: "A") + 10
            default: nil
            }
        }
    }

    /// A hash, and whether this run has used it: once the file grows large it keeps only the
    /// used ones, so stale versions do not pile up. (A set of used keys beside the hashes was
    /// another 8 MiB for 100,000 files.)
    private struct Known: Equatable {
        var digest: Digest
        var used: Bool
    }

    private var known: [FileKey: Known]
    /// Hashes learnt since the file was last written.
    private(set) var isDirty = false
    /// The versions learnt since the file was last written, in the order learnt: what an append
    /// to the file adds (``appendedText()``).
    private var learnt: [FileKey] = []
    /// How many versions the book holds.
    var count: Int { known.count }
    /// How many versions were learnt since the file was last written.
    var learntCount: Int { learnt.count }
    /// Past this many lines, a write keeps only the versions used this run.
    let limit: Int

    init(_ hashes: [FileKey: Digest] = [:], limit: Int = 50_000) {
        known = hashes.mapValues { Known(digest: $0, used: false) }
        self.limit = limit
    }

    /// The file's lines, read from its bytes a line at a time.
    static func parse(_ data: Data) -> [FileKey: Digest] {
        var cache: [FileKey: Digest] = [:]
        for line in data.split(separator: UInt8(ascii: "\n")) {
            let fields = line.split(separator: UInt8(ascii: " "), omittingEmptySubsequences: false)
            guard fields.count == 5, fields[0].count <= 20, let inode = UInt64(String(decoding: fields[0], as: UTF8.self)), let size = number(fields[1]),
                  let ctime = number(fields[2]), let mtime = number(fields[3]), let digest = Digest(hex: fields[4]) else { continue }
            cache[FileKey(inode: inode, size: size, ctimeNanoseconds: ctime, mtimeNanoseconds: mtime)] = digest
        }
        return cache
    }

    /// A decimal number of the file (a minus sign allowed: times before 1970), or nil.
    private static func number(_ digits: Data) -> Int64? {
        guard digits.count <= 20 else { return nil }
        return Int64(String(decoding: digits, as: UTF8.self))
    }

    /// Room for `count` versions without growing: a first listing of a folder of 100,000 new
    /// files grew the book by doubling as its pages were hashed, and at the server's peak the old
    /// table stood beside the new one (9 MiB, `heaptrack`, issue 71).
    mutating func reserve(_ count: Int) { known.reserveCapacity(count) }

    /// Whether the hash of the version `key` is known.
    func knows(_ key: FileKey) -> Bool { known[key] != nil }

    /// The hash of the version `key`, computed by `compute` (nil: unreadable, not cached) only
    /// when not known.
    mutating func hash(for key: FileKey, compute: () -> String?) -> String {
        if let index = known.index(forKey: key) {
            known.values[index].used = true
            return known.values[index].digest.hex
        }
        guard let hash = compute(), !hash.isEmpty else { return "" }
        record(hash, for: key)
        return hash
    }

    /// A hash learnt another way (an upload hashed as it streamed in). One that is not 64 hex
    /// digits is not kept (it is computed again when asked for).
    mutating func record(_ hash: String, for key: FileKey) {
        guard let digest = Digest(hex: hash) else { return }
        record(digest, for: key)
    }

    mutating func record(_ digest: Digest, for key: FileKey) {
        if known.updateValue(Known(digest: digest, used: true), forKey: key)?.digest != digest { learnt.append(key) }
        isDirty = true
    }

    /// The lines of the versions learnt since the file was last written, to append to it while
    /// it is as this server left it: the first listing of a 100,000-file folder learns them a
    /// page at a time, and writing the whole file each time (every 2 s) was a twelfth of its
    /// server time. Afterwards the book is clean.
    mutating func appendedText() -> [UInt8] {
        var text: [UInt8] = []
        text.reserveCapacity(learnt.count * 110)
        for key in learnt {
            guard let hash = known[key] else { continue }
            Self.append(key, hash.digest, to: &text)
        }
        learnt = []
        isDirty = false
        return text
    }

    /// A version's line, its digits written straight into `text`: a first listing of 100,000
    /// new files writes 100,000 lines, and an interpolated `String` for each was a twentieth
    /// of its server time.
    private static func append(_ key: FileKey, _ digest: Digest, to text: inout [UInt8]) {
        appendDecimal(key.inode, negative: false, to: &text)
        for number in [key.size, key.ctimeNanoseconds, key.mtimeNanoseconds] {
            text.append(UInt8(ascii: " "))
            appendDecimal(number.magnitude, negative: number < 0, to: &text)
        }
        text.append(UInt8(ascii: " "))
        digest.appendHex(to: &text)
        text.append(UInt8(ascii: "\n"))
    }

    private static func appendDecimal(_ value: UInt64, negative: Bool, to text: inout [UInt8]) {
        if negative { text.append(UInt8(ascii: "-")) }
        var digits: (UInt64, UInt64, UInt64) = (0, 0, 0)  // room for UInt64's 20 digits
        withUnsafeMutableBytes(of: &digits) { room in
            var rest = value, at = room.count
            repeat {
                at -= 1
                room[at] = UInt8(ascii: "0") + UInt8(rest % 10)
                rest /= 10
            } while rest > 0
            text.append(contentsOf: room[at...])
        }
    }

    /// The file's bytes to write, with `disk` (what another server wrote meanwhile, if it did)
    /// merged under this server's own: a hash is a fact about a file version, so either server's
    /// is as good. Afterwards the book is clean.
    mutating func text(mergingDisk disk: [FileKey: Digest]?) -> Data {
        if let disk {
            for (key, digest) in disk where known[key] == nil { known[key] = Known(digest: digest, used: false) }
        }
        if known.count > limit { known = known.filter(\.value.used) }
        isDirty = false
        learnt = []
        var text: [UInt8] = []
        text.reserveCapacity(known.count * 110)
        for (key, hash) in known { Self.append(key, hash.digest, to: &text) }
        return Data(text)
    }
}
