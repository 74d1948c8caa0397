/// A record beside the updates in a note's log that says where a revision of the file came from:
/// the document, at `state` or before, was written out as a text whose SHA-256 is `digest`.
///
/// A member who comes back to a note reads the file and the room's log. A file that differs from
/// the text its own journal last took in was changed either from the document (by another member
/// in the note, or by itself before a kill -9) or outside it (the shell's `edit`, another tool).
/// Only the second is merged in: the first is in the document already, and merged again it
/// doubled words wherever the others had typed on since. The mark is what tells the two apart;
/// this module does not hash (the caller gives the digest).
///
/// Encoded as ten bytes of 0xFF (no update starts so: lib0 reads no integer of over 64 bits), the
/// tag `mark1`, the 32-byte digest, then the state vector in Yjs's encoding. The server keeps the
/// newest ``kept`` marks when it compacts a room's log (it reads no more of them than
/// ``isMark(_:)``): a member may have opened the file a few revisions ago.
public struct RevisionMark: Equatable, Sendable {
    public var digest: [UInt8]
    public var state: StateVector

    /// How many marks a room's compacted log, and a member's note, keep (about 100 bytes each).
    public static let kept = 16

    static let prefix: [UInt8] = Array(repeating: 0xFF, count: 10) + Array("mark1".utf8)

    public init(digest: [UInt8], state: StateVector) {
        self.digest = digest
        self.state = state
    }

    /// Whether `bytes` are a mark rather than an update (by their first bytes alone).
    public static func isMark(_ bytes: some Collection<UInt8>) -> Bool {
        bytes.count >= prefix.count && bytes.prefix(prefix.count).elementsEqual(prefix)
    }

    /// The mark `bytes` hold; nil for anything else (an update, a mark cut short or malformed).
    public init?(decoding bytes: some Collection<UInt8>) {
        let bytes = Array(bytes)
        guard Self.isMark(bytes), bytes.count >= Self.prefix.count + 32 else { return nil }
        let digestEnd = Self.prefix.count + 32
        guard let state = try? StateVector(encoded: bytes[digestEnd...]) else { return nil }
        self.init(digest: Array(bytes[Self.prefix.count..<digestEnd]), state: state)
    }

    public func encoded() -> [UInt8] {
        Self.prefix + digest + state.encoded()
    }
}

extension StateVector {
    /// Whether a document at this state holds everything one at `other` held.
    public func covers(_ other: StateVector) -> Bool {
        other.clocks.allSatisfy { client, clock in self[client] >= clock }
    }
}
