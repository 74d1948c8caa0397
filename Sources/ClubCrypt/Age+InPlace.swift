import Crypto
import Dispatch
import Foundation

/// Decrypting a whole age file where it lies: for a download, whose ciphertext is on disk
/// already. A window of chunks is read, opened on every core, and its plaintext written over
/// the front of the same file (a window's plaintext ends before the next window's ciphertext
/// starts: each chunk shrinks by its 16-byte tag, and the header and nonce go too); then the
/// file is cut to the plaintext's size. The file holds nothing usable after a failure: the
/// caller removes it.
extension Age {
    /// Chunks in a window: 4 MiB of plaintext.
    static let window = 64

    /// Decrypts `file` in place. `check` sees the header first (to refuse the file before any
    /// work); `hash` sees the plaintext in order. Answers the header and the plaintext's size.
    public static func decryptInPlace(_ file: URL, identities: [any AgeIdentity], check: (AgeHeader) throws -> Void,
                                      hash: (Data) -> Void) throws -> (header: AgeHeader, size: Int64) {
        let input = try FileHandle(forReadingFrom: file)
        defer { try? input.close() }
        let output = try FileHandle(forUpdating: file)
        defer { try? output.close() }
        func read(_ count: Int) throws -> Data {
            var data = Data()
            while data.count < count {
                guard let more = try input.read(upToCount: count - data.count), !more.isEmpty else { break }
                data.append(more)
            }
            return data
        }
        var buffer = Data()
        let header = try readHeader(&buffer, read: read)
        let fileKey = try fileKey(of: header, identities: identities)
        try check(header)
        buffer = Data(buffer.dropFirst(header.length))
        if buffer.count < 16 { buffer.append(try read(16 - buffer.count)) }
        guard buffer.count >= 16 else { throw AgeError.truncated }
        let key = AgeKDF.key(fileKey.withUnsafeBytes { Data($0) }, salt: buffer.prefix(16), info: "payload")
        let sealed = chunkSize + tagSize
        var next = Data(buffer.dropFirst(16))
        next.append(try read(window * sealed - next.count))
        var counter: UInt64 = 0
        var size: Int64 = 0
        while true {
            let current = next
            next = try read(window * sealed)
            let final = next.isEmpty
            guard final || current.count == window * sealed else { throw AgeError.truncated }
            let plain = try openWindow(current, key: key, first: counter, final: final)
            hash(plain)
            try output.write(contentsOf: plain)
            size += Int64(plain.count)
            counter += UInt64(window)
            if final { break }
        }
        try output.truncate(atOffset: UInt64(size))
        return (header, size)
    }

    /// The chunks of one window, opened side by side; the last is the file's last when `final`.
    static func openWindow(_ data: Data, key: SymmetricKey, first: UInt64, final: Bool) throws -> Data {
        let sealed = chunkSize + tagSize
        let count = final ? max(1, (data.count + sealed - 1) / sealed) : window
        guard !final || data.count >= tagSize else { throw AgeError.truncated }
        let opened = OpenedChunks(count: count)
        // SymmetricKey is not Sendable: each core makes its own from the bytes.
        let keyBytes = key.withUnsafeBytes { Data($0) }
        DispatchQueue.concurrentPerform(iterations: count) { index in
            let key = SymmetricKey(data: keyBytes)
            let start = data.startIndex + index * sealed
            let chunk = data[start..<min(start + sealed, data.endIndex)]
            let last = final && index == count - 1
            let counter = first + UInt64(index)
            if let plain = open(chunk, key: key, counter: counter, last: last), last || !plain.isEmpty, !(last && plain.isEmpty && counter > 0) {
                opened.set(index, .success(plain))
            } else if last, chunk.count == sealed, open(chunk, key: key, counter: counter, last: false) != nil {
                opened.set(index, .failure(.truncated))
            } else {
                opened.set(index, .failure(.payloadTampered(chunk: Int(counter))))
            }
        }
        var plain = Data(capacity: count * chunkSize)
        for result in opened.results {
            switch result {
            case .success(let chunk)?: plain.append(chunk)
            case .failure(let error)?: throw error
            case nil: throw AgeError.truncated
            }
        }
        return plain
    }
}

/// The chunks of a window as the cores open them, each into its own slot.
final class OpenedChunks: @unchecked Sendable {
    // @unchecked Sendable: `slots` is read and written only under `lock`.
    private let lock = NSLock()
    private var slots: [Result<Data, AgeError>?]

    init(count: Int) { slots = Array(repeating: nil, count: count) }

    func set(_ index: Int, _ result: Result<Data, AgeError>) { lock.withLock { slots[index] = result } }

    var results: [Result<Data, AgeError>?] { lock.withLock { slots } }
}
