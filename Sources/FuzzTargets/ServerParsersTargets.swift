import ClubServer
import DropboxWire
import Foundation

/// `Dropbox-API-Arg` text (or a JSON body) into `Arguments`, then each field type the routes read
/// and every wire type they decode from it: a bad argument is a 400, never a trap.
enum DropboxArgTarget {
    static func run(_ data: Data) {
        let text = String(decoding: data, as: UTF8.self)
        guard let arguments = try? Arguments(headerText: text, what: "fuzz") else { return }
        for key in ["path", "from_path", "to_path", "cursor", "query", "session_id", "url", "rev", "tag_text", "account_id"] {
            _ = try? arguments.string(key)
            _ = try? arguments.optionalString(key)
        }
        for key in ["recursive", "autorename", "close", "include_deleted", "mute", "strict_conflict"] {
            _ = try? arguments.bool(key, default: false)
        }
        for key in ["limit", "timeout", "offset", "max_results"] {
            _ = try? arguments.int(key, default: nil, range: 0...Int.max)
        }
        _ = try? arguments.object("cursor")?.int("offset", default: 0, range: 0...Int.max)
        _ = try? arguments.decode(CommitInfo.self)
        _ = try? arguments.decode(CommitInfo.self, "commit")
        _ = try? arguments.decode(UploadSessionType.self, "session_type")
        _ = try? arguments.decode(SearchOptions.self, "options")
        _ = try? arguments.decode(ListRevisionsArg.self)
        _ = try? arguments.decode(RestoreArg.self)
        _ = try? arguments.decode(TagArg.self)
        _ = try? arguments.decode(GetTagsArg.self)
        _ = try? arguments.decode(ThumbnailArgument.self)
        _ = try? arguments.decode(LinkVisibility.self, "requested_visibility")
        _ = try? DropboxPath.parse((try? arguments.string("path")) ?? text)
    }
}

/// `Range`, `If-Range` and `If-None-Match` as a download and a share link read them, and the
/// path of a share link: a range given back lies inside the file.
enum HTTPHeadersTarget {
    static func run(_ data: Data) {
        guard data.count >= 8 else { return }
        // The first 8 bytes are the file's size (any Int64 a file could have), the rest the header.
        let size = Int64(data.prefix(8).withUnsafeBytes { $0.loadUnaligned(as: UInt64.self) } & UInt64(Int64.max))
        let text = String(decoding: data.dropFirst(8), as: UTF8.self)
        if case .some(.some(let range)) = ClubAPI.parseRange(text, size: size) {
            FuzzCheck.expect(range.lowerBound >= 0 && range.upperBound < size, "Range \(text) of a \(size)-byte file gave \(range)")
        }
        _ = ClubAPI.matches(text, etag: "\"0123456789abcdef\"")
        if let link = ClubAPI.linkRequest(text) {
            FuzzCheck.expect(!link.name.contains("/") && link.name != ".." && !link.name.isEmpty, "share link \(text) named \(link.name)")
        }
    }
}

/// The concurrent-session ledger: appends in any order, any number, any size, as clients send
/// them; then its text form read back. Whatever it admits stays within the largest session.
enum SessionLedgerTarget {
    static func run(_ data: Data) {
        var ledger = ConcurrentSessionLedger()
        var bytes = data[...]
        // 17 bytes an op: offset, length (big-endian Int64, as any client number), close flag.
        while bytes.count >= 17 {
            let offset = Int64(bitPattern: bytes.prefix(8).reduce(0) { $0 << 8 | UInt64($1) })
            let length = Int64(bitPattern: bytes.dropFirst(8).prefix(8).reduce(0) { $0 << 8 | UInt64($1) })
            let closing = bytes[bytes.startIndex + 16] & 1 == 1
            bytes = bytes.dropFirst(17)
            // Small values are the interesting ones too: the low byte scaled by the block size.
            let scaled = bytes.count % 2 == 0
            let o = scaled ? Int64(UInt8(truncatingIfNeeded: offset)) * UploadSessionType.concurrentBlock : offset
            let l = scaled ? Int64(UInt8(truncatingIfNeeded: length)) * UploadSessionType.concurrentBlock : length
            _ = try? ledger.check(offset: o, length: l, closing: closing)
            if (try? ledger.record(offset: o, length: l, closing: closing)) != nil {
                FuzzCheck.expect(o >= 0 && l >= 0 && o <= ConcurrentSessionLedger.maxBytes - l, "the ledger took \(l) bytes at \(o)")
            }
            if let end = try? ledger.complete() {
                FuzzCheck.expect(end >= 0 && end <= ConcurrentSessionLedger.maxBytes, "a session of \(end) bytes completed")
            }
        }
        FuzzCheck.expect(ConcurrentSessionLedger(text: ledger.text) == ledger, "the ledger's text did not read back")
        if let read = ConcurrentSessionLedger(text: String(decoding: data, as: UTF8.self)) {
            _ = try? read.complete()
            _ = try? read.check(offset: 0, length: UploadSessionType.concurrentBlock, closing: true)
        }
    }
}
