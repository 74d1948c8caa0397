import Foundation
import TestSupport

/// A JSON value that can also be written wrong on purpose: numbers as any text, strings with raw
/// bytes that are not UTF-8, keys twice, raw text anywhere.
indirect enum FuzzJSON {
    case null
    case bool(Bool)
    /// The number's text as sent, valid JSON or not ("1e999", "NaN", "01").
    case number(String)
    case string(String)
    /// A string whose content is these bytes, unescaped (bad UTF-8, raw controls).
    case bytes([UInt8])
    /// Text written as is at this spot (a lone surrogate escape, a bad escape).
    case raw(String)
    case array([FuzzJSON])
    case object([(String, FuzzJSON)])

    /// The JSON text; with `ascii`, non-ASCII is escaped as `\uXXXX`, as Dropbox-API-Arg wants.
    func write(into out: inout [UInt8], ascii: Bool) {
        switch self {
        case .null: out += Array("null".utf8)
        case .bool(let value): out += Array((value ? "true" : "false").utf8)
        case .number(let text), .raw(let text): out += Array(text.utf8)
        case .string(let text): Self.quote(text, into: &out, ascii: ascii)
        case .bytes(let bytes):
            out.append(UInt8(ascii: "\""))
            out += bytes
            out.append(UInt8(ascii: "\""))
        case .array(let items):
            out.append(UInt8(ascii: "["))
            for (index, item) in items.enumerated() {
                if index > 0 { out.append(UInt8(ascii: ",")) }
                item.write(into: &out, ascii: ascii)
            }
            out.append(UInt8(ascii: "]"))
        case .object(let fields):
            out.append(UInt8(ascii: "{"))
            for (index, (key, value)) in fields.enumerated() {
                if index > 0 { out.append(UInt8(ascii: ",")) }
                Self.quote(key, into: &out, ascii: ascii)
                out.append(UInt8(ascii: ":"))
                value.write(into: &out, ascii: ascii)
            }
            out.append(UInt8(ascii: "}"))
        }
    }

    private static func quote(_ text: String, into out: inout [UInt8], ascii: Bool) {
        out.append(UInt8(ascii: "\""))
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\"": out += Array("\\\"".utf8)
            case "\\": out += Array("\\\\".utf8)
            case _ where scalar.value < 0x20 || (ascii && scalar.value > 0x7E):
                for unit in String(scalar).utf16 { out += Array(String(format: "\\u%04x", unit).utf8) }
            default: out += Array(String(scalar).utf8)
            }
        }
        out.append(UInt8(ascii: "\""))
    }

    var children: Int {
        switch self {
        case .array(let items): return items.count
        case .object(let fields): return fields.count
        default: return 0
        }
    }
}

/// One request the fuzzer sends.
struct FuzzCase {
    var endpoint: String
    var isContent: Bool
    /// The argument's JSON text (mutated): the body of an RPC call, `Dropbox-API-Arg` of a content call.
    var argument: [UInt8]
    /// A content call's body.
    var body: [UInt8]
    /// A content call's argument in the `arg` query instead of the header.
    var inQuery: Bool

    func request(token: String) -> Data {
        var head = "POST /\(endpoint)"
        var out = [UInt8]()
        if isContent, inQuery {
            head += "?arg=" + argument.map { byte -> String in
                let unreserved = (byte >= 0x30 && byte <= 0x39) || (byte >= 0x41 && byte <= 0x5A) || (byte >= 0x61 && byte <= 0x7A) || [0x2D, 0x2E, 0x5F, 0x7E].contains(byte)
                return unreserved ? String(UnicodeScalar(byte)) : String(format: "%%%02X", byte)
            }.joined()
        }
        head += " HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer \(token)\r\n"
        out += Array(head.utf8)
        let payload: [UInt8]
        if isContent {
            if !inQuery {
                // The bytes go in as they are, except line breaks, which would make more header lines.
                out += Array("Dropbox-API-Arg: ".utf8) + argument.map { $0 == 0x0A || $0 == 0x0D ? 0x20 : $0 } + Array("\r\n".utf8)
            }
            out += Array("Content-Type: application/octet-stream\r\n".utf8)
            payload = body
        } else {
            out += Array("Content-Type: application/json\r\n".utf8)
            payload = argument
        }
        out += Array("Content-Length: \(payload.count)\r\n\r\n".utf8) + payload
        return Data(out)
    }

    var summary: String {
        let text = String(decoding: argument.prefix(300), as: UTF8.self).debugDescription
        return "\(endpoint)\(inQuery ? " (arg in query)" : "") \(text)\(argument.count > 300 ? "… (\(argument.count) bytes)" : "")"
    }
}

/// Valid arguments for every endpoint, and the mutations that break them.
struct FuzzCorpus {
    struct Seeds: Sendable {
        var listCursor: String
        var searchCursor: String
        var sessionID: String
    }

    let seeds: Seeds

    private static let rpc = ["list_folder", "list_folder/continue", "get_metadata", "search_v2", "search/continue_v2", "delete_v2", "move_v2", "create_folder_v2"]
    private static let content = ["download", "upload", "upload_session/start", "upload_session/append_v2", "upload_session/finish", "get_thumbnail_v2"]

    private static let strings = [
        "", "/", "//", "/byteclub", "/byteclub/a.txt", "/BYTECLUB/A.TXT", "/byteclub/notes", "/byteclub/p.jpg", "/fuzz", "/fuzz/keep.txt",
        "/byteclub/../a.txt", "/../../etc/passwd", "/.byteclub/token", "/byteclub/%2e%2e/x", "/byteclub\\a.txt", "/byteclub/a.txt/",
        "/byteclub/ a.txt", "/byteclub/a.txt.", "/fuzz/😀.txt", "/fuzz/e\u{301}.txt", "/fuzz/\u{202E}gpj.txt", "/fuzz/\u{85}x.txt",
        "/fuzz/\u{FFFF}", "/fuzz/\u{0}x", "/fuzz/\u{1B}]0;t\u{7}", "/fuzz/" + String(repeating: "a", count: 300),
        "/" + String(repeating: "d/", count: 2100), "id:abcdefghijklmnop", "rev:0123456789abcdef", "x", "add", "overwrite", "update", "jpeg", "png",
        "w64h64", "w9999h9999", "strict", "bestfit", "fitone_bestfit", "image", "folder", "deleted", "active", "last_modified_time",
        "relevance", "path", "\u{FEFF}", "null", "true", "0", "txt", "jpg", "2026-11-21T20:56:10Z", "2026-13-45T99:99:99Z",
    ]
    private static let numbers = [
        "0", "1", "-1", "2", "2000", "2001", "1000", "1001", "1e999", "-1e999", "1.5", "9223372036854775807", "9223372036854775808",
        "-9223372036854775809", "123456789012345678901234567890", "1e-400", "-0", "1E2", "NaN", "Infinity", "01", "+1", ".5", "0x10",
    ]
    private static let badBytes: [[UInt8]] = [[0xFF], [0xFE, 0xFF], [0xC0, 0x80], [0xED, 0xA0, 0x80], [0x80], [0xF4, 0x90, 0x80, 0x80], [0xE2, 0x82], [0x00], [0x1B, 0x5B, 0x32, 0x4A], [0xC2, 0x85]]
    private static let raws = [#""\ud800""#, #""\udc00x""#, #""\u00""#, #""\x41""#, #""a"#, "'single'", "undefined", "[", "{", "}", ",", "\"\\uD83D\\uDE00\""]

    init(seeds: Seeds) {
        self.seeds = seeds
    }

    /// A valid argument for `endpoint` (valid in form: it may well name nothing).
    private func template(_ endpoint: String) -> FuzzJSON {
        let modes: [FuzzJSON] = [.string("add"), .string("overwrite"), .object([(".tag", .string("add"))]),
                                 .object([(".tag", .string("update")), ("update", .string("0123456789abcdef"))])]
        switch endpoint {
        case "list_folder": return .object([("path", .string("/byteclub")), ("recursive", .bool(true)), ("limit", .number("100"))])
        case "list_folder/continue": return .object([("cursor", .string(seeds.listCursor))])
        case "get_metadata", "download": return .object([("path", .string("/byteclub/a.txt"))])
        case "search_v2":
            return .object([("query", .string("a")), ("options", .object([
                ("path", .string("/byteclub")), ("max_results", .number("10")), ("file_extensions", .array([.string("txt"), .string("jpg")])),
                ("file_categories", .array([.object([(".tag", .string("image"))])])), ("file_status", .string("active")),
                ("order_by", .object([(".tag", .string("last_modified_time"))])), ("filename_only", .bool(true)),
            ]))])
        case "search/continue_v2": return .object([("cursor", .string(seeds.searchCursor))])
        case "delete_v2": return .object([("path", .string("/fuzz/gone.txt"))])
        case "move_v2": return .object([("from_path", .string("/fuzz/m.txt")), ("to_path", .string("/fuzz/n.txt")), ("autorename", .bool(true))])
        case "create_folder_v2": return .object([("path", .string("/fuzz/folder")), ("autorename", .bool(true))])
        case "upload":
            return .object([("path", .string("/fuzz/u.txt")), ("mode", modes[2]), ("autorename", .bool(true)),
                            ("client_modified", .string("2026-01-01T00:00:00Z")), ("mute", .bool(true)), ("strict_conflict", .bool(false))])
        case "upload_session/start": return .object([("close", .bool(false))])
        case "upload_session/append_v2":
            return .object([("cursor", .object([("session_id", .string(seeds.sessionID)), ("offset", .number("3"))])), ("close", .bool(false))])
        case "upload_session/finish":
            return .object([("cursor", .object([("session_id", .string(seeds.sessionID)), ("offset", .number("3"))])),
                            ("commit", .object([("path", .string("/fuzz/s.txt")), ("mode", modes[1]), ("autorename", .bool(true))]))])
        default:
            return .object([("resource", .object([(".tag", .string("path")), ("path", .string("/byteclub/p.jpg"))])),
                            ("format", .string("jpeg")), ("size", .object([(".tag", .string("w64h64"))])), ("mode", .string("strict"))])
        }
    }

    func makeCase(_ random: inout SeededGenerator) -> FuzzCase {
        let isContent = Bool.random(using: &random)
        let endpoint = (isContent ? Self.content : Self.rpc).randomElement(using: &random)!
        var value = template(endpoint)
        // Mostly a few mutations of a valid argument; now and then a valid one, or noise.
        let mutations = [0, 1, 1, 1, 2, 2, 3, 5].randomElement(using: &random)!
        for _ in 0..<mutations { mutate(&value, &random, depth: 0) }
        var text = [UInt8]()
        // Dropbox-API-Arg is ASCII with \u escapes; sometimes send raw UTF-8 anyway.
        value.write(into: &text, ascii: isContent && Int.random(in: 0..<5, using: &random) > 0)
        if Int.random(in: 0..<5, using: &random) == 0 { mutateText(&text, &random) }
        let bodySize = [0, 0, 1, 3, 17, 1000].randomElement(using: &random)!
        let body = (0..<bodySize).map { _ in UInt8.random(in: 0...255, using: &random) }
        return FuzzCase(endpoint: "2/files/" + endpoint, isContent: isContent, argument: text, body: body,
                        inQuery: isContent && Int.random(in: 0..<20, using: &random) == 0)
    }

    // MARK: Mutations

    /// Goes down a random branch and breaks one node there.
    private func mutate(_ value: inout FuzzJSON, _ random: inout SeededGenerator, depth: Int) {
        if value.children > 0, depth < 6, Int.random(in: 0..<3, using: &random) > 0 {
            switch value {
            case .array(var items):
                let index = Int.random(in: 0..<items.count, using: &random)
                mutate(&items[index], &random, depth: depth + 1)
                value = .array(items)
            case .object(var fields):
                let index = Int.random(in: 0..<fields.count, using: &random)
                mutate(&fields[index].1, &random, depth: depth + 1)
                value = .object(fields)
            default: break
            }
            return
        }
        switch Int.random(in: 0..<12, using: &random) {
        case 0: value = randomValue(&random, depth: 0)
        case 1: value = .number(Self.numbers.randomElement(using: &random)!)
        case 2: value = .string(Self.strings.randomElement(using: &random)!)
        case 3: value = nest(value, levels: [2, 50, 600, 3000].randomElement(using: &random)!, &random)
        case 4: value = .bytes(Array("/fuzz/".utf8) + Self.badBytes.randomElement(using: &random)! + Array(".txt".utf8))
        case 5: value = .raw(Self.raws.randomElement(using: &random)!)
        case 6: value = flipUnion(value, &random)
        case 7, 8:
            // Objects: lose a field, gain one, or have one twice.
            guard case .object(var fields) = value else { value = .object([]); break }
            switch Int.random(in: 0..<3, using: &random) {
            case 0 where !fields.isEmpty: fields.remove(at: Int.random(in: 0..<fields.count, using: &random))
            case 1: fields.append((["path", ".tag", "cursor", "limit", "extra", "", "\u{0}"].randomElement(using: &random)!, randomValue(&random, depth: 1)))
            default: if let first = fields.first { fields.append((first.0, randomValue(&random, depth: 1))) }
            }
            value = .object(fields)
        case 9: value = [.null, .bool(true), .array([]), .object([]), .string("")].randomElement(using: &random)!
        case 10: value = .string(String(repeating: Self.strings.randomElement(using: &random)!, count: Int.random(in: 2...40, using: &random)))
        default:
            // A type swap that keeps the content: "x" → ["x"], 5 → "5", {…} → [{…}].
            switch value {
            case .number(let text): value = .string(text)
            case .string(let text): value = Int.random(in: 0..<2, using: &random) == 0 ? .array([.string(text)]) : .number(text.isEmpty ? "0" : text)
            case .bool(let flag): value = .string(flag ? "true" : "false")
            default: value = .array([value])
            }
        }
    }

    private func randomValue(_ random: inout SeededGenerator, depth: Int) -> FuzzJSON {
        switch Int.random(in: 0..<(depth > 2 ? 5 : 7), using: &random) {
        case 0: return .null
        case 1: return .bool(Bool.random(using: &random))
        case 2: return .number(Self.numbers.randomElement(using: &random)!)
        case 3: return .string(Self.strings.randomElement(using: &random)!)
        case 4: return .bytes(Self.badBytes.randomElement(using: &random)!)
        case 5: return .array((0..<Int.random(in: 0...3, using: &random)).map { _ in randomValue(&random, depth: depth + 1) })
        default:
            return .object((0..<Int.random(in: 0...3, using: &random)).map { _ in
                ([".tag", "path", "x", "size"].randomElement(using: &random)!, randomValue(&random, depth: depth + 1))
            })
        }
    }

    private func nest(_ value: FuzzJSON, levels: Int, _ random: inout SeededGenerator) -> FuzzJSON {
        let asArrays = Bool.random(using: &random)
        var nested = value
        for _ in 0..<levels { nested = asArrays ? .array([nested]) : .object([(".tag", nested)]) }
        return nested
    }

    /// Dropbox unions in the other form, or a wrong one.
    private func flipUnion(_ value: FuzzJSON, _ random: inout SeededGenerator) -> FuzzJSON {
        switch value {
        case .string(let tag): return .object([(".tag", .string(tag))])
        case .object(let fields):
            if let tag = fields.first(where: { $0.0 == ".tag" })?.1 {
                return [tag, .object([(".tag", .string("bogus"))]), .object([(".tag", .number("5"))]), .object([("tag", tag)]),
                        .object([(".tag", .string("update"))])].randomElement(using: &random)!
            }
            return .object([(".tag", .object(fields))])
        default: return .object([(".tag", value)])
        }
    }

    /// Breaks the text itself: cut short, a byte flipped, inserted or lost, noise appended, or all noise.
    private func mutateText(_ text: inout [UInt8], _ random: inout SeededGenerator) {
        switch Int.random(in: 0..<6, using: &random) {
        case 0: text = Array(text.prefix(Int.random(in: 0...text.count, using: &random)))
        case 1 where !text.isEmpty: text[Int.random(in: 0..<text.count, using: &random)] ^= UInt8(1 << Int.random(in: 0..<8, using: &random))
        case 2: text.insert(UInt8.random(in: 0...255, using: &random), at: Int.random(in: 0...text.count, using: &random))
        case 3 where !text.isEmpty: text.remove(at: Int.random(in: 0..<text.count, using: &random))
        case 4: text += (0..<Int.random(in: 1...20, using: &random)).map { _ in UInt8.random(in: 0...255, using: &random) }
        default: text = (0..<Int.random(in: 0...200, using: &random)).map { _ in UInt8.random(in: 0...255, using: &random) }
        }
    }
}
