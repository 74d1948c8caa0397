import DropboxWire
import ClubServer
import Foundation

/// A live channel client's bytes as the club server reads them: a text frame as a control
/// message (`{"type":"presence"}` or a cursor; anything else is refused with a short sentence,
/// never a trap), the same bytes as a server's text frame the app reads (LiveSocket), and the
/// server's own frames read back (a relayed update's sender and bytes, a presence list of names
/// from the input) to what was written.
enum LiveControlTarget {
    static func run(_ data: Data) {
        let bytes = [UInt8](data)
        switch LiveControl.parseClient(bytes) {
        case .success(let message):
            if case .cursor(let at) = message {
                FuzzCheck.expect(at.utf8.count <= LiveControl.maxCursorBytes, "a cursor over its cap was read")
            } else {
                FuzzCheck.expect(message == .presenceRequest, "a client's control message read as \(message)")
            }
            FuzzCheck.expect(bytes.count <= LiveControl.maxBytes, "a control message over the cap was read")
        case .failure(let refused):
            FuzzCheck.expect(!refused.message.isEmpty && refused.message.utf8.count < 200, "a refusal's sentence is empty or long")
        }
        // The relay frame: whatever the sender's name and bytes, they come back as written.
        let name = String(decoding: bytes.prefix(40), as: UTF8.self)
        let update = Array(bytes.dropFirst(40))
        let frame = LiveFrame.encode(member: name, update: update)
        let decoded = LiveFrame.decode(frame)
        FuzzCheck.expect(decoded?.member == name && decoded?.update == update, "a relay frame read back differs")
        _ = LiveFrame.decode(bytes)
        // A server's text frame as the app reads it: anything, or nothing, never a trap.
        _ = LiveControl.parseServer(String(decoding: bytes, as: UTF8.self))
        FuzzCheck.expect(LiveControl.parseServer(LiveControl.memberCursor(member: name, at: name).json) == .memberCursor(member: name, at: name),
                         "a relayed cursor read back differs")
        // The server's presence and error messages read back as sent.
        let names = name.split(separator: "\u{0}").map(String.init)
        FuzzCheck.expect(LiveControl.parseServer(LiveControl.presence(members: names).json) == .presence(members: names), "a presence read back differs")
        FuzzCheck.expect(LiveControl.parseServer(LiveControl.error(message: name).json) == .error(message: name), "an error read back differs")
    }
}
