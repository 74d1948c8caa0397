import Crypto
import Foundation
import Simulation

/// Bodies that check themselves, so a note or photo cut off or mixed with another is seen from
/// its bytes alone.
///
/// A note is lines, one per version: `n00012.3 41 9f3a0c1e payload…`, the note's id and the
/// version, the payload's length and the first 8 hex digits of SHA-256 over `id.version payload`.
/// Each save appends one line, so version v's text is version v-1's, a newline, and line v; a
/// restore brings back an older text whole. A valid note: every line checks, all of one id,
/// versions rising. Its last line's version names its text (each version is made once).
enum NoteText {
    static func title(_ id: Int) -> String { String(format: "tt%05dx", id) }
    static func tag(_ id: Int, _ version: Int) -> String { String(format: "n%05d.%d", id, version) }

    static func line(id: Int, version: Int, using rng: inout SplitMix64) -> String {
        let words = (0..<rng.int(3...9)).map { _ in
            String((0..<rng.int(2...9)).map { _ in Character(UnicodeScalar(UInt8(ascii: "a") + UInt8(rng.int(0...25)))) })
        }
        let payload = words.joined(separator: " ")
        return "\(tag(id, version)) \(payload.utf8.count) \(digest(tag(id, version) + " " + payload)) \(payload)"
    }

    static func digest(_ text: String) -> String { String(Hex.sha256(Data(text.utf8)).prefix(8)) }

    enum Verdict: Equatable {
        case valid(id: Int, version: Int)
        case damaged(String)
    }

    /// Whether `text` is a whole note of ours, and which version.
    static func check(_ text: String) -> Verdict {
        var noteID: Int?
        var last = 0
        for line in text.split(separator: "\n", omittingEmptySubsequences: false) {
            let fields = line.split(separator: " ", maxSplits: 3, omittingEmptySubsequences: false)
            guard fields.count == 4, fields[0].hasPrefix("n"), let dot = fields[0].firstIndex(of: "."),
                  let id = Int(fields[0][fields[0].index(after: fields[0].startIndex)..<dot]),
                  let version = Int(fields[0][fields[0].index(after: dot)...]), let length = Int(fields[1]) else {
                return .damaged("a line that is not a note line: \(line.prefix(60))")
            }
            let payload = String(fields[3])
            guard payload.utf8.count == length, digest(String(fields[0]) + " " + payload) == fields[2] else {
                return .damaged("line \(fields[0]) cut off or changed (\(payload.utf8.count) of \(length) bytes)")
            }
            if let noteID, noteID != id { return .damaged("lines of n\(noteID) and n\(id) mixed") }
            guard version > last else { return .damaged("versions out of order at \(fields[0])") }
            noteID = id
            last = version
        }
        guard let noteID else { return .damaged("empty") }
        return .valid(id: noteID, version: last)
    }

    /// The note id a file name carries (`tt00012x.md`, `tt00012x r3.md`, a conflicted copy).
    static func id(fromName name: String) -> Int? {
        guard name.hasPrefix("tt"), name.count >= 8 else { return nil }
        let digits = name.dropFirst(2).prefix(5)
        return digits.count == 5 && name.dropFirst(7).hasPrefix("x") ? Int(digits) : nil
    }
}

/// A photo: a 64-byte header line (`BCTORTURE p00012 size=… sha=…`) and bytes from a seeded
/// generator; the size is the whole file's and the hash the rest's.
enum PhotoBytes {
    static let headerSize = 64

    static func name(_ id: Int) -> String { String(format: "p%05d.jpg", id) }

    static func make(id: Int, size: Int, seed: UInt64) -> Data {
        var rng = SplitMix64(seed: seed ^ (UInt64(id) &* 0x9E37_79B9))
        var body = Data(count: max(0, size - headerSize))
        body.withUnsafeMutableBytes { raw in
            let words = raw.count / 8
            let base = raw.baseAddress!
            for index in 0..<words { base.storeBytes(of: rng.next(), toByteOffset: index * 8, as: UInt64.self) }
            for index in (words * 8)..<raw.count { raw[index] = UInt8(truncatingIfNeeded: rng.next()) }
        }
        var header = "BCTORTURE \(String(format: "p%05d", id)) size=\(size) sha=\(Hex.sha256(body).prefix(16))"
        header += String(repeating: " ", count: headerSize - 1 - header.utf8.count) + "\n"
        return Data(header.utf8) + body
    }

    /// nil when the photo is whole, else what is wrong.
    static func problem(_ data: Data, name: String) -> String? {
        guard data.count >= headerSize, let header = String(data: data.prefix(headerSize), encoding: .utf8) else {
            return "\(data.count) bytes, no whole header (cut off)"
        }
        let fields = header.split(separator: " ")
        guard fields.count >= 4, fields[0] == "BCTORTURE", let size = Int(fields[2].dropFirst(5)) else { return "a damaged header" }
        if !name.hasPrefix(String(fields[1])) { return "holds \(fields[1])'s bytes (mixed)" }
        if data.count != size { return "\(data.count) of \(size) bytes (cut off)" }
        if Hex.sha256(data.dropFirst(headerSize)).prefix(16) != fields[3].dropFirst(4).prefix(16) { return "its bytes do not match their hash (mixed)" }
        return nil
    }
}

enum Hex {
    static func sha256(_ data: Data) -> String { SHA256.hash(data: data).map { String(format: "%02x", $0) }.joined() }

    /// Dropbox's content hash: SHA-256 of each 4 MiB block's SHA-256, concatenated.
    static func contentHash(_ data: Data) -> String {
        var blocks = Data()
        var offset = data.startIndex
        while offset < data.endIndex {
            let end = min(offset + 4 << 20, data.endIndex)
            blocks.append(contentsOf: SHA256.hash(data: data[offset..<end]))
            offset = end
        }
        return sha256(blocks)
    }
}
