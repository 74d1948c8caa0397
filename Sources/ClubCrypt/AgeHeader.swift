import Foundation

/// One recipient stanza of an age header: `-> TYPE ARG…` and a base64 body.
public struct AgeStanza: Sendable, Equatable {
    public var type: String
    public var arguments: [String]
    public var body: Data

    public init(type: String, arguments: [String], body: Data) {
        self.type = type
        self.arguments = arguments
        self.body = body
    }

    /// The stanza as the header spells it: the body in lines of 64 columns, the last one shorter
    /// (empty when the body's base64 fills its lines exactly).
    var text: String {
        var out = "-> " + ([type] + arguments).joined(separator: " ") + "\n"
        let encoded = Array(Base64Raw.encode(body).utf8)
        var start = 0
        while encoded.count - start >= 64 {
            out += String(decoding: encoded[start..<(start + 64)], as: UTF8.self) + "\n"
            start += 64
        }
        return out + String(decoding: encoded[start...], as: UTF8.self) + "\n"
    }
}

/// An age v1 header: its stanzas and MAC, and the exact bytes the MAC covers.
public struct AgeHeader: Sendable, Equatable {
    public static let intro = "age-encryption.org/v1"
    /// A header longer than this is refused before it is read whole.
    public static let maxLength = 1 << 20

    public var stanzas: [AgeStanza]
    public var mac: Data
    /// The header up to and including `---` (what the MAC covers).
    public var covered: Data
    /// The header's whole length, through the newline after the MAC; the payload starts here.
    public var length: Int

    /// The bytes before the MAC, for stanzas about to be written.
    public static func coveredBytes(_ stanzas: [AgeStanza]) -> Data {
        Data((intro + "\n" + stanzas.map(\.text).joined() + "---").utf8)
    }

    /// Parses the header at the start of `bytes`. Throws `.truncated` when `bytes` ends before the
    /// header does (the caller may read more and try again).
    public static func parse(_ bytes: Data) throws(AgeError) -> AgeHeader {
        let data = [UInt8](bytes.prefix(maxLength))
        let intro = Array(Self.intro.utf8) + [0x0A]
        guard data.starts(with: intro.prefix(data.count)) || data.starts(with: intro) else { throw .notAge }
        var position = 0
        func line() throws(AgeError) -> [UInt8] {
            guard let end = data[position...].firstIndex(of: 0x0A) else {
                if data.count >= maxLength { throw .malformedHeader("longer than \(maxLength) bytes") }
                throw .truncated
            }
            defer { position = end + 1 }
            return Array(data[position..<end])
        }
        let first = try line()
        guard first == intro.dropLast() else { throw .notAge }
        var stanzas: [AgeStanza] = []
        while true {
            let start = position
            let current = try line()
            if current.starts(with: Array("---".utf8)) {
                guard current.count == 4 + 43, current[3] == 0x20 else { throw .malformedHeader("a bad MAC line") }
                guard let mac = Base64Raw.decode(Array(current[4...])), mac.count == 32 else { throw .malformedHeader("a bad MAC") }
                return AgeHeader(stanzas: stanzas, mac: mac, covered: Data(data[0..<(start + 3)]), length: position)
            }
            guard current.starts(with: Array("-> ".utf8)) else { throw .malformedHeader("a line that is neither a stanza nor the MAC") }
            let words = current[3...].split(separator: 0x20, omittingEmptySubsequences: false)
            guard !words.isEmpty, words.allSatisfy({ !$0.isEmpty && $0.allSatisfy { (0x21...0x7E).contains($0) } }) else {
                throw .malformedHeader("a stanza with an empty or non-ASCII argument")
            }
            var body: [UInt8] = []
            while true {
                let bodyLine = try line()
                guard bodyLine.count <= 64 else { throw .malformedHeader("a stanza body line longer than 64 columns") }
                body += bodyLine
                if bodyLine.count < 64 { break }
            }
            guard let decoded = Base64Raw.decode(body) else { throw .malformedHeader("a stanza body that is not canonical base64") }
            let strings = words.map { String(decoding: $0, as: UTF8.self) }
            stanzas.append(AgeStanza(type: strings[0], arguments: Array(strings.dropFirst()), body: decoded))
        }
    }
}

/// Base64 without padding, as age writes it; decoding refuses padding and non-canonical ends.
public enum Base64Raw {
    public static func encode(_ data: Data) -> String {
        var text = data.base64EncodedString()
        while text.hasSuffix("=") { text.removeLast() }
        return text
    }

    public static func decode(_ text: String) -> Data? { decode(Array(text.utf8)) }

    static func decode(_ bytes: [UInt8]) -> Data? {
        guard bytes.count % 4 != 1, !bytes.contains(UInt8(ascii: "=")),
              bytes.allSatisfy({ $0 < 128 && ($0 == 0x2B || $0 == 0x2F || (0x30...0x39).contains($0) || (0x41...0x5A).contains($0) || (0x61...0x7A).contains($0)) })
        else { return nil }
        let padded = String(decoding: bytes, as: UTF8.self) + String(repeating: "=", count: (4 - bytes.count % 4) % 4)
        guard let data = Data(base64Encoded: padded), encode(data).utf8.elementsEqual(bytes) else { return nil }
        return data
    }
}
