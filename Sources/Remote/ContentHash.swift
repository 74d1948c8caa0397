import Crypto
import Foundation

/// Dropbox's content hash: SHA-256 of each 4 MiB block, then SHA-256 of those digests
/// concatenated, as lowercase hex. Fed incrementally, so uploads hash as they stream.
public struct ContentHasher {
    public init() {}

    public static let blockSize = 4 * 1024 * 1024

    private var overall = SHA256()
    private var block = SHA256()
    private var blockFill = 0
    public private(set) var byteCount: Int64 = 0

    public mutating func update(_ bytes: UnsafeRawBufferPointer) {
        var offset = 0
        while offset < bytes.count {
            let take = min(Self.blockSize - blockFill, bytes.count - offset)
            block.update(bufferPointer: UnsafeRawBufferPointer(rebasing: bytes[offset..<(offset + take)]))
            blockFill += take
            offset += take
            if blockFill == Self.blockSize {
                overall.update(data: Data(block.finalize()))
                block = SHA256()
                blockFill = 0
            }
        }
        byteCount += Int64(bytes.count)
    }

    public mutating func update(_ data: Data) {
        data.withUnsafeBytes { update($0) }
    }

    public func finalize() -> String {
        var overall = self.overall
        if blockFill > 0 {
            overall.update(data: Data(block.finalize()))
        }
        return overall.finalize().map { String(format: "%02x", $0) }.joined()
    }

    /// Hashes a file on disk.
    public static func hash(fileAt path: String) throws -> String {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO) }
        defer { close(fd) }
        var hasher = ContentHasher()
        var buffer = [UInt8](repeating: 0, count: 1 << 20)
        while true {
            let count = buffer.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
            if count < 0 {
                if errno == EINTR { continue }
                throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO)
            }
            if count == 0 { break }
            buffer.withUnsafeBytes { hasher.update(UnsafeRawBufferPointer(rebasing: $0[0..<count])) }
        }
        return hasher.finalize()
    }
}
