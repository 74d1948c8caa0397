/// The byte coding Yjs writes its updates in (the lib0 library's): unsigned integers as
/// variable-length quantities, seven bits a byte, least significant group first, the high bit
/// set on every byte but the last; a string as its UTF-8 byte count (such an integer) and then
/// the bytes.
struct Lib0Writer {
    private(set) var bytes: [UInt8] = []

    mutating func writeUInt8(_ value: UInt8) {
        bytes.append(value)
    }

    mutating func writeVarUInt(_ value: UInt64) {
        var rest = value
        while rest >= 0x80 {
            bytes.append(UInt8(truncatingIfNeeded: rest) | 0x80)
            rest >>= 7
        }
        bytes.append(UInt8(rest))
    }

    mutating func writeVarString(_ string: String) {
        let utf8 = Array(string.utf8)
        writeVarUInt(UInt64(utf8.count))
        bytes.append(contentsOf: utf8)
    }

    /// A string held as UTF-16 code units, written as UTF-8.
    ///
    /// A surrogate without its partner becomes U+FFFD, as JavaScript's `TextEncoder` writes it:
    /// one UTF-16 unit either way, so the item's length is the same on both sides.
    mutating func writeVarString(utf16 units: ArraySlice<UInt16>) {
        writeVarUInt(UInt64(UTF16Transcoding.utf8Count(units)))
        UTF16Transcoding.appendUTF8(units, to: &bytes)
    }

    mutating func append(_ other: Lib0Writer) {
        bytes.append(contentsOf: other.bytes)
    }
}

/// Reads lib0-coded bytes; every read checks what is left, so truncated or hostile bytes throw
/// rather than trap, and no length read from the bytes is trusted before the bytes are there.
struct Lib0Reader {
    let bytes: [UInt8]
    private(set) var position = 0

    init(_ bytes: [UInt8]) {
        self.bytes = bytes
    }

    var isAtEnd: Bool { position == bytes.count }

    mutating func readUInt8() throws(LiveTextError) -> UInt8 {
        guard position < bytes.count else { throw .truncated(at: position) }
        defer { position += 1 }
        return bytes[position]
    }

    /// At most ten bytes, and no bit beyond the 64th.
    mutating func readVarUInt() throws(LiveTextError) -> UInt64 {
        let start = position
        var value: UInt64 = 0
        var shift: UInt64 = 0
        while true {
            let byte = try readUInt8()
            let group = UInt64(byte & 0x7F)
            if shift == 63 && group > 1 || shift > 63 {
                throw .malformed("an integer longer than 64 bits", at: start)
            }
            value |= group << shift
            if byte < 0x80 { return value }
            shift += 7
        }
    }

    /// A count or length that must fit what is left of the bytes, each element taking at least
    /// `minimumBytes`: a claimed length is never allocated before it is known to be there.
    mutating func readLength(minimumBytes: Int = 1) throws(LiveTextError) -> Int {
        let start = position
        let value = try readVarUInt()
        let left = UInt64(bytes.count - position)
        guard value <= left / UInt64(max(minimumBytes, 1)) else { throw .truncated(at: start) }
        return Int(value)
    }

    mutating func readVarString() throws(LiveTextError) -> String {
        let start = position
        let count = try readLength()
        let utf8 = bytes[position..<position + count]
        position += count
        guard let string = String(validating: utf8, as: UTF8.self) else {
            throw .malformed("a string that is not UTF-8", at: start)
        }
        return string
    }
}

/// UTF-16 to UTF-8 without going through `String`: the encoder writes many short runs.
enum UTF16Transcoding {
    static func utf8Count(_ units: ArraySlice<UInt16>) -> Int {
        var count = 0
        var i = units.startIndex
        while i < units.endIndex {
            let unit = units[i]
            if unit < 0x80 {
                count += 1
            } else if unit < 0x800 {
                count += 2
            } else if isHighSurrogate(unit), i + 1 < units.endIndex, isLowSurrogate(units[i + 1]) {
                count += 4
                i += 1
            } else {
                count += 3
            }
            i += 1
        }
        return count
    }

    static func appendUTF8(_ units: ArraySlice<UInt16>, to bytes: inout [UInt8]) {
        var i = units.startIndex
        while i < units.endIndex {
            let unit = units[i]
            if unit < 0x80 {
                bytes.append(UInt8(unit))
            } else if unit < 0x800 {
                bytes.append(0xC0 | UInt8(unit >> 6))
                bytes.append(0x80 | UInt8(unit & 0x3F))
            } else if isHighSurrogate(unit), i + 1 < units.endIndex, isLowSurrogate(units[i + 1]) {
                let scalar = 0x10000 + ((UInt32(unit) - 0xD800) << 10 | (UInt32(units[i + 1]) - 0xDC00))
                bytes.append(0xF0 | UInt8(scalar >> 18))
                bytes.append(0x80 | UInt8((scalar >> 12) & 0x3F))
                bytes.append(0x80 | UInt8((scalar >> 6) & 0x3F))
                bytes.append(0x80 | UInt8(scalar & 0x3F))
                i += 1
            } else {
                let scalar = isHighSurrogate(unit) || isLowSurrogate(unit) ? 0xFFFD : unit
                bytes.append(0xE0 | UInt8(scalar >> 12))
                bytes.append(0x80 | UInt8((scalar >> 6) & 0x3F))
                bytes.append(0x80 | UInt8(scalar & 0x3F))
            }
            i += 1
        }
    }

    static func isHighSurrogate(_ unit: UInt16) -> Bool { unit & 0xFC00 == 0xD800 }
    static func isLowSurrogate(_ unit: UInt16) -> Bool { unit & 0xFC00 == 0xDC00 }
}
