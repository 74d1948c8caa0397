/// A text cut into lines, each line keeping its own ending, so that joining the lines gives the
/// text back byte for byte.
///
/// A line ends after a "\n"; a "\r" before it stays in the line (a CRLF note stays CRLF), and a
/// last line without a "\n" is a line of its own, so a missing final newline is never invented
/// and never lost. Lines are compared by their bytes: two spellings of "é" (precomposed, or e
/// and a combining accent) are different lines, as they are different text on disk.
struct Lines: Sendable {
    /// The text's UTF-8 bytes.
    let bytes: [UInt8]
    /// Where each line starts in ``bytes``; one more entry, the end, closes the last line.
    let starts: [Int]

    init(_ text: String) {
        self.init(bytes: Array(text.utf8))
    }

    init(bytes: [UInt8]) {
        self.bytes = bytes
        var starts: [Int] = [0]
        starts.reserveCapacity(bytes.count / 32 + 2)
        bytes.withUnsafeBufferPointer { buffer in
            for i in 0..<buffer.count where buffer[i] == 0x0A {
                starts.append(i + 1)
            }
        }
        // A text that does not end in "\n" has one more, unterminated line.
        if starts.last != bytes.count { starts.append(bytes.count) }
        self.starts = starts
    }

    /// Whether the text ends with a newline (an empty text counts as ending with one: it has no
    /// line to end).
    var endsWithNewline: Bool { bytes.last.map { $0 == 0x0A } ?? true }

    /// How many lines there are (none for an empty text).
    var count: Int { starts.count - 1 }

    /// The byte range of line `index`.
    func range(_ index: Int) -> Range<Int> { starts[index]..<starts[index + 1] }

    /// The bytes of lines `range`, appended to `out`.
    func append(_ range: Range<Int>, to out: inout [UInt8]) {
        guard !range.isEmpty else { return }
        out.append(contentsOf: bytes[starts[range.lowerBound]..<starts[range.upperBound]])
    }

    /// Lines `range` as one string (valid UTF-8 in, valid UTF-8 out: lines are cut only after "\n").
    func text(_ range: Range<Int>) -> String {
        guard !range.isEmpty else { return "" }
        return String(decoding: bytes[starts[range.lowerBound]..<starts[range.upperBound]], as: UTF8.self)
    }

    /// How many lines end in CRLF, and how many in a bare LF.
    var endings: (crlf: Int, lf: Int) {
        var crlf = 0, lf = 0
        for i in 1..<starts.count where starts[i] > 0 && bytes[starts[i] - 1] == 0x0A {
            if starts[i] >= 2 && bytes[starts[i] - 2] == 0x0D { crlf += 1 } else { lf += 1 }
        }
        return (crlf, lf)
    }
}

/// Gives every distinct line (by bytes) a small number, so that the diff compares integers.
///
/// One table serves the three texts of a merge: a line in the base and the same line in mine get
/// the same number. An open-addressing table of 64-bit hashes read eight bytes at a time: the
/// standard `Dictionary` with `Hasher` took half of a 1 MiB merge.
struct LineTable {
    private struct Slot {
        var hash: UInt64
        var number: Int32
        var start: UnsafePointer<UInt8>?
        var length: Int
    }

    private var slots: [Slot]
    private var mask: Int
    private var count: Int32 = 0

    /// A table for about `lines` distinct lines (it grows if there are more).
    init(capacity lines: Int) {
        var size = 64
        while size < lines * 2 { size <<= 1 }
        slots = Array(repeating: Slot(hash: 0, number: -1, start: nil, length: 0), count: size)
        mask = size - 1
    }

    /// The number of each line of `lines`, whose bytes are `base`.
    ///
    /// The table keeps pointers into `base`, so every buffer given to one table must stay valid
    /// for the table's whole life: ``ThreeWayMerge`` numbers the three texts inside one nested
    /// `withUnsafeBufferPointer` and drops the table before leaving it.
    mutating func number(_ lines: Lines, pinned base: UnsafeBufferPointer<UInt8>) -> [Int32] {
        var result = [Int32]()
        result.reserveCapacity(lines.count)
        guard let origin = base.baseAddress else { return Array(repeating: 0, count: lines.count) }
        for index in 0..<lines.count {
            let range = lines.range(index)
            result.append(number(origin + range.lowerBound, range.count))
        }
        return result
    }

    private mutating func number(_ start: UnsafePointer<UInt8>, _ length: Int) -> Int32 {
        if Int(count) * 2 >= slots.count { grow() }
        let hash = Self.hash(start, length)
        var index = Int(truncatingIfNeeded: hash) & mask
        while true {
            let slot = slots[index]
            if slot.number < 0 {
                slots[index] = Slot(hash: hash, number: count, start: start, length: length)
                count += 1
                return count - 1
            }
            if slot.hash == hash, slot.length == length, Self.equal(slot.start!, start, length) { return slot.number }
            index = (index + 1) & mask
        }
    }

    private mutating func grow() {
        let old = slots
        slots = Array(repeating: Slot(hash: 0, number: -1, start: nil, length: 0), count: old.count * 2)
        mask = slots.count - 1
        for slot in old where slot.number >= 0 {
            var index = Int(truncatingIfNeeded: slot.hash) & mask
            while slots[index].number >= 0 { index = (index + 1) & mask }
            slots[index] = slot
        }
    }

    /// A 64-bit hash of the bytes, eight at a time (a multiply-and-fold mix; not for adversaries,
    /// who could at worst make a merge slower).
    private static func hash(_ start: UnsafePointer<UInt8>, _ length: Int) -> UInt64 {
        let raw = UnsafeRawPointer(start)
        var h: UInt64 = 0x9E37_79B9_7F4A_7C15 ^ UInt64(length)
        var offset = 0
        while offset + 8 <= length {
            h = (h ^ raw.loadUnaligned(fromByteOffset: offset, as: UInt64.self)) &* 0xBF58_476D_1CE4_E5B9
            h ^= h >> 31
            offset += 8
        }
        var tail: UInt64 = 0
        var shift: UInt64 = 0
        while offset < length {
            tail |= UInt64(start[offset]) << shift
            shift += 8
            offset += 1
        }
        h = (h ^ tail) &* 0x94D0_49BB_1331_11EB
        return h ^ (h >> 29)
    }

    private static func equal(_ a: UnsafePointer<UInt8>, _ b: UnsafePointer<UInt8>, _ length: Int) -> Bool {
        let ra = UnsafeRawPointer(a), rb = UnsafeRawPointer(b)
        var offset = 0
        while offset + 8 <= length {
            if ra.loadUnaligned(fromByteOffset: offset, as: UInt64.self) != rb.loadUnaligned(fromByteOffset: offset, as: UInt64.self) { return false }
            offset += 8
        }
        while offset < length {
            if a[offset] != b[offset] { return false }
            offset += 1
        }
        return true
    }
}
