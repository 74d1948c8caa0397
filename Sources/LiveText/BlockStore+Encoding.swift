extension BlockStore {
    /// Yjs's update v1 of everything past `since`: each client's new structs (highest client
    /// first), then the whole delete set, as `Y.encodeStateAsUpdate(doc, stateVector)` writes it.
    func encodeUpdate(since since: StateVector, root: String) -> [UInt8] {
        var writer = Lib0Writer()
        let sending = clients.keys.filter { state(of: $0) > since[$0] }.sorted(by: >)
        writer.writeVarUInt(UInt64(sending.count))
        for client in sending {
            writeStructs(of: client, from: since[client], root: root, into: &writer)
        }
        Self.writeDeleteSet(deleteSet(), into: &writer)
        return writer.bytes
    }

    /// An update of `client`'s structs from `clock` on (if it has any) and the ranges `deletes`:
    /// what one local edit sends.
    func encodeUpdate(of client: UInt64, from clock: UInt64, deletes: [DeleteRange], root: String) -> [UInt8] {
        var writer = Lib0Writer()
        if state(of: client) > clock {
            writer.writeVarUInt(1)
            writeStructs(of: client, from: clock, root: root, into: &writer)
        } else {
            writer.writeVarUInt(0)
        }
        Self.writeDeleteSet(deletes, into: &writer)
        return writer.bytes
    }

    /// One client's section: the number of structs, the client, the first clock, the structs.
    ///
    /// Neighbouring blocks that Yjs would hold as one item (`Item.mergeWith`: the same client,
    /// next in the list, each the origin of the next, the same right origin, alike deleted or
    /// not) are written as one struct.
    func writeStructs(of client: UInt64, from clock: UInt64, root: String, into writer: inout Lib0Writer) {
        let handles = clients[client]!
        var index = index(of: clock, client: client)!
        var offset = clock - self[handles[index]].id.clock
        var body = Lib0Writer()
        var structs = 0
        while index < handles.count {
            var last = index
            while last + 1 < handles.count && mergeable(handles[last], handles[last + 1]) { last += 1 }
            writeStruct(handles[index...last], offset: offset, root: root, into: &body)
            structs += 1
            offset = 0
            index = last + 1
        }
        writer.writeVarUInt(UInt64(structs))
        writer.writeVarUInt(client)
        writer.writeVarUInt(clock)
        writer.append(body)
    }

    private func mergeable(_ leftHandle: Handle, _ rightHandle: Handle) -> Bool {
        let left = self[leftHandle]
        let right = self[rightHandle]
        if left.isGC || right.isGC { return left.isGC && right.isGC }
        return left.right == rightHandle && right.origin == left.lastID && right.rightOrigin == left.rightOrigin
            && left.deleted == right.deleted
    }

    /// A run of blocks as one struct, its first `offset` units left out (the peer has them).
    private func writeStruct(_ run: ArraySlice<Handle>, offset: UInt64, root: String, into writer: inout Lib0Writer) {
        let first = self[run.first!]
        let length = run.reduce(0) { $0 + self[$1].length } - offset
        if first.isGC {
            writer.writeUInt8(DecodedUpdate.Ref.gc)
            writer.writeVarUInt(length)
            return
        }
        let origin = offset > 0 ? ItemID(client: first.id.client, clock: first.id.clock + offset - 1) : first.origin
        var info = first.deleted ? DecodedUpdate.Ref.deleted : DecodedUpdate.Ref.string
        if origin != nil { info |= DecodedUpdate.Flag.origin }
        if first.rightOrigin != nil { info |= DecodedUpdate.Flag.rightOrigin }
        writer.writeUInt8(info)
        if let origin { Self.writeID(origin, into: &writer) }
        if let rightOrigin = first.rightOrigin { Self.writeID(rightOrigin, into: &writer) }
        if origin == nil && first.rightOrigin == nil {
            writer.writeVarUInt(1)
            writer.writeVarString(root)
        }
        if first.deleted {
            writer.writeVarUInt(length)
        } else if run.count == 1 {
            writer.writeVarString(utf16: units(of: first).dropFirst(Int(offset)))
        } else {
            var units: [UInt16] = []
            units.reserveCapacity(Int(length))
            for handle in run { units.append(contentsOf: self.units(of: self[handle])) }
            writer.writeVarString(utf16: units.dropFirst(Int(offset)))
        }
    }

    private static func writeID(_ id: ItemID, into writer: inout Lib0Writer) {
        writer.writeVarUInt(id.client)
        writer.writeVarUInt(id.clock)
    }

    /// The delete set: per client (highest first), its ranges by clock, touching ranges joined.
    static func writeDeleteSet(_ ranges: [DeleteRange], into writer: inout Lib0Writer) {
        let byClient = Dictionary(grouping: ranges, by: \.client)
        writer.writeVarUInt(UInt64(byClient.count))
        for client in byClient.keys.sorted(by: >) {
            var joined: [DeleteRange] = []
            for range in byClient[client]!.sorted(by: { $0.clock < $1.clock }) {
                if let last = joined.last, last.clock + last.length >= range.clock {
                    joined[joined.count - 1].length = max(last.clock + last.length, range.clock + range.length) - last.clock
                } else {
                    joined.append(range)
                }
            }
            writer.writeVarUInt(client)
            writer.writeVarUInt(UInt64(joined.count))
            for range in joined {
                writer.writeVarUInt(range.clock)
                writer.writeVarUInt(range.length)
            }
        }
    }
}
