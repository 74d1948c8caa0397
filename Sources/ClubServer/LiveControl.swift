import Foundation

/// The live channel's small JSON control messages (text frames), both ways.
///
/// The server never reads an update's bytes (in an encrypted club they are ciphertext); text
/// frames are the only client bytes it parses, and this is the one parser of them, bounded and
/// total: anything it cannot read is a `.refused` with a sentence, never a trap (the fuzz target
/// `live-control` holds it to that).
package enum LiveControl: Equatable, Sendable {
    /// Client → server: send me the presence list again.
    case presenceRequest
    /// Server → client: who is in the note now, in the order they joined (a member twice, for two
    /// connections, is listed once).
    case presence(members: [String])
    /// Server → client: why something was refused (an update, a control message).
    case error(message: String)

    /// The most bytes a client's control message may have.
    package static let maxBytes = 4_096

    /// Why a client's text frame was not a control message.
    package struct Refused: Error, Equatable, Sendable {
        package let message: String
    }

    /// Reads a client's text frame: only `{"type":"presence"}` is asked of the server today.
    package static func parseClient(_ bytes: some Collection<UInt8>) -> Result<LiveControl, Refused> {
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
        default: return .failure(Refused(message: "unknown control message type \"\(type.prefix(64))\""))
        }
    }

    /// The text frame the server sends.
    package var json: String {
        let object: [String: Any]
        switch self {
        case .presenceRequest: object = ["type": "presence"]
        case .presence(let members): object = ["type": "presence", "members": members]
        case .error(let message): object = ["type": "error", "message": message]
        }
        let data = (try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys, .withoutEscapingSlashes])) ?? Data("{}".utf8)
        return String(decoding: data, as: UTF8.self)
    }

    /// Reads a server's text frame (for clients and tests); nil for anything else.
    package static func parseServer(_ text: String) -> LiveControl? {
        guard let object = try? JSONSerialization.jsonObject(with: Data(text.utf8), options: []) as? [String: Any],
              let type = object["type"] as? String else { return nil }
        switch type {
        case "presence": return (object["members"] as? [String]).map { .presence(members: $0) }
        case "error": return (object["message"] as? String).map { .error(message: $0) }
        default: return nil
        }
    }
}

/// A relayed update as it travels to a client and as it lies in a room's log: the sender's
/// member name (a 2-byte big-endian length, then UTF-8) and the update's bytes, untouched.
package enum LiveFrame {
    package static func encode(member: String, update: some Collection<UInt8>) -> [UInt8] {
        let name = Array(member.utf8.prefix(Int(UInt16.max)))
        var bytes: [UInt8] = [UInt8(name.count >> 8), UInt8(name.count & 0xFF)]
        bytes.reserveCapacity(2 + name.count + update.count)
        bytes += name
        bytes += update
        return bytes
    }

    /// The sender and the update; nil for bytes too short for the name they claim.
    package static func decode(_ bytes: [UInt8]) -> (member: String, update: [UInt8])? {
        guard bytes.count >= 2 else { return nil }
        let length = Int(bytes[0]) << 8 | Int(bytes[1])
        guard bytes.count >= 2 + length else { return nil }
        return (String(decoding: bytes[2..<(2 + length)], as: UTF8.self), Array(bytes[(2 + length)...]))
    }
}
