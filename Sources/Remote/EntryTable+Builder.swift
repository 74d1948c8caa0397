import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// Making a table: an entry at a time (``EntryTable/Builder``), into buffers that grow and are
/// handed over whole.
extension EntryTable {
    /// Makes a table an entry at a time.
    ///
    /// A builder owns its buffers until ``build()``: a copy is only for handing it on (a listing's
    /// pages passed through another taker), and the copy left behind is not used again.
    public struct Builder {
        private var records = Growing()
        private var texts = Growing()
        public private(set) var count = 0

        public init(capacity: Int = 0) {
            records.reserve(capacity * EntryTable.recordSize)
            texts.reserve(capacity * 96)
        }

        public mutating func append(_ entry: RemoteEntry) {
            let path = appendText(entry.path)
            let name = path.flatMap { suffix(entry.name, of: entry.path, at: $0) } ?? appendText(entry.name)
            let pathLower = entry.pathLower == entry.path ? path : appendText(entry.pathLower)
            let slots = [name, path, pathLower, appendText(entry.id), appendText(entry.rev), appendText(entry.contentHash),
                         appendText(entry.modifiedBy)]
            records.appendRecord { out in
                out.storeBytes(of: entry.size, as: Int64.self)
                out.storeBytes(of: entry.modified?.timeIntervalSinceReferenceDate ?? 0, toByteOffset: 8, as: Double.self)
                for (index, slot) in slots.enumerated() {
                    out.storeBytes(of: slot?.offset ?? 0, toByteOffset: 16 + index * 8, as: UInt32.self)
                    out.storeBytes(of: slot?.length ?? EntryTable.nilLength, toByteOffset: 20 + index * 8, as: UInt32.self)
                }
                out.storeBytes(of: entry.kind == .folder ? 1 : 0, toByteOffset: 72, as: UInt8.self)
                out.storeBytes(of: entry.readOnly.map { $0 ? 2 : 1 } ?? 0, toByteOffset: 73, as: UInt8.self)
                out.storeBytes(of: entry.modified == nil ? 0 : 1, toByteOffset: 74, as: UInt8.self)
            }
            count += 1
        }

        /// Forgets every entry appended, keeping the buffers for the next.
        public mutating func removeAll() {
            records.removeAll()
            texts.removeAll()
            count = 0
        }

        /// Appends the entry at `position` of `table`, its texts copied as bytes (a text inside
        /// its path, the name, stays inside the copied path). No allocation but the buffers'
        /// growth: a change page remakes a 100,000-entry table this way.
        public mutating func append(from table: EntryTable, at position: Int) {
            let source = table.record(position)
            func slot(_ raw: Int) -> (offset: UInt32, length: UInt32) {
                (source.loadUnaligned(fromByteOffset: 16 + raw * 8, as: UInt32.self),
                 source.loadUnaligned(fromByteOffset: 20 + raw * 8, as: UInt32.self))
            }
            let path = slot(Field.path.rawValue)
            let hasPath = path.length != EntryTable.nilLength
            // The new offsets, field by field (nil texts keep theirs); the path's first.
            var offsets = SIMD8<UInt32>()
            let pathAt = UInt32(texts.count)
            if hasPath { texts.append(UnsafeRawBufferPointer(start: table.storage.texts + Int(path.offset), count: Int(path.length))) }
            for raw in 0..<7 {
                let old = slot(raw)
                if old.length == EntryTable.nilLength {
                    offsets[raw] = old.offset
                } else if raw == Field.path.rawValue {
                    offsets[raw] = pathAt
                } else if hasPath, old.offset >= path.offset,
                          UInt64(old.offset) + UInt64(old.length) <= UInt64(path.offset) + UInt64(path.length) {
                    offsets[raw] = pathAt + (old.offset - path.offset)
                } else {
                    offsets[raw] = UInt32(texts.count)
                    texts.append(UnsafeRawBufferPointer(start: table.storage.texts + Int(old.offset), count: Int(old.length)))
                }
            }
            records.appendRecord { out in
                out.copyMemory(from: UnsafeRawBufferPointer(start: source, count: EntryTable.recordSize))
                for raw in 0..<7 { out.storeBytes(of: offsets[raw], toByteOffset: 16 + raw * 8, as: UInt32.self) }
            }
            count += 1
        }

        private mutating func appendText(_ text: String?) -> (offset: UInt32, length: UInt32)? {
            guard var text else { return nil }
            let offset = UInt32(texts.count)
            let length = text.withUTF8 { bytes in
                texts.append(UnsafeRawBufferPointer(bytes))
                return UInt32(bytes.count)
            }
            return (offset, length)
        }

        /// Where `name` is in the text of `path` written at `slot`, when `path` ends with "/" and it.
        private func suffix(_ name: String, of path: String, at slot: (offset: UInt32, length: UInt32)) -> (offset: UInt32, length: UInt32)? {
            let nameLength = name.utf8.count
            guard nameLength < path.utf8.count, path.utf8.hasSuffix(name.utf8),
                  path.utf8[path.utf8.index(path.utf8.endIndex, offsetBy: -nameLength - 1)] == UInt8(ascii: "/") else { return nil }
            return (slot.offset + slot.length - UInt32(nameLength), UInt32(nameLength))
        }

        /// Frees what was appended, for a table that will not be made (a listing that failed
        /// part-way); the builder is spent.
        public consuming func discard() {
            records.release()
            texts.release()
        }

        /// The table; the builder is spent.
        public consuming func build() -> EntryTable {
            let count = self.count
            let (records, _) = self.records.take()
            let (texts, textLength) = self.texts.take()
            let storage = Storage(records: records, recordCount: count, texts: texts, textLength: textLength) {
                free(UnsafeMutableRawPointer(mutating: records))
                free(UnsafeMutableRawPointer(mutating: texts))
            }
            return EntryTable(storage: storage, records: 0..<count)
        }
    }

    /// A malloc'd buffer that grows by half again, handed over whole at the end.
    private struct Growing {
        private var base: UnsafeMutableRawPointer?
        private var capacity = 0
        private(set) var count = 0

        mutating func reserve(_ bytes: Int) {
            guard bytes > capacity else { return }
            guard let grown = realloc(base, Swift.max(bytes, 16)) else { fatalError("out of memory for an entry table of \(bytes) bytes") }
            base = grown
            capacity = Swift.max(bytes, 16)
        }

        mutating func removeAll() { count = 0 }

        /// Frees the buffer; this buffer is empty after.
        mutating func release() {
            free(base)
            base = nil
            capacity = 0
            count = 0
        }

        /// Appends a zeroed record and lets `fill` write it.
        mutating func appendRecord(_ fill: (UnsafeMutableRawBufferPointer) -> Void) {
            let size = EntryTable.recordSize
            if count + size > capacity { reserve(Swift.max(count + size, capacity + capacity / 2, 4096)) }
            let out = UnsafeMutableRawBufferPointer(start: base! + count, count: size)
            out.initializeMemory(as: UInt8.self, repeating: 0)
            fill(out)
            count += size
        }

        mutating func append(_ bytes: UnsafeRawBufferPointer) {
            if count + bytes.count > capacity { reserve(Swift.max(count + bytes.count, capacity + capacity / 2, 4096)) }
            if let source = bytes.baseAddress, !bytes.isEmpty { (base! + count).copyMemory(from: source, byteCount: bytes.count) }
            count += bytes.count
        }

        /// The buffer (at least 16 bytes, so never null) and its length; this buffer is empty after.
        mutating func take() -> (UnsafeRawPointer, Int) {
            reserve(16)
            defer { base = nil; capacity = 0; count = 0 }
            return (UnsafeRawPointer(base!), count)
        }
    }
}

extension String.UTF8View {
    fileprivate func hasSuffix(_ other: String.UTF8View) -> Bool {
        other.count <= count && zip(reversed(), other.reversed()).allSatisfy { $0 == $1 }
    }
}
