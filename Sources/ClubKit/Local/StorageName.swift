import Foundation

/// Names of files and folders made from text (a note's path, a club's URL): readable, unique,
/// and never more than one safe path component.
public enum StorageName {
    /// `text` with every byte other than a-z, 0-9, `.` and `-` written as `_xx` (so `/` and `..`
    /// cannot climb out, and two texts never share a name), a leading `.` escaped too. Very long
    /// texts keep a readable prefix and a hash of the whole (file names stop at 255 bytes).
    public static func make(_ text: String) -> String {
        var name = ""
        for byte in text.utf8 {
            switch byte {
            case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "-"), UInt8(ascii: "."):
                name.append(Character(UnicodeScalar(byte)))
            default:
                name += String(format: "_%02x", byte)
            }
        }
        if name.hasPrefix(".") { name = "_2e" + name.dropFirst() }
        if name.utf8.count > 195 { name = String(name.prefix(155)) + "-" + String(UInt64(bitPattern: Int64(text.hashValueStable)), radix: 16) }
        return name
    }
}

extension String {
    /// FNV-1a over the UTF-8 bytes: a hash that is the same in every process (unlike `hashValue`).
    public var hashValueStable: Int {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in utf8 {
            hash ^= UInt64(byte)
            hash = hash &* 0x100_0000_01b3
        }
        return Int(bitPattern: UInt(hash))
    }
}
