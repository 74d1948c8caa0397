import Durable
import Foundation
import Remote
#if canImport(Glibc)
import Glibc
#endif

/// The offline cache's file formats: a listing as two lines and an ``EntryTable``, a note as a
/// header line and the text.
///
/// Why not JSON: `JSONDecoder` (and `JSONSerialization`) on Linux take about 180 ms for 10,000
/// entries, and the app reads the notes listing before its first frame. A listing's entries are
/// the bytes of an ``EntryTable``, which the app maps rather than reads: a start from the cache
/// of a 100,000-note club reads the pages of the rows it draws, not 19 MB of lines (issue 56).
///
/// Version 2 of a listing (`⇥` is a tab):
/// ```
/// byteclub-listing⇥2⇥<saved>⇥<entry count>
/// <recursive 0|1>⇥<cursor folder>⇥<cursor value>           or \N when there is no cursor
/// the entry table's bytes, to the end of the file
/// ```
/// and of a note: `byteclub-note⇥1⇥<saved>⇥<text bytes>⇥rev⇥path`, a newline, then the text's
/// UTF-8 bytes as they are.
///
/// Text fields escape `\` as `\\`, a tab as `\t` and a newline as `\n`, so names from a hostile
/// server (any characters, tabs, newlines) come back exactly; `\N` is nil, which no escaped text
/// can be. Times are `Date.timeIntervalSinceReferenceDate` as Swift prints a `Double` (the
/// shortest text that reads back to the same value), so dates come back exactly, not rounded.
/// Another magic or version, a wrong count or a damaged table reads as nil.
enum ClubCacheFormat {
    static let listingMagic = "byteclub-listing"
    static let noteMagic = "byteclub-note"
    /// Raised when a format changes, so an older or newer file reads as "no cache".
    static let listingVersion = "2"
    static let version = "1"
    /// The longest a listing's two lines may be (a cursor is a few hundred bytes).
    static let listingHeadLimit = 1 << 16

    // MARK: Listings

    /// Writes a listing of `parts` (one after the other, as one list) to `fd`, a megabyte at a
    /// time: a 100,000-entry listing never stands whole in memory, nor its parts joined.
    /// False on a failure (`errno` says why).
    static func writeListing(_ parts: [EntryTable], cursor: RemoteCursor?, saved: Date, to fd: Int32) -> Bool {
        var out = Writer(capacity: 4096)
        out.raw(listingMagic); out.tab(); out.raw(listingVersion); out.tab()
        out.raw(saved.timeIntervalSinceReferenceDate.description); out.tab()
        out.raw(String(parts.reduce(0) { $0 + $1.count })); out.newline()
        if let cursor {
            out.raw(cursor.recursive ? "1" : "0"); out.tab(); out.text(cursor.folder); out.tab(); out.text(cursor.value)
        } else {
            out.text(nil)
        }
        out.newline()
        guard out.bytes.count <= listingHeadLimit, DurableFile.writeAll(fd, out.bytes) else { return false }
        return EntryTable.write(parts, to: fd)
    }

    /// The listing in the file `fd` is open on, its entries mapped; nil if it is not a whole
    /// version-2 listing.
    static func readListing(_ fd: Int32) -> ClubCache.Listing? {
        var head = [UInt8](repeating: 0, count: listingHeadLimit)
        let read = head.withUnsafeMutableBytes { pread(fd, $0.baseAddress, $0.count, 0) }
        guard read > 0 else { return nil }
        return head.withUnsafeBytes { raw -> ClubCache.Listing? in
            var reader = Reader(UnsafeBufferPointer(rebasing: raw.bindMemory(to: UInt8.self)[..<read]))
            guard let (count, cursor, saved) = try? reader.listingHead(),
                  let entries = EntryTable(mapping: fd, offset: reader.position), entries.count == count else { return nil }
            return ClubCache.Listing(entries: entries, cursor: cursor, saved: saved)
        }
    }

    // MARK: Notes

    static func encodeNote(_ note: ClubCache.Note) -> Data {
        let text = Array(note.text.utf8)
        var out = Writer(capacity: 128 + note.path.utf8.count + text.count)
        out.raw(noteMagic); out.tab(); out.raw(version); out.tab()
        out.raw(note.saved.timeIntervalSinceReferenceDate.description); out.tab()
        out.raw(String(text.count)); out.tab()
        out.text(note.rev); out.tab()
        out.text(note.path); out.newline()
        out.bytes += text
        return Data(out.bytes)
    }

    /// The note in `data`, or nil if it is not a whole version-1 note.
    static func decodeNote(_ data: Data) -> ClubCache.Note? {
        data.withUnsafeBytes { raw -> ClubCache.Note? in
            var reader = Reader(raw.bindMemory(to: UInt8.self))
            return try? reader.note()
        }
    }
}

// MARK: - Writing

extension ClubCacheFormat {
    /// Bytes of a cache file, appended field by field.
    struct Writer {
        var bytes: [UInt8] = []

        init(capacity: Int) {
            bytes.reserveCapacity(capacity)
        }

        mutating func tab() { bytes.append(9) }
        mutating func newline() { bytes.append(10) }

        /// Text known to need no escaping (magic words, numbers).
        mutating func raw(_ text: String) { bytes += text.utf8 }

        /// A text field, escaped; nil is written `\N`.
        mutating func text(_ text: String?) {
            guard let text else {
                bytes.append(92)
                bytes.append(78)
                return
            }
            let utf8 = text.utf8
            // Nearly every field has nothing to escape: found with memchr and copied in one go
            // (a byte loop here made a debug build take 250 ms to write 10,000 entries).
            let copied = utf8.withContiguousStorageIfAvailable { buffer -> Bool in
                guard let base = buffer.baseAddress else { return true }
                guard memchr(base, 9, buffer.count) == nil, memchr(base, 10, buffer.count) == nil,
                      memchr(base, 92, buffer.count) == nil else { return false }
                bytes.append(contentsOf: buffer)
                return true
            }
            if copied == true { return }
            for byte in utf8 {
                switch byte {
                case 9: bytes.append(92); bytes.append(UInt8(ascii: "t"))
                case 10: bytes.append(92); bytes.append(UInt8(ascii: "n"))
                case 92: bytes.append(92); bytes.append(92)
                default: bytes.append(byte)
                }
            }
        }
    }
}

// MARK: - Reading

extension ClubCacheFormat {
    /// The file is not a whole cache file of this version.
    struct Unreadable: Error {}

    /// Reads a cache file's lines and fields out of its bytes.
    struct Reader {
        let bytes: UnsafeBufferPointer<UInt8>
        /// Where the next line starts.
        var position = 0
        /// The fields of the line last split, reused so a line costs no allocation.
        var fields: [Range<Int>] = []

        init(_ bytes: UnsafeBufferPointer<UInt8>) {
            self.bytes = bytes
            fields.reserveCapacity(10)
        }

        /// A listing's two lines: its entry count, cursor and time; ``position`` is then where
        /// its table starts.
        mutating func listingHead() throws(Unreadable) -> (count: Int, cursor: RemoteCursor?, saved: Date) {
            try split(try line())
            guard fields.count >= 2, text(fields[0]) == listingMagic, text(fields[1]) == listingVersion else { throw Unreadable() }
            guard fields.count == 4 else { throw Unreadable() }
            let saved = try date(fields[2])
            let count = try integer(fields[3])
            guard count >= 0 else { throw Unreadable() }

            try split(try line())
            var cursor: RemoteCursor? = nil
            if fields.count == 3 {
                let recursive = text(fields[0])
                guard recursive == "0" || recursive == "1" else { throw Unreadable() }
                cursor = RemoteCursor(folder: try string(fields[1]), recursive: recursive == "1", value: try string(fields[2]))
            } else {
                guard fields.count == 1, try optionalString(fields[0]) == nil else { throw Unreadable() }
            }
            return (count, cursor, saved)
        }

        mutating func note() throws(Unreadable) -> ClubCache.Note {
            try split(try line())
            guard fields.count >= 2, text(fields[0]) == noteMagic, text(fields[1]) == version else { throw Unreadable() }
            guard fields.count == 6 else { throw Unreadable() }
            let saved = try date(fields[2])
            let length = try integer(fields[3])
            let rev = try optionalString(fields[4])
            let path = try string(fields[5])
            // A cut-off file has fewer bytes than the header promised.
            guard length == bytes.count - position else { throw Unreadable() }
            return ClubCache.Note(path: path, rev: rev, text: text(position..<bytes.count), saved: saved)
        }

        // MARK: Lines and fields

        /// The next line's byte range (without its newline); a line must end with one.
        mutating func line() throws(Unreadable) -> Range<Int> {
            guard position < bytes.count, let base = bytes.baseAddress,
                  let found = memchr(base + position, 10, bytes.count - position) else { throw Unreadable() }
            let end = base.distance(to: found.assumingMemoryBound(to: UInt8.self))
            defer { position = end + 1 }
            return position..<end
        }

        /// Splits `line` at its tabs into ``fields``.
        mutating func split(_ line: Range<Int>) throws(Unreadable) {
            fields.removeAll(keepingCapacity: true)
            guard let base = bytes.baseAddress else { throw Unreadable() }
            var start = line.lowerBound
            while let found = memchr(base + start, 9, line.upperBound - start) {
                let end = base.distance(to: found.assumingMemoryBound(to: UInt8.self))
                fields.append(start..<end)
                start = end + 1
            }
            fields.append(start..<line.upperBound)
        }

        /// The bytes as they are (no escapes), as text.
        func text(_ range: Range<Int>) -> String {
            String(decoding: UnsafeBufferPointer(rebasing: bytes[range]), as: UTF8.self)
        }

        /// An escaped text field that cannot be nil.
        func string(_ range: Range<Int>) throws(Unreadable) -> String {
            guard let base = bytes.baseAddress, !range.isEmpty,
                  memchr(base + range.lowerBound, 92, range.count) != nil else { return text(range) }
            var unescaped: [UInt8] = []
            unescaped.reserveCapacity(range.count)
            var index = range.lowerBound
            while index < range.upperBound {
                let byte = bytes[index]
                index += 1
                guard byte == 92 else {
                    unescaped.append(byte)
                    continue
                }
                guard index < range.upperBound else { throw Unreadable() }
                switch bytes[index] {
                case 92: unescaped.append(92)
                case UInt8(ascii: "t"): unescaped.append(9)
                case UInt8(ascii: "n"): unescaped.append(10)
                default: throw Unreadable()
                }
                index += 1
            }
            return String(decoding: unescaped, as: UTF8.self)
        }

        /// An escaped text field, or nil written as `\N`.
        func optionalString(_ range: Range<Int>) throws(Unreadable) -> String? {
            if range.count == 2, bytes[range.lowerBound] == 92, bytes[range.lowerBound + 1] == UInt8(ascii: "N") { return nil }
            return try string(range)
        }

        /// A decimal integer, optionally negative.
        func integer(_ range: Range<Int>) throws(Unreadable) -> Int {
            var index = range.lowerBound
            let negative = index < range.upperBound && bytes[index] == UInt8(ascii: "-")
            if negative { index += 1 }
            guard index < range.upperBound else { throw Unreadable() }
            var value = 0
            while index < range.upperBound {
                let digit = Int(bytes[index]) - 48
                guard (0...9).contains(digit) else { throw Unreadable() }
                let (times, overflow1) = value.multipliedReportingOverflow(by: 10)
                let (sum, overflow2) = times.addingReportingOverflow(digit)
                guard !overflow1, !overflow2 else { throw Unreadable() }
                value = sum
                index += 1
            }
            return negative ? -value : value
        }

        func date(_ range: Range<Int>) throws(Unreadable) -> Date {
            try date(text(range))
        }

        func date(_ text: String) throws(Unreadable) -> Date {
            guard let seconds = Double(text), seconds.isFinite else { throw Unreadable() }
            return Date(timeIntervalSinceReferenceDate: seconds)
        }
    }
}
