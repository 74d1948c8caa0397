import Foundation

/// A `list_folder` page read in one pass over its bytes, for the shape a club server sends.
///
/// `JSONDecoder` read a 2,000-entry page (876 KB) in 32 ms, about 16 µs an entry, and scanned
/// it twice (once for the cursor): 1.8 s of a 100,000-file `byteclub ls`'s 2.3 s of CPU, about
/// what the server spent making the pages of a warm listing. This reader knows the page's keys and makes each
/// value once. It is strict on purpose: anything but the plain shape (a key it does not know, a
/// key twice, `null`, an escape in a key, a number that is not a plain integer, a lone
/// surrogate, a tag it does not know, a required field missing) gives nil, and the caller
/// decodes the page with `JSONDecoder`, which gives the answer (or the error) it always gave.
/// So a real Dropbox page, with its extra fields, is read as before. Where this reader answers,
/// it answers what `JSONDecoder` would: the `listing-page` fuzz target checks exactly that.
public enum ListingPageReader {
    /// The page, or nil when `data` is not in the plain shape (decode it with `JSONDecoder`).
    public static func read(_ data: Data) -> ListFolderResult? {
        guard !data.isEmpty else { return nil }
        return data.withUnsafeBytes { raw in
            var reader = Reader(raw.bindMemory(to: UInt8.self))
            return reader.page()
        }
    }

    /// The keys a page and its entries hold, each once.
    private enum Field: Int, CaseIterable {
        case tag, name, id, pathLower, pathDisplay, clientModified, serverModified, rev, size, contentHash, isDownloadable, sharingInfo

        var key: StaticString {
            switch self {
            case .tag: return ".tag"
            case .name: return "name"
            case .id: return "id"
            case .pathLower: return "path_lower"
            case .pathDisplay: return "path_display"
            case .clientModified: return "client_modified"
            case .serverModified: return "server_modified"
            case .rev: return "rev"
            case .size: return "size"
            case .contentHash: return "content_hash"
            case .isDownloadable: return "is_downloadable"
            case .sharingInfo: return "sharing_info"
            }
        }
    }

    private struct Reader {
        let bytes: UnsafeBufferPointer<UInt8>
        var at = 0

        init(_ bytes: UnsafeBufferPointer<UInt8>) { self.bytes = bytes }

        mutating func page() -> ListFolderResult? {
            var entries: [Metadata]?
            var cursor: String?
            var hasMore: Bool?
            let read = members { reader, key in
                if reader.matches(key, "entries") { return Self.once(&entries, reader.entryList()) }
                if reader.matches(key, "cursor") { return Self.once(&cursor, reader.string()) }
                if reader.matches(key, "has_more") { return Self.once(&hasMore, reader.bool()) }
                return false
            }
            skipSpace()
            guard read, at == bytes.count, let entries, let cursor, let hasMore else { return nil }
            return ListFolderResult(entries: entries, cursor: cursor, hasMore: hasMore)
        }

        /// Puts a member's value in its empty `slot`: false when it did not read, or the key came
        /// twice (then the object is not the plain shape, whatever was read).
        private static func once<Value>(_ slot: inout Value?, _ value: Value?) -> Bool {
            guard slot == nil, let value else { return false }
            slot = value
            return true
        }

        /// An object's members, each read by `member` from its key on (false: not the plain
        /// shape, and so is the object).
        private mutating func members(_ member: (inout Reader, Range<Int>) -> Bool) -> Bool {
            guard take(UInt8(ascii: "{")) else { return false }
            if take(UInt8(ascii: "}")) { return true }
            repeat {
                guard let key = key(), member(&self, key) else { return false }
            } while take(UInt8(ascii: ","))
            return take(UInt8(ascii: "}"))
        }

        private mutating func entryList() -> [Metadata]? {
            guard take(UInt8(ascii: "[")) else { return nil }
            var entries: [Metadata] = []
            if take(UInt8(ascii: "]")) { return entries }
            repeat {
                guard let entry = entry() else { return nil }
                entries.append(entry)
            } while take(UInt8(ascii: ","))
            return take(UInt8(ascii: "]")) ? entries : nil
        }

        /// One entry, as `Metadata`'s decoding reads it: by `.tag`, each kind's required fields.
        private mutating func entry() -> Metadata? {
            var strings = [String?](repeating: nil, count: Field.allCases.count)
            var size: Int64?
            var isDownloadable: Bool?
            var sharingInfo: FileSharingInfo?
            let read = members { reader, key in
                guard let field = Field.allCases.first(where: { reader.matches(key, $0.key) }) else { return false }
                switch field {
                case .size: return Self.once(&size, reader.integer())
                case .isDownloadable: return Self.once(&isDownloadable, reader.bool())
                case .sharingInfo: return Self.once(&sharingInfo, reader.sharing())
                default: return Self.once(&strings[field.rawValue], reader.string())
                }
            }
            guard read else { return nil }
            func text(_ field: Field) -> String? { strings[field.rawValue] }
            guard let tag = text(.tag), let name = text(.name) else { return nil }
            switch tag {
            case "file":
                guard let id = text(.id), let rev = text(.rev), let size, size >= 0,
                      let clientModified = text(.clientModified).flatMap(DropboxTimestamp.parse),
                      let serverModified = text(.serverModified).flatMap(DropboxTimestamp.parse) else { return nil }
                return .file(FileMetadata(name: name, id: id, pathLower: text(.pathLower), pathDisplay: text(.pathDisplay),
                                          clientModified: clientModified, serverModified: serverModified, rev: rev, size: size,
                                          contentHash: text(.contentHash), isDownloadable: isDownloadable ?? true, sharingInfo: sharingInfo))
            case "folder":
                // The fields of a file in a folder's entry are read (each must be well formed) and
                // left, as `JSONDecoder` leaves them.
                guard let id = text(.id) else { return nil }
                return .folder(FolderMetadata(name: name, id: id, pathLower: text(.pathLower), pathDisplay: text(.pathDisplay)))
            case "deleted":
                return .deleted(DeletedMetadata(name: name, pathLower: text(.pathLower), pathDisplay: text(.pathDisplay)))
            default:
                return nil
            }
        }

        /// `sharing_info`, with the keys a club server sends.
        private mutating func sharing() -> FileSharingInfo? {
            var readOnly: Bool?
            var parent: String?
            var modifiedBy: String?
            let read = members { reader, key in
                if reader.matches(key, "read_only") { return Self.once(&readOnly, reader.bool()) }
                if reader.matches(key, "parent_shared_folder_id") { return Self.once(&parent, reader.string()) }
                if reader.matches(key, "modified_by") { return Self.once(&modifiedBy, reader.string()) }
                return false
            }
            guard read else { return nil }
            return FileSharingInfo(readOnly: readOnly ?? false, parentSharedFolderID: parent ?? "", modifiedBy: modifiedBy)
        }

        // MARK: - Values

        private mutating func skipSpace() {
            while at < bytes.count {
                switch bytes[at] {
                case 0x20, 0x09, 0x0A, 0x0D: at += 1
                default: return
                }
            }
        }

        /// Takes `byte` after any space; false (nothing taken) when something else comes.
        private mutating func take(_ byte: UInt8) -> Bool {
            skipSpace()
            guard at < bytes.count, bytes[at] == byte else { return false }
            at += 1
            return true
        }

        /// A key and its colon: the bytes between the quotes, which hold no escape.
        private mutating func key() -> Range<Int>? {
            guard take(UInt8(ascii: "\"")) else { return nil }
            let start = at
            while at < bytes.count, bytes[at] != UInt8(ascii: "\"") {
                guard bytes[at] != UInt8(ascii: "\\"), bytes[at] >= 0x20 else { return nil }
                at += 1
            }
            guard at < bytes.count else { return nil }
            let key = start..<at
            at += 1
            return take(UInt8(ascii: ":")) ? key : nil
        }

        private func matches(_ key: Range<Int>, _ name: StaticString) -> Bool {
            guard key.count == name.utf8CodeUnitCount else { return false }
            return memcmp(bytes.baseAddress! + key.lowerBound, name.utf8Start, key.count) == 0
        }

        private mutating func bool() -> Bool? {
            skipSpace()
            if literal("true") { return true }
            if literal("false") { return false }
            return nil
        }

        private mutating func literal(_ word: StaticString) -> Bool {
            let count = word.utf8CodeUnitCount
            guard bytes.count - at >= count, memcmp(bytes.baseAddress! + at, word.utf8Start, count) == 0 else { return false }
            at += count
            return true
        }

        /// A plain non-negative integer (no sign, fraction or exponent) that fits an `Int64`.
        private mutating func integer() -> Int64? {
            skipSpace()
            let start = at
            var value: Int64 = 0
            while at < bytes.count, (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(bytes[at]) {
                let (times, overflowTimes) = value.multipliedReportingOverflow(by: 10)
                let (plus, overflowPlus) = times.addingReportingOverflow(Int64(bytes[at] - UInt8(ascii: "0")))
                guard !overflowTimes, !overflowPlus else { return nil }
                value = plus
                at += 1
            }
            guard at > start, at - start == 1 || bytes[start] != UInt8(ascii: "0") else { return nil }
            if at < bytes.count {
                switch bytes[at] {
                case UInt8(ascii: "."), UInt8(ascii: "e"), UInt8(ascii: "E"): return nil
                default: break
                }
            }
            return value
        }

        /// A string value: valid UTF-8, no raw control character, escapes as JSON has them
        /// (`\u` surrogates only in pairs).
        private mutating func string() -> String? {
            guard take(UInt8(ascii: "\"")) else { return nil }
            let start = at
            var ascii = true
            while at < bytes.count {
                let byte = bytes[at]
                if byte == UInt8(ascii: "\"") {
                    // ASCII is valid UTF-8 as it is; `String(validating:)` is generic, and its
                    // lookups were a tenth of a page's reading.
                    let text = UnsafeBufferPointer(rebasing: bytes[start..<at])
                    at += 1
                    return ascii ? String(decoding: text, as: UTF8.self) : String(validating: text, as: UTF8.self)
                }
                ascii = ascii && byte < 0x80
                if byte == UInt8(ascii: "\\") { return escapedString(from: start) }
                guard byte >= 0x20 else { return nil }
                at += 1
            }
            return nil
        }

        /// The rest of a string that holds an escape, from its first byte at `start`.
        private mutating func escapedString(from start: Int) -> String? {
            var text = Array(bytes[start..<at])
            while at < bytes.count {
                let byte = bytes[at]
                at += 1
                switch byte {
                case UInt8(ascii: "\""):
                    return String(validating: text, as: UTF8.self)
                case UInt8(ascii: "\\"):
                    guard at < bytes.count else { return nil }
                    let escape = bytes[at]
                    at += 1
                    switch escape {
                    case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"): text.append(escape)
                    case UInt8(ascii: "b"): text.append(0x08)
                    case UInt8(ascii: "f"): text.append(0x0C)
                    case UInt8(ascii: "n"): text.append(0x0A)
                    case UInt8(ascii: "r"): text.append(0x0D)
                    case UInt8(ascii: "t"): text.append(0x09)
                    case UInt8(ascii: "u"):
                        guard let scalar = unicodeEscape() else { return nil }
                        text.append(contentsOf: String(Character(scalar)).utf8)
                    default:
                        return nil
                    }
                default:
                    guard byte >= 0x20 else { return nil }
                    text.append(byte)
                }
            }
            return nil
        }

        /// The scalar of a `\uXXXX` (its `\u` taken), with the second half of a surrogate pair.
        private mutating func unicodeEscape() -> Unicode.Scalar? {
            guard let unit = hexUnit() else { return nil }
            switch unit {
            case 0xD800...0xDBFF:
                guard literal("\\u"), let low = hexUnit(), (0xDC00...0xDFFF).contains(low) else { return nil }
                return Unicode.Scalar(0x10000 + ((UInt32(unit) - 0xD800) << 10) + (UInt32(low) - 0xDC00))
            case 0xDC00...0xDFFF:
                return nil
            default:
                return Unicode.Scalar(UInt32(unit))
            }
        }

        private mutating func hexUnit() -> UInt16? {
            guard bytes.count - at >= 4 else { return nil }
            var value: UInt16 = 0
            for _ in 0..<4 {
                let byte = bytes[at]
                let digit: UInt8
                switch byte {
                case UInt8(ascii: "0")...UInt8(ascii: "9"): digit = byte - UInt8(ascii: "0")
                case UInt8(ascii: "a")...UInt8(ascii: "f"): digit = byte - UInt8(ascii: "a") + 10
                case UInt8(ascii: "A")...UInt8(ascii: "F"): digit = byte - UInt8(ascii: "A") + 10
                default: return nil
                }
                value = value << 4 | UInt16(digit)
                at += 1
            }
            return value
        }
    }
}

/// A wire type with a reader faster than `JSONDecoder` for its common shape; nil sends the
/// bytes to `JSONDecoder`.
public protocol QuickReadable {
    static func quickRead(_ data: Data) -> Self?
}

extension ListFolderResult: QuickReadable {
    public static func quickRead(_ data: Data) -> ListFolderResult? { ListingPageReader.read(data) }
}
