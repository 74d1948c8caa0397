import NIOCore

/// The body pattern of `/bytes/N`: byte `i` is `UInt8(i % 251)`.
///
/// 251 is prime, so the pattern never lines up with power-of-two chunk or buffer sizes and
/// an off-by-one or a misplaced range shows up as wrong bytes rather than as a lucky match.
enum BodyPattern {
    static let period = 251

    /// One shared buffer holding the pattern many times over. Responses send slices of it,
    /// which share its storage, so streaming a gigabyte never copies or generates bytes.
    static let buffer: ByteBuffer = {
        let count = period * 4096
        var buffer = ByteBufferAllocator().buffer(capacity: count)
        buffer.writeWithUnsafeMutableBytes(minimumWritableBytes: count) { raw in
            for i in 0..<count {
                raw[i] = UInt8(i % period)
            }
            return count
        }
        return buffer
    }()

    /// The longest slice that can start at any phase of the pattern.
    static let maxSliceLength = buffer.readableBytes - period

    /// Pattern bytes for absolute body offsets `offset ..< offset + length`, as one or more slices.
    static func slices(offset: Int, length: Int) -> [ByteBuffer] {
        var slices: [ByteBuffer] = []
        var offset = offset
        var remaining = length
        while remaining > 0 {
            let n = min(remaining, maxSliceLength)
            slices.append(buffer.getSlice(at: buffer.readerIndex + offset % period, length: n)!)
            offset += n
            remaining -= n
        }
        return slices
    }
}

/// FNV-1a, 64-bit: cheap to compute incrementally over streamed body parts and trivially
/// reimplemented in a test, which is all an upload checksum needs here.
struct FNV1a64 {
    static let offsetBasis: UInt64 = 0xcbf2_9ce4_8422_2325
    static let prime: UInt64 = 0x0000_0100_0000_01b3

    private(set) var value: UInt64 = offsetBasis

    mutating func update(_ buffer: ByteBuffer) {
        value = buffer.withUnsafeReadableBytes { Self.hash(value, $0) }
    }

    /// The multiply chain is inherently serial (about one byte per multiply latency), so the
    /// only thing worth doing is keeping loop overhead low: eight bytes per iteration keeps
    /// unoptimised test builds from being far slower than the arithmetic itself.
    private static func hash(_ seed: UInt64, _ raw: UnsafeRawBufferPointer) -> UInt64 {
        var h = seed
        let count = raw.count
        guard count > 0, let base = raw.baseAddress else { return h }
        var i = 0
        while i + 8 <= count {
            let word = UInt64(littleEndian: base.loadUnaligned(fromByteOffset: i, as: UInt64.self))
            h = (h ^ (word & 0xff)) &* prime
            h = (h ^ ((word >> 8) & 0xff)) &* prime
            h = (h ^ ((word >> 16) & 0xff)) &* prime
            h = (h ^ ((word >> 24) & 0xff)) &* prime
            h = (h ^ ((word >> 32) & 0xff)) &* prime
            h = (h ^ ((word >> 40) & 0xff)) &* prime
            h = (h ^ ((word >> 48) & 0xff)) &* prime
            h = (h ^ (word >> 56)) &* prime
            i += 8
        }
        while i < count {
            h = (h ^ UInt64(base.load(fromByteOffset: i, as: UInt8.self))) &* prime
            i += 1
        }
        return h
    }

    var hexString: String {
        let digits = String(value, radix: 16)
        return String(repeating: "0", count: 16 - digits.count) + digits
    }
}
