import DropboxWire
import Durable
import Foundation

/// The small file and process facts a `FolderStore` and its neighbours need.
enum FolderFiles {
    /// `count` random bytes as base64url without padding: ids, session ids, share-link tokens.
    static func randomToken(bytes count: Int) -> String {
        // Eight bytes per call to the system's generator (a getrandom(2) each): a byte per call
        // made ids the most of a 100,000-file folder's first listing. Written as base64url by
        // table: through `Data.base64EncodedString` and a pass to swap its alphabet, each id
        // made three strings, and a first listing of 100,000 new files makes 100,000 ids.
        var generator = SystemRandomNumberGenerator()
        var bytes: [UInt8] = []
        bytes.reserveCapacity(count + 7)
        while bytes.count < count { withUnsafeBytes(of: generator.next() as UInt64) { bytes.append(contentsOf: $0) } }
        bytes.removeLast(bytes.count - count)
        return base64URL(bytes)
    }

    /// `bytes` as base64url without padding.
    static func base64URL(_ bytes: [UInt8]) -> String {
        let alphabet: StaticString = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_"
        let length = (bytes.count * 8 + 5) / 6
        return String(unsafeUninitializedCapacity: length) { out in
            var at = 0
            var index = 0
            while index < bytes.count {
                let group = min(3, bytes.count - index)
                var bits = UInt32(bytes[index]) << 16
                if group > 1 { bits |= UInt32(bytes[index + 1]) << 8 }
                if group > 2 { bits |= UInt32(bytes[index + 2]) }
                for sextet in 0...group {
                    out[at] = alphabet.utf8Start[Int(bits >> UInt32(18 - 6 * sextet) & 0x3F)]
                    at += 1
                }
                index += 3
            }
            return at
        }
    }

    /// The umask, read without changing it where the kernel says it (`Umask:` in
    /// /proc/self/status, Linux 4.7+); elsewhere set and put back at once, before any thread of
    /// ours creates files.
    static func processUmask() -> mode_t {
        if let status = readSmallFile("/proc/self/status"),
           let line = status.split(separator: "\n").first(where: { $0.hasPrefix("Umask:") }),
           let value = mode_t(line.dropFirst(6).trimmingCharacters(in: .whitespaces), radix: 8) {
            return value
        }
        let mask = umask(0o022)
        umask(mask)
        return mask
    }

    /// A file read to its end in one go; for /proc files, whose size `stat` gives as 0.
    static func readSmallFile(_ path: String, limit: Int = 1 << 20) -> String? {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { return nil }
        defer { close(fd) }
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 4096)
        while bytes.count < limit {
            let got = read(fd, &chunk, chunk.count)
            if got < 0 && errno == EINTR { continue }
            guard got > 0 else { break }
            bytes += chunk[0..<got]
        }
        return String(decoding: bytes, as: UTF8.self)
    }

    /// Replaces the file at `path` with `value` as sorted JSON (0600), durably (`DurableFile`):
    /// a crash leaves the old file or the new one, never half of either.
    static func writeJSONDurably<Value: Encodable>(_ value: Value, to path: String, temporaryDirectory: String) throws {
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        try DurableFile.write(try encoder.encode(value), to: path, temporaryDirectory: temporaryDirectory)
    }

    /// The ids: `ids.json`, written whole, and the lines of `ids.log` after it (CacheFiles).
    static let identifiersFile = "ids.json", identifiersLog = "ids.log"

    /// The ids in `metaDirectory`: `ids.json` with `ids.log`'s lines applied in order (a last
    /// line cut short by a crash, or any line that does not read, is left out), or nothing.
    static func readIdentifiers(_ metaDirectory: String) -> [String: String] {
        var ids: [String: String] = [:]
        if let data = FileManager.default.contents(atPath: metaDirectory + "/" + identifiersFile) {
            ids = (try? JSONDecoder().decode([String: String].self, from: data)) ?? [:]
        }
        guard let log = FileManager.default.contents(atPath: metaDirectory + "/" + identifiersLog) else { return ids }
        let decoder = JSONDecoder()
        for line in log.split(separator: UInt8(ascii: "\n")) {
            guard let pair = try? decoder.decode([String?].self, from: Data(line)), pair.count == 2, let path = pair[0] else { continue }
            ids[path] = pair[1]
        }
        return ids
    }

    /// `ids.json`'s bytes: one object of ids by `path_lower`, written as the listings' JSON is
    /// (a JSONEncoder of 100,000 ids took a tenth of a first listing, once for each fold of the log).
    static func identifiersJSON(_ ids: [String: String]) -> Data {
        var text = "{"
        text.reserveCapacity(ids.count * 48)
        for (offset, (path, id)) in ids.enumerated() {
            if offset > 0 { text += "," }
            DropboxJSON.appendQuoted(path, to: &text)
            text += ":"
            DropboxJSON.appendQuoted(id, to: &text)
        }
        text += "}"
        return Data(text.utf8)
    }

    /// `ids.log`'s line for `pathLower` now holding `id` (nil: none).
    static func identifierLine(_ pathLower: String, _ id: String?) -> String {
        // Written as the listings' JSON is: a JSONEncoder a line was most of a first listing's
        // append of 100,000 new ids.
        var line = "["
        DropboxJSON.appendQuoted(pathLower, to: &line)
        if let id {
            line += ","
            DropboxJSON.appendQuoted(id, to: &line)
            line += "]\n"
        } else {
            line += ",null]\n"
        }
        return line
    }

    /// The content-hash cache file at `path`, or nothing.
    static func readHashes(_ path: String) -> [FileKey: HashBook.Digest] {
        guard let data = FileManager.default.contents(atPath: path) else { return [:] }
        return HashBook.parse(data)
    }
}
