import Foundation

/// Flat grey JPEGs of any size, written marker by marker without ever holding the pixels.
///
/// A 16000×16000 test image made with TurboJPEG would need a 768 MB RGB buffer in the test
/// process. Every coefficient here is zero, so every Huffman code written is a run of zero
/// bits: the file is about a bit per 8×8 block (750 KB for 16000×16000 at 4:2:0), and it
/// decodes to RGB (128, 128, 128) everywhere.
enum SyntheticJPEG {
    enum Layout {
        /// One component.
        case gray
        /// Y at full size, Cb and Cr at half size both ways: what cameras write.
        case color420
    }

    static func make(width: Int, height: Int, layout: Layout, progressive: Bool) -> Data {
        precondition((1...65535).contains(width) && (1...65535).contains(height))
        // (id, horizontal, vertical) sampling per component.
        let components: [(id: UInt8, h: Int, v: Int)] = layout == .gray ? [(1, 1, 1)] : [(1, 2, 2), (2, 1, 1), (3, 1, 1)]
        let maxH = components.map(\.h).max()!
        let maxV = components.map(\.v).max()!
        var out: [UInt8] = [0xFF, 0xD8]

        // One quantization table of ones.
        segment(0xDB, [0x00] + [UInt8](repeating: 1, count: 64), into: &out)
        // Frame header.
        var frame: [UInt8] = [8, UInt8(height >> 8), UInt8(height & 0xFF), UInt8(width >> 8), UInt8(width & 0xFF), UInt8(components.count)]
        for component in components { frame += [component.id, UInt8(component.h << 4 | component.v), 0] }
        segment(progressive ? 0xC2 : 0xC0, frame, into: &out)
        // DC table 0: one code, "0", for difference category 0. AC table 0: the fifteen
        // end-of-band symbols 0x00, 0x10, … 0xE0 (EOB, EOBRUN 2–3, …, EOBRUN 16384–32767) as the
        // 4-bit codes 0000 … 1110, so a baseline EOB is four zero bits too.
        var dc: [UInt8] = [0x00, 1] + [UInt8](repeating: 0, count: 15) + [0x00]
        var ac: [UInt8] = [0x10, 0, 0, 0, 15] + [UInt8](repeating: 0, count: 12)
        ac += (0..<15).map { UInt8($0 << 4) }
        dc += ac
        segment(0xC4, dc, into: &out)

        // Blocks in a scan of all components (in MCUs), and in a scan of one.
        let mcus = divide(width, 8 * maxH) * divide(height, 8 * maxV)
        let interleavedBlocks = components.count == 1
            ? divide(width, 8) * divide(height, 8)
            : mcus * components.reduce(0) { $0 + $1.h * $1.v }
        func blocks(of component: (id: UInt8, h: Int, v: Int)) -> Int {
            divide(divide(width * component.h, maxH), 8) * divide(divide(height * component.v, maxV), 8)
        }

        if progressive {
            // DC first: one zero bit per block. Then each component's AC band, all end-of-band runs.
            scanHeader(components.map(\.id), start: 0, end: 0, into: &out)
            var bits = BitWriter()
            bits.zeros(interleavedBlocks)
            out += bits.finished()
            for component in components {
                scanHeader([component.id], start: 1, end: 63, into: &out)
                var bits = BitWriter()
                var remaining = blocks(of: component)
                while remaining > 0 {
                    let run = min(remaining, 32767)
                    let r = Int.bitWidth - 1 - run.leadingZeroBitCount
                    bits.write(UInt32(r), length: 4)
                    bits.write(UInt32(run - (1 << r)), length: r)
                    remaining -= run
                }
                out += bits.finished()
            }
        } else {
            // One scan: a zero DC difference and an EOB, five zero bits per block.
            scanHeader(components.map(\.id), start: 0, end: 63, into: &out)
            var bits = BitWriter()
            bits.zeros(interleavedBlocks * 5)
            out += bits.finished()
        }
        out += [0xFF, 0xD9]
        return Data(out)
    }

    private static func divide(_ value: Int, _ divisor: Int) -> Int { (value + divisor - 1) / divisor }

    private static func segment(_ marker: UInt8, _ payload: [UInt8], into out: inout [UInt8]) {
        let length = payload.count + 2
        out += [0xFF, marker, UInt8(length >> 8), UInt8(length & 0xFF)] + payload
    }

    private static func scanHeader(_ ids: [UInt8], start: UInt8, end: UInt8, into out: inout [UInt8]) {
        var payload: [UInt8] = [UInt8(ids.count)]
        for id in ids { payload += [id, 0x00] }
        payload += [start, end, 0x00]
        segment(0xDA, payload, into: &out)
    }

    /// Entropy-coded bits, most significant first, with 0xFF bytes stuffed and the last byte
    /// padded with ones.
    private struct BitWriter {
        var bytes: [UInt8] = []
        var pending: UInt32 = 0
        var count = 0

        mutating func write(_ value: UInt32, length: Int) {
            guard length > 0 else { return }
            pending = pending << UInt32(length) | value
            count += length
            while count >= 8 {
                count -= 8
                let byte = UInt8((pending >> UInt32(count)) & 0xFF)
                bytes.append(byte)
                if byte == 0xFF { bytes.append(0) }
            }
            pending &= (1 << UInt32(count)) - 1
        }

        mutating func zeros(_ total: Int) {
            var left = total
            while left > 0 && count != 0 {
                write(0, length: 1)
                left -= 1
            }
            bytes += repeatElement(0, count: left / 8)
            write(0, length: left % 8)
        }

        mutating func finished() -> [UInt8] {
            if count > 0 { write((1 << UInt32(8 - count)) - 1, length: 8 - count) }
            return bytes
        }
    }
}
