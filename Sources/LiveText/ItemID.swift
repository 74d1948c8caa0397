/// An item's identity in the document: the client that wrote it and that client's clock at the
/// item's first unit. A client's clock counts the units (UTF-16 code units of text) it has
/// written, so every unit a client ever wrote has an identity of its own.
public struct ItemID: Hashable, Sendable, CustomStringConvertible {
    public var client: UInt64
    public var clock: UInt64

    public init(client: UInt64, clock: UInt64) {
        self.client = client
        self.clock = clock
    }

    public var description: String { "\(client):\(clock)" }

    /// The highest clock an update may name: lib0 reads integers as JavaScript numbers, and Yjs
    /// peers cannot count past 2^53.
    static let clockLimit: UInt64 = 1 << 53
}

/// For each client, how many units of it a document holds: what a peer sends to ask for the rest.
public struct StateVector: Hashable, Sendable {
    public var clocks: [UInt64: UInt64]

    public init(_ clocks: [UInt64: UInt64] = [:]) {
        self.clocks = clocks
    }

    /// Yjs's encoding: the number of clients, then each client and its clock (highest client first).
    public init(encoded data: some Collection<UInt8>) throws(LiveTextError) {
        var reader = Lib0Reader(Array(data))
        let count = try reader.readLength(minimumBytes: 2)
        var clocks: [UInt64: UInt64] = [:]
        for _ in 0..<count {
            let client = try reader.readVarUInt()
            let at = reader.position
            let clock = try reader.readVarUInt()
            guard clock <= ItemID.clockLimit else { throw .malformed("a clock past 2^53", at: at) }
            clocks[client] = clock
        }
        guard reader.isAtEnd else { throw .trailingBytes(at: reader.position) }
        self.clocks = clocks
    }

    public func encoded() -> [UInt8] {
        var writer = Lib0Writer()
        writer.writeVarUInt(UInt64(clocks.count))
        for (client, clock) in clocks.sorted(by: { $0.key > $1.key }) {
            writer.writeVarUInt(client)
            writer.writeVarUInt(clock)
        }
        return writer.bytes
    }

    public subscript(client: UInt64) -> UInt64 { clocks[client] ?? 0 }
}

/// Why an update, or a state vector, was refused. The document is as it was before the call.
public enum LiveTextError: Error, Equatable, Sendable, CustomStringConvertible {
    /// The bytes ended inside a value, or a length claims more bytes than are left.
    case truncated(at: Int)
    /// A value that no Yjs encoder writes.
    case malformed(String, at: Int)
    /// Valid Yjs, but content this module does not hold: another root type, a nested type, a map
    /// entry, formatting or embeds.
    case unsupported(String, at: Int)
    /// Bytes after the end of the update.
    case trailingBytes(at: Int)

    public var description: String {
        switch self {
        case .truncated(let at): "the update ends early (byte \(at))"
        case .malformed(let what, let at): "a malformed update: \(what) (byte \(at))"
        case .unsupported(let what, let at): "an update this document cannot hold: \(what) (byte \(at))"
        case .trailingBytes(let at): "bytes after the end of the update (byte \(at))"
        }
    }
}
