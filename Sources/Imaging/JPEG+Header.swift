import Foundation

extension JPEG {
    /// What a JPEG's markers say before any pixel is decoded: its size, its components, and
    /// whether the decoder will have to hold every DCT coefficient of the image at once.
    public struct Header: Sendable, Equatable {
        /// One colour component's sampling factors, as in the frame header.
        public struct Component: Sendable, Equatable {
            public var horizontal: Int
            public var vertical: Int

            public init(horizontal: Int, vertical: Int) {
                self.horizontal = horizontal
                self.vertical = vertical
            }
        }

        public var width: Int
        public var height: Int
        public var components: [Component]
        /// A progressive frame (SOF2, SOF6, SOF10, SOF14).
        public var isProgressive: Bool
        /// A sequential frame whose first scan leaves some components for later scans.
        public var isMultiScan: Bool

        public var pixels: Int { width * height }

        /// Whether libjpeg decodes through a whole-image coefficient buffer.
        ///
        /// It does for every image that arrives in more than one scan: the later scans refine
        /// coefficients of blocks decoded long before. DCT scaling shrinks only the output, not
        /// that buffer, so a 16000×16000 progressive JPEG costs 768 MB whatever the thumbnail size.
        public var buffersWholeImage: Bool { isProgressive || isMultiScan }

        /// The bytes of that coefficient buffer: 64 two-byte coefficients per 8×8 block of each
        /// component, with the block counts rounded up to whole MCUs as libjpeg does.
        public var coefficientBytes: Int {
            let maxH = components.map(\.horizontal).max() ?? 1
            let maxV = components.map(\.vertical).max() ?? 1
            return components.reduce(0) { total, component in
                let blocksWide = roundUp(divideRoundingUp(width * component.horizontal, maxH * 8), to: component.horizontal)
                let blocksHigh = roundUp(divideRoundingUp(height * component.vertical, maxV * 8), to: component.vertical)
                return total + blocksWide * blocksHigh * 128
            }
        }

        private func divideRoundingUp(_ value: Int, _ divisor: Int) -> Int { (value + divisor - 1) / divisor }
        private func roundUp(_ value: Int, to multiple: Int) -> Int { divideRoundingUp(value, multiple) * multiple }
    }

    /// Reads the markers up to the first scan, without touching the compressed data.
    ///
    /// Throws `notJPEG` for anything that is not a frame followed by a scan, including a header
    /// cut short: the caller may try again with more of the file.
    public static func header(of data: Data) throws(ImagingError) -> Header {
        let result = data.withUnsafeBytes { raw in
            Result { () throws(ImagingError) in try header(of: raw.bindMemory(to: UInt8.self).prefix(headerScanLimit)) }
        }
        return try result.get()
    }

    private static func header(of bytes: UnsafeBufferPointer<UInt8>.SubSequence) throws(ImagingError) -> Header {
        let bytes = UnsafeBufferPointer(rebasing: bytes)
        guard bytes.count >= 4, bytes[0] == 0xFF, bytes[1] == 0xD8 else { throw .notJPEG("missing the JPEG start marker") }
        var frame: Header?
        var index = 2
        while index < bytes.count {
            // Like libjpeg, skip stray bytes before a marker, then any fill bytes.
            guard bytes[index] == 0xFF else { index += 1; continue }
            while index < bytes.count && bytes[index] == 0xFF { index += 1 }
            guard index < bytes.count else { break }
            let marker = bytes[index]
            index += 1
            switch marker {
            case 0x00, 0x01, 0xD0...0xD7:
                continue // a stuffed byte, TEM or a restart marker: no length follows
            case 0xD9:
                throw .notJPEG("the image ends before its first scan")
            default:
                break
            }
            guard index + 2 <= bytes.count else { break }
            let length = Int(bytes[index]) << 8 | Int(bytes[index + 1])
            guard length >= 2 else { throw .notJPEG("a marker segment with length \(length)") }
            let segment = index + 2 ..< min(bytes.count, index + length)
            let complete = index + length <= bytes.count
            switch marker {
            case 0xC0...0xCF where ![0xC4, 0xC8, 0xCC].contains(marker):
                guard complete else { break }
                if frame == nil { frame = try Self.frame(bytes[segment], progressive: [0xC2, 0xC6, 0xCA, 0xCE].contains(marker)) }
            case 0xDA:
                guard var found = frame else { throw .notJPEG("a scan before the frame header") }
                guard let count = bytes[segment].first else { break }
                found.isMultiScan = !found.isProgressive && Int(count) < found.components.count
                return found
            default:
                break
            }
            index += length
        }
        throw .notJPEG("the header is cut short")
    }

    /// APP segments (EXIF, ICC profiles, previews) can push the first scan far in, but not
    /// without bound: beyond this, a file is not worth reading for a header.
    static let headerScanLimit = 16 << 20

    private static func frame(_ segment: Slice<UnsafeBufferPointer<UInt8>>, progressive: Bool) throws(ImagingError) -> Header {
        let field = Array(segment)
        guard field.count >= 6 else { throw .notJPEG("a short frame header") }
        let height = Int(field[1]) << 8 | Int(field[2])
        let width = Int(field[3]) << 8 | Int(field[4])
        let count = Int(field[5])
        guard width > 0, height > 0 else { throw .notJPEG("a frame of \(width)×\(height)") }
        guard count > 0, field.count >= 6 + 3 * count else { throw .notJPEG("a frame with \(count) components") }
        var components: [Header.Component] = []
        for component in 0..<count {
            let sampling = field[6 + 3 * component + 1]
            let horizontal = Int(sampling >> 4)
            let vertical = Int(sampling & 0x0F)
            guard (1...4).contains(horizontal), (1...4).contains(vertical) else { throw .notJPEG("sampling factors \(horizontal)×\(vertical)") }
            components.append(Header.Component(horizontal: horizontal, vertical: vertical))
        }
        return Header(width: width, height: height, components: components, isProgressive: progressive, isMultiScan: false)
    }
}
