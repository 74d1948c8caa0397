import Foundation

/// A `list_folder` cursor: a position in the change journal plus the folder and options it
/// lists, and where a listing or a delta stands when it spans several pages.
///
/// On the wire it is `base64url(JSON).signature`, the signature an HMAC under the journal's
/// secret. Clients treat it as opaque; the server refuses one it did not make: text that is not
/// a cursor at all is a 400, and a well-formed cursor of another server, of a lost journal, or of
/// the page-offset scheme before the journal, is a 409 `reset` (list again), as is one whose
/// journal position has been compacted away.
struct ListCursor: Codable, Sendable, Equatable {
    /// The folder listed, as the client spelled it ("" for the root).
    var path: String
    var recursive: Bool
    var includeDeleted: Bool
    var limit: Int
    /// Changes after this journal record are what the next delta holds.
    var seq: UInt64
    /// Set while the first listing is still paging: the `path_lower` of the last entry sent
    /// (empty before the first page). Pages go by key, not offset, so entries added or removed
    /// meanwhile shift nothing; they are in the journal after `seq` and come in the delta.
    var listingAfter: String?
    /// Set while a delta is paging: the records it covers end here (the head when it began) …
    var through: UInt64?
    /// … and the last entry sent, by `path_lower` and rank (0 a deletion, 1 an entry).
    var after: String?
    var afterRank: Int?

    enum CodingKeys: String, CodingKey {
        case path = "p", recursive = "r", includeDeleted = "d", limit = "l", seq = "s", listingAfter = "m", through = "t", after = "a",
             afterRank = "k"
    }

    /// Why a cursor was refused.
    enum Refusal: Error {
        /// Not a cursor at all: 400.
        case malformed
        /// A cursor, but not one this journal can continue: 409 `reset`.
        case foreign
    }

    func encoded(signedBy journal: ChangeJournal) -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        let payload = Self.base64URL((try? encoder.encode(self)) ?? Data())
        return payload + "." + journal.sign(payload)
    }

    static func decode(_ text: String, journal: ChangeJournal) throws(Refusal) -> ListCursor {
        guard text.utf8.count <= 16 * 1024 else { throw .malformed }
        let parts = text.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 2 else {
            // The page-offset cursors of before the journal were plain base64 JSON: a client
            // holding one across an upgrade lists again.
            if parts.count == 1, let data = data(fromBase64: String(parts[0])),
               (try? JSONSerialization.jsonObject(with: data)) is [String: Any] { throw .foreign }
            throw .malformed
        }
        guard let data = data(fromBase64: String(parts[0])), let cursor = try? JSONDecoder().decode(ListCursor.self, from: data),
              (1...2000).contains(cursor.limit) else { throw .malformed }
        guard sameBytes(Array(parts[1].utf8), Array(journal.sign(String(parts[0])).utf8)) else { throw .foreign }
        return cursor
    }

    /// Compares in time that depends only on the lengths, so a longpoll (which needs no token)
    /// cannot find a valid signature byte by byte.
    private static func sameBytes(_ a: [UInt8], _ b: [UInt8]) -> Bool {
        guard a.count == b.count else { return false }
        var difference: UInt8 = 0
        for index in 0..<a.count { difference |= a[index] ^ b[index] }
        return difference == 0
    }

    static func base64URL(_ data: Data) -> String {
        data.base64EncodedString().replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
            .replacingOccurrences(of: "=", with: "")
    }

    /// Base64 or base64url, padded or not.
    static func data(fromBase64 text: String) -> Data? {
        var base64 = text.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        while base64.count % 4 != 0 { base64 += "=" }
        return Data(base64Encoded: base64)
    }
}
