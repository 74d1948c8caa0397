import Foundation

/// Bech32 (BIP 173), as age spells its keys: `age1…` recipients and `AGE-SECRET-KEY-1…`
/// identities. age lifts BIP 173's 90-character limit, so none is applied here; the checksum is
/// the original bech32 one (not bech32m).
public enum Bech32 {
    static let charset = Array("qpzry9x8gf2tvdw0s3jn54khce6mua7l".utf8)
    static let reverse: [Int8] = {
        var table = [Int8](repeating: -1, count: 128)
        for (index, byte) in charset.enumerated() { table[Int(byte)] = Int8(index) }
        return table
    }()

    static func polymod(_ values: [UInt8]) -> UInt32 {
        let generator: [UInt32] = [0x3b6a_57b2, 0x2650_8e6d, 0x1ea1_19fa, 0x3d42_33dd, 0x2a14_62b3]
        var checksum: UInt32 = 1
        for value in values {
            let top = checksum >> 25
            checksum = (checksum & 0x1ff_ffff) << 5 ^ UInt32(value)
            for bit in 0..<5 where (top >> UInt32(bit)) & 1 == 1 { checksum ^= generator[bit] }
        }
        return checksum
    }

    static func expand(_ hrp: [UInt8]) -> [UInt8] {
        hrp.map { $0 >> 5 } + [0] + hrp.map { $0 & 31 }
    }

    /// Regroups bits: 8-bit bytes to 5-bit groups (padded) or back (strictly, no leftover bits).
    static func regroup(_ data: [UInt8], from: Int, to: Int, pad: Bool) -> [UInt8]? {
        var accumulator = 0, bits = 0
        var out: [UInt8] = []
        let mask = (1 << to) - 1
        for value in data {
            accumulator = (accumulator << from) | Int(value)
            bits += from
            while bits >= to {
                bits -= to
                out.append(UInt8((accumulator >> bits) & mask))
            }
        }
        if pad {
            if bits > 0 { out.append(UInt8((accumulator << (to - bits)) & mask)) }
        } else if bits >= from || (accumulator << (to - bits)) & mask != 0 {
            return nil
        }
        return out
    }

    /// `hrp` + "1" + data + checksum, in lower case.
    public static func encode(hrp: String, data: Data) -> String {
        let human = Array(hrp.lowercased().utf8)
        let groups = regroup(Array(data), from: 8, to: 5, pad: true) ?? []
        let value = polymod(expand(human) + groups + [0, 0, 0, 0, 0, 0]) ^ 1
        let checksum = (0..<6).map { UInt8((value >> UInt32(5 * (5 - $0))) & 31) }
        return String(decoding: human + [UInt8(ascii: "1")] + (groups + checksum).map { charset[Int($0)] }, as: UTF8.self)
    }

    /// The human-readable part (lower case) and the data, or nil for anything that is not valid
    /// bech32 (mixed case, a bad character, a bad checksum, leftover bits).
    public static func decode(_ text: String) -> (hrp: String, data: Data)? {
        let bytes = Array(text.utf8)
        let lower = bytes.allSatisfy { !(65...90).contains($0) }
        let upper = bytes.allSatisfy { !(97...122).contains($0) }
        guard lower || upper, let separator = bytes.lastIndex(of: UInt8(ascii: "1")), separator >= 1,
              bytes.count - separator - 1 >= 6 else { return nil }
        let folded = bytes.map { (65...90).contains($0) ? $0 + 32 : $0 }
        let human = Array(folded[..<separator])
        guard human.allSatisfy({ (33...126).contains($0) }) else { return nil }
        var values: [UInt8] = []
        for byte in folded[(separator + 1)...] {
            guard byte < 128, reverse[Int(byte)] >= 0 else { return nil }
            values.append(UInt8(reverse[Int(byte)]))
        }
        guard polymod(expand(human) + values) == 1,
              let data = regroup(Array(values.dropLast(6)), from: 5, to: 8, pad: false) else { return nil }
        return (String(decoding: human, as: UTF8.self), Data(data))
    }
}
