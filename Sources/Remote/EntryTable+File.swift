import Durable
import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// A table's bytes in a file: written from one or more tables as one (``write(_:to:)``), and
/// read back by mapping the file, so a start touches only the pages it reads.
extension EntryTable {
    /// Writes `parts`, one after the other, as one table to `fd`, a megabyte at a time. Parts
    /// that share their texts (parts of one cached table, a table ``reordered(_:)``) have them
    /// written once.
    /// False on a failure (`errno` says why).
    public static func write(_ parts: [EntryTable], to fd: Int32) -> Bool {
        // Each storage's texts once, where they will be in the file's texts.
        var textBase: [UnsafeRawPointer: Int] = [:]
        var storages: [Storage] = []
        var textLength = 0
        for part in parts where textBase[part.storage.texts] == nil {
            textBase[part.storage.texts] = textLength
            storages.append(part.storage)
            textLength += part.storage.textLength
        }
        guard textLength <= Int(UInt32.max) - 1 else { return false }
        let count = parts.reduce(0) { $0 + $1.count }
        var out = ChunkWriter(fd: fd)
        out.append(magic); out.append(UInt64(count)); out.append(UInt64(textLength)); out.append(UInt64(0))
        for part in parts {
            let base = UInt32(textBase[part.storage.texts]!)
            for position in part.indices {
                out.appendRecord(part.record(position), textBase: base)
            }
        }
        for storage in storages {
            out.append(UnsafeRawBufferPointer(start: storage.texts, count: storage.textLength))
        }
        out.flush()
        return !out.failed
    }

    /// The table written at `offset` of the file `fd` is open on, mapped read-only; nil when
    /// the bytes there are not a whole table (a damaged or cut-off file), which is checked record
    /// by record before anything is read. The file must not change while it is mapped: the
    /// app's cache replaces its files by renaming, never in place.
    public init?(mapping fd: Int32, offset: Int) {
        var status = stat()
        guard fstat(fd, &status) == 0 else { return nil }
        let length = Int(status.st_size)
        guard offset >= 0, length - offset >= Self.header else { return nil }
        guard let mapped = mmap(nil, length, PROT_READ, MAP_PRIVATE, fd, 0), mapped != MAP_FAILED else { return nil }
        let map = UnsafeRawPointer(mapped)
        let unmap = { _ = munmap(mapped, length) }
        guard let table = Self.validated(map + offset, length: length - offset, release: unmap) else {
            unmap()
            return nil
        }
        self = table
    }

    /// The table in `bytes` (copied), or nil when they are not a whole table: what the fuzz
    /// target feeds.
    public init?(validating bytes: UnsafeRawBufferPointer) {
        guard let source = bytes.baseAddress, bytes.count >= Self.header else { return nil }
        let copy = UnsafeMutableRawPointer.allocate(byteCount: bytes.count, alignment: 16)
        copy.copyMemory(from: source, byteCount: bytes.count)
        guard let table = Self.validated(UnsafeRawPointer(copy), length: bytes.count, release: { copy.deallocate() }) else {
            copy.deallocate()
            return nil
        }
        self = table
    }

    /// Checks the header and every record against `length` bytes at `base`; `release` is
    /// called when the table's storage goes, if it is made.
    private static func validated(_ base: UnsafeRawPointer, length: Int, release: @escaping () -> Void) -> EntryTable? {
        guard length >= header, base.loadUnaligned(as: UInt64.self) == magic else { return nil }
        let count = base.loadUnaligned(fromByteOffset: 8, as: UInt64.self)
        let textLength = base.loadUnaligned(fromByteOffset: 16, as: UInt64.self)
        guard count <= UInt64(length / recordSize), textLength <= UInt64(length),
              UInt64(header) + count * UInt64(recordSize) + textLength == UInt64(length) else { return nil }
        let records = base + header
        for position in 0..<Int(count) {
            let record = records + position * recordSize
            for field in 0..<7 {
                let offset = UInt64(record.loadUnaligned(fromByteOffset: 16 + field * 8, as: UInt32.self))
                let fieldLength = record.loadUnaligned(fromByteOffset: 20 + field * 8, as: UInt32.self)
                // Name, path and pathLower are never nil.
                if fieldLength == nilLength, field > Field.pathLower.rawValue { continue }
                guard fieldLength != nilLength, offset + UInt64(fieldLength) <= textLength else { return nil }
            }
            guard record.load(fromByteOffset: 72, as: UInt8.self) <= 1, record.load(fromByteOffset: 73, as: UInt8.self) <= 2,
                  record.load(fromByteOffset: 74, as: UInt8.self) <= 1,
                  record.loadUnaligned(fromByteOffset: 8, as: Double.self).isFinite else { return nil }
        }
        let storage = Storage(records: records, recordCount: Int(count), texts: records + Int(count) * recordSize,
                              textLength: Int(textLength), release: release)
        return EntryTable(storage: storage, records: 0..<Int(count))
    }

    /// Gathers bytes and writes them to a file a megabyte at a time.
    private struct ChunkWriter {
        let fd: Int32
        var bytes: [UInt8] = []
        private(set) var failed = false
        static let chunk = 1 << 20

        init(fd: Int32) {
            self.fd = fd
            bytes.reserveCapacity(Self.chunk + 4096)
        }

        mutating func append(_ value: UInt64) {
            withUnsafeBytes(of: value.littleEndian) { bytes.append(contentsOf: $0) }
        }

        /// A record, its texts' offsets moved by `textBase`.
        mutating func appendRecord(_ record: UnsafeRawPointer, textBase: UInt32) {
            let start = bytes.count
            bytes.append(contentsOf: UnsafeRawBufferPointer(start: record, count: recordSize))
            if textBase != 0 {
                bytes.withUnsafeMutableBytes { out in
                    for field in 0..<7 where out.loadUnaligned(fromByteOffset: start + 20 + field * 8, as: UInt32.self) != nilLength {
                        let offset = out.loadUnaligned(fromByteOffset: start + 16 + field * 8, as: UInt32.self)
                        out.storeBytes(of: offset + textBase, toByteOffset: start + 16 + field * 8, as: UInt32.self)
                    }
                }
            }
            if bytes.count >= Self.chunk { flush() }
        }

        mutating func append(_ buffer: UnsafeRawBufferPointer) {
            var rest = buffer
            while !rest.isEmpty {
                let take = Swift.min(rest.count, Self.chunk)
                bytes.append(contentsOf: UnsafeRawBufferPointer(rebasing: rest[..<take]))
                rest = UnsafeRawBufferPointer(rebasing: rest[take...])
                if bytes.count >= Self.chunk { flush() }
            }
        }

        mutating func flush() {
            guard !bytes.isEmpty else { return }
            if !failed, !DurableFile.writeAll(fd, bytes) { failed = true }
            bytes.removeAll(keepingCapacity: true)
        }
    }
}
