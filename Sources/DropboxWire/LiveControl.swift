import Foundation

/// The live channel's small JSON control messages (text frames), both ways.
///
/// The server never reads an update's bytes (in an encrypted club they are ciphertext); text
/// frames are the only client bytes it parses, and this is the one parser of them, bounded and
/// total: anything it cannot read is a `.refused` with a sentence, never a trap (the fuzz target
/// `live-control` holds it to that).
public enum LiveControl: Equatable, Sendable {
    /// Client → server: send me the presence list again.
    case presenceRequest
    /// Server → client: who is in the note now, in the order they joined (a member twice, for two
    /// connections, is listed once).
    case presence(members: [String])
    /// Server → client: why something was refused (an update, a control message).
    case error(message: String)
    /// Client → server: where my cursor is now (`at`, opaque to the server: a UTF-16 offset in
    /// the shared text, written in decimal by byteclub). Relayed to the others, never stored.
    case cursor(at: String)
    /// Server → client, to a joiner before its stored log: the member name it speaks for, and
    /// whether the server writes the note's file from the room (a plain club's note; in an
    /// encrypted club the members do).
    case welcome(member: String, serverWrites: Bool = false)
    /// Server → client: another connection's cursor, with its member's name.
    case memberCursor(member: String, at: String)

    /// The most bytes a client's control message may have.
    public static let maxBytes = 4_096

    /// Why a client's text frame was not a control message.
    public struct Refused: Error, Equatable, Sendable {
        public let message: String
        public init(message: String) { self.message = message }
    }

    /// The longest cursor (`at`) a client may send: an encrypted club's sealed one (an age
    /// file with its member's signature, in base64) is about 550 bytes.
    public static let maxCursorBytes = 1_024

    /// Reads a client's text frame: `{"type":"presence"}` or `{"type":"cursor","at":"…"}`.
    public static func parseClient(_ bytes: some Collection<UInt8>) -> Result<LiveControl, Refused> {
        guard bytes.count <= maxBytes else {
            return .failure(Refused(message: "control message over \(maxBytes) bytes"))
        }
        guard let object = try? JSONSerialization.jsonObject(with: Data(bytes), options: []) as? [String: Any] else {
            return .failure(Refused(message: "control message is not a JSON object"))
        }
        guard let type = object["type"] as? String else {
            return .failure(Refused(message: "control message has no \"type\""))
        }
        switch type {
        case "presence": return .success(.presenceRequest)
        case "cursor":
            guard let at = object["at"] as? String, at.utf8.count <= maxCursorBytes else {
                return .failure(Refused(message: "a cursor message needs \"at\", a string of at most \(maxCursorBytes) bytes"))
            }
            return .success(.cursor(at: at))
        default: return .failure(Refused(message: "unknown control message type \"\(type.prefix(64))\""))
        }
    }

    /// The text frame the server sends.
    public var json: String {
        let object: [String: Any]
        switch self {
        case .presenceRequest: object = ["type": "presence"]
        case .presence(let members): object = ["type": "presence", "members": members]
        case .error(let message): object = ["type": "error", "message": message]
        case .cursor(let at): object = ["type": "cursor", "at": at]
        case .memberCursor(let member, let at): object = ["type": "cursor", "member": member, "at": at]
        case .welcome(let member, let serverWrites):
            object = serverWrites ? ["type": "welcome", "member": member, "writes": "server"] : ["type": "welcome", "member": member]
        }
        let data = (try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys, .withoutEscapingSlashes])) ?? Data("{}".utf8)
        return String(decoding: data, as: UTF8.self)
    }

    /// Reads a server's text frame (for clients and tests); nil for anything else.
    public static func parseServer(_ text: String) -> LiveControl? {
        guard let object = try? JSONSerialization.jsonObject(with: Data(text.utf8), options: []) as? [String: Any],
              let type = object["type"] as? String else { return nil }
        switch type {
        case "presence": return (object["members"] as? [String]).map { .presence(members: $0) }
        case "error": return (object["message"] as? String).map { .error(message: $0) }
        case "welcome": return (object["member"] as? String).map { .welcome(member: $0, serverWrites: object["writes"] as? String == "server") }
        case "cursor":
            guard let member = object["member"] as? String, let at = object["at"] as? String else { return nil }
            return .memberCursor(member: member, at: at)
        default: return nil
        }
    }
}

/// A relayed update as it travels to a client and as it lies in a room's log: the sender's
/// member name (a 2-byte big-endian length, then UTF-8) and the update's bytes, untouched.
public enum LiveFrame {
    public static func encode(member: String, update: some Collection<UInt8>) -> [UInt8] {
        let name = Array(member.utf8.prefix(Int(UInt16.max)))
        var bytes: [UInt8] = [UInt8(name.count >> 8), UInt8(name.count & 0xFF)]
        bytes.reserveCapacity(2 + name.count + update.count)
        bytes += name
        bytes += update
        return bytes
    }

    /// The sender and the update; nil for bytes too short for the name they claim.
    public static func decode(_ bytes: [UInt8]) -> (member: String, update: [UInt8])? {
        guard bytes.count >= 2 else { return nil }
        let length = Int(bytes[0]) << 8 | Int(bytes[1])
        guard bytes.count >= 2 + length else { return nil }
        return (String(decoding: bytes[2..<(2 + length)], as: UTF8.self), Array(bytes[(2 + length)...]))
    }
}

/// The live channel's route on a club server, beside the Dropbox routes (docs/live.md).
public enum LiveChannel {
    public static let path = "/2/byteclub/live"
}
