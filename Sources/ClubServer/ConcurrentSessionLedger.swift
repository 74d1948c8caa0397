import DropboxWire
import Foundation

/// Which blocks of a concurrent upload session arrived, and where the session ends once an
/// append closed it: the record that lets appends come in any order and be sent twice.
///
/// It lives next to the session's file as `<id>.concurrent`, a few lines of text rewritten
/// (to a temporary name, then renamed) after every append that completes, so a restarted
/// server still knows which ranges it holds. Only whole appends are recorded: one cut short
/// by a lost connection leaves its bytes in the file but no claim on them, and its re-send
/// writes the same range again.
package struct ConcurrentSessionLedger: Sendable, Equatable {
    /// Completed appends: offset → length.
    private(set) var chunks: [Int64: Int64] = [:]
    /// The session's length, set by the append that closed it.
    private(set) var end: Int64?

    static let suffix = ".concurrent"

    /// Why an append or a finish is refused, as the spec's error tags.
    package enum Refusal: Error, Equatable {
        case invalidOffset
        case invalidDataSize
        case closed
        case notClosed
        case missingData
        /// Past the largest file a session can make (`too_large`).
        case tooLarge
    }

    package static let maxBytes = UploadSessionType.maxSessionBytes

    /// Checks an append before its body is read: its offset is on a block boundary, within the
    /// largest file a session can make, and no further than the end a closing append set.
    func admits(offset: Int64) throws(Refusal) {
        // Checked first: every sum below relies on the offset being at most `maxBytes`.
        guard offset >= 0, offset <= Self.maxBytes else { throw .tooLarge }
        guard offset % UploadSessionType.concurrentBlock == 0 else { throw .invalidOffset }
        if let end, offset >= end, !(offset == end && chunks[offset] == 0) { throw .closed }
    }

    /// Checks an append of `length` bytes at `offset` before a byte of it is written: a refused
    /// append must not overwrite what other blocks brought. A block sent again (its first
    /// answer lost) passes as long as it says the same thing about the end.
    package func check(offset: Int64, length: Int64, closing: Bool) throws(Refusal) {
        try admits(offset: offset)
        // Compared as a difference: a client's offset and length must not be added before they
        // are known to fit (an offset near Int64.max plus a block once trapped the server).
        guard length >= 0, length <= Self.maxBytes - offset else { throw .tooLarge }
        if closing {
            let closingEnd = offset + length
            if let end, end != closingEnd { throw .closed }
            if let furthest = chunks.map({ $0.key + $0.value }).max(), furthest > closingEnd { throw .closed }
        } else {
            guard length % UploadSessionType.concurrentBlock == 0 else { throw .invalidDataSize }
            if let end, offset + length > end { throw .closed }
        }
    }

    /// Records an append that arrived whole (checked again: another may have closed the
    /// session meanwhile).
    package mutating func record(offset: Int64, length: Int64, closing: Bool) throws(Refusal) {
        try check(offset: offset, length: length, closing: closing)
        if closing { end = offset + length }
        chunks[offset] = length
    }

    /// The session's length once every byte up to its end arrived.
    package func complete() throws(Refusal) -> Int64 {
        guard let end else { throw .notClosed }
        var covered: Int64 = 0
        for (offset, length) in chunks.sorted(by: { $0.key < $1.key }) {
            guard offset <= covered else { break }
            covered = max(covered, offset + length)
        }
        guard covered >= end else { throw .missingData }
        return end
    }

    // MARK: Text form

    /// `concurrent`, then `end N` once closed, then one `chunk OFFSET LENGTH` line per append.
    package var text: String {
        var lines = ["concurrent"]
        if let end { lines.append("end \(end)") }
        for (offset, length) in chunks.sorted(by: { $0.key < $1.key }) { lines.append("chunk \(offset) \(length)") }
        return lines.joined(separator: "\n") + "\n"
    }

    /// Reads the text form; nil for anything else (a damaged ledger is a session not found).
    package init?(text: String) {
        let lines = text.split(separator: "\n")
        guard lines.first == "concurrent" else { return nil }
        for line in lines.dropFirst() {
            let words = line.split(separator: " ")
            switch (words.first, words.count) {
            case ("end", 2):
                guard let value = Int64(words[1]), value >= 0, value <= Self.maxBytes else { return nil }
                end = value
            case ("chunk", 3):
                // The same bounds as an append's, so the sums in `check` and `complete` hold for
                // a ledger read from disk too.
                guard let offset = Int64(words[1]), let length = Int64(words[2]), offset >= 0, length >= 0,
                      offset <= Self.maxBytes, length <= Self.maxBytes - offset else { return nil }
                chunks[offset] = length
            default:
                return nil
            }
        }
    }

    package init() {}
}
