/// One struct of an update, as read and before it meets a document.
struct DecodedBlock: Sendable {
    enum Content: Sendable {
        /// ContentString: its UTF-16 code units (the clock counts these, as Yjs does).
        case text([UInt16])
        /// ContentDeleted: an item whose text was collected; only its length is left.
        case deleted(UInt64)
        /// A GC struct: units that are gone, with no place in the text.
        case gc(UInt64)
    }

    var id: ItemID
    var origin: ItemID?
    var rightOrigin: ItemID?
    var content: Content

    var length: UInt64 {
        switch content {
        case .text(let units): UInt64(units.count)
        case .deleted(let length), .gc(let length): length
        }
    }

    var end: UInt64 { id.clock + length }

    /// The part from `offset` on, as Yjs's `integrate(transaction, offset)` cuts a struct a
    /// document already holds the start of: its origin becomes the unit just before the cut.
    func dropping(_ offset: UInt64) -> DecodedBlock {
        guard offset > 0 else { return self }
        var rest = self
        rest.id.clock += offset
        switch content {
        case .text(let units):
            rest.origin = ItemID(client: id.client, clock: id.clock + offset - 1)
            rest.content = .text(TextSplit.right(of: units[...], at: Int(offset)))
        case .deleted(let length):
            rest.origin = ItemID(client: id.client, clock: id.clock + offset - 1)
            rest.content = .deleted(length - offset)
        case .gc(let length):
            rest.content = .gc(length - offset)
        }
        return rest
    }
}

/// A range of one client's clocks, deleted.
struct DeleteRange: Hashable, Sendable {
    var client: UInt64
    var clock: UInt64
    var length: UInt64
}

/// How Yjs cuts text between two items: never inside a surrogate pair. A cut there turns both
/// halves of the pair into U+FFFD (yjs issue 248), so no document holds half a character.
enum TextSplit {
    static func left(of units: ArraySlice<UInt16>, at offset: Int) -> [UInt16] {
        var left = Array(units.prefix(offset))
        if let last = left.last, UTF16Transcoding.isHighSurrogate(last) { left[left.count - 1] = 0xFFFD }
        return left
    }

    /// Units `range` of a run, each end cut as ``left(of:at:)`` and ``right(of:at:)`` cut it.
    static func middle(of units: [UInt16], _ range: Range<Int>) -> [UInt16] {
        var middle = Array(units[range])
        if range.lowerBound > 0, UTF16Transcoding.isHighSurrogate(units[range.lowerBound - 1]), !middle.isEmpty { middle[0] = 0xFFFD }
        if range.upperBound < units.count, let last = middle.last, UTF16Transcoding.isHighSurrogate(last) { middle[middle.count - 1] = 0xFFFD }
        return middle
    }

    static func right(of units: ArraySlice<UInt16>, at offset: Int) -> [UInt16] {
        var right = Array(units.dropFirst(offset))
        if offset > 0, UTF16Transcoding.isHighSurrogate(units[units.startIndex + offset - 1]), !right.isEmpty { right[0] = 0xFFFD }
        return right
    }
}

/// A Yjs update (format v1) read whole and checked before any of it is applied, so a bad update
/// changes nothing: the structs, per client in clock order, and the delete set.
struct DecodedUpdate: Sendable {
    var blocks: [UInt64: [DecodedBlock]] = [:]
    var deletes: [DeleteRange] = []

    /// The info byte's low five bits: the struct's kind.
    enum Ref {
        static let gc: UInt8 = 0
        static let deleted: UInt8 = 1
        static let string: UInt8 = 4
        static let skip: UInt8 = 10
    }

    /// The info byte's flags: an origin, a right origin, a parent key (a map entry).
    enum Flag {
        static let origin: UInt8 = 0x80
        static let rightOrigin: UInt8 = 0x40
        static let parentSub: UInt8 = 0x20
    }

    /// Reads `bytes` as an update to the root text `root`; anything else in it (another root, a
    /// nested type, formatting) is refused, not dropped, so nothing is half applied.
    init(_ bytes: [UInt8], root: String) throws(LiveTextError) {
        var reader = Lib0Reader(bytes)
        // A client's section takes at least three bytes (count, client, clock).
        let clientCount = try reader.readLength(minimumBytes: 3)
        for _ in 0..<clientCount {
            let sectionStart = reader.position
            let structCount = try reader.readLength()
            let client = try reader.readVarUInt()
            guard blocks[client] == nil else { throw .malformed("client \(client) twice", at: sectionStart) }
            var clock = try Self.readClock(&reader)
            var list: [DecodedBlock] = []
            for _ in 0..<structCount {
                let at = reader.position
                let info = try reader.readUInt8()
                let ref = info & 0x1F
                switch ref {
                case Ref.gc, Ref.skip:
                    let length = try Self.readRunLength(&reader, after: clock)
                    if ref == Ref.gc {
                        list.append(DecodedBlock(id: ItemID(client: client, clock: clock), content: .gc(length)))
                    }
                    clock += length
                case Ref.deleted, Ref.string:
                    let origin: ItemID? = if info & Flag.origin != 0 { try Self.readID(&reader) } else { nil }
                    let rightOrigin: ItemID? = if info & Flag.rightOrigin != 0 { try Self.readID(&reader) } else { nil }
                    if origin == nil && rightOrigin == nil {
                        try Self.readParent(&reader, info: info, root: root)
                    }
                    let content: DecodedBlock.Content
                    if ref == Ref.deleted {
                        let length = try Self.readRunLength(&reader, after: clock)
                        content = .deleted(length)
                    } else {
                        let string = try reader.readVarString()
                        let text = Array(string.utf16)
                        guard !text.isEmpty else { throw .malformed("an empty string item", at: at) }
                        guard UInt64(text.count) <= ItemID.clockLimit - clock else { throw .malformed("a clock past 2^53", at: at) }
                        content = .text(text)
                    }
                    let block = DecodedBlock(id: ItemID(client: client, clock: clock), origin: origin, rightOrigin: rightOrigin, content: content)
                    clock = block.end
                    list.append(block)
                case 2, 3, 5, 6, 7, 8, 9:
                    throw .unsupported("content of type \(ref) (only text and deleted text are held)", at: at)
                default:
                    throw .malformed("struct type \(ref)", at: at)
                }
            }
            blocks[client] = list
        }
        let deleteClients = try reader.readLength(minimumBytes: 2)
        for _ in 0..<deleteClients {
            let client = try reader.readVarUInt()
            let rangeCount = try reader.readLength(minimumBytes: 2)
            for _ in 0..<rangeCount {
                let clock = try Self.readClock(&reader)
                let length = try Self.readRunLength(&reader, after: clock, allowEmpty: true)
                if length > 0 { deletes.append(DeleteRange(client: client, clock: clock, length: length)) }
            }
        }
        guard reader.isAtEnd else { throw .trailingBytes(at: reader.position) }
    }

    private static func readClock(_ reader: inout Lib0Reader) throws(LiveTextError) -> UInt64 {
        let at = reader.position
        let clock = try reader.readVarUInt()
        guard clock <= ItemID.clockLimit else { throw .malformed("a clock past 2^53", at: at) }
        return clock
    }

    private static func readRunLength(_ reader: inout Lib0Reader, after clock: UInt64, allowEmpty: Bool = false) throws(LiveTextError) -> UInt64 {
        let at = reader.position
        let length = try reader.readVarUInt()
        guard allowEmpty || length > 0 else { throw .malformed("a struct of length 0", at: at) }
        guard length <= ItemID.clockLimit - clock else { throw .malformed("a clock past 2^53", at: at) }
        return length
    }

    private static func readID(_ reader: inout Lib0Reader) throws(LiveTextError) -> ItemID {
        let client = try reader.readVarUInt()
        let clock = try readClock(&reader)
        return ItemID(client: client, clock: clock)
    }

    /// An item with neither origin names its parent: only the root text `root` is held here.
    private static func readParent(_ reader: inout Lib0Reader, info: UInt8, root: String) throws(LiveTextError) {
        let at = reader.position
        switch try reader.readVarUInt() {
        case 1:
            let name = try reader.readVarString()
            guard name == root else { throw .unsupported("the root type \"\(name)\" (this document holds \"\(root)\")", at: at) }
        case 0:
            throw .unsupported("an item inside a nested type", at: at)
        default:
            throw .malformed("parent info", at: at)
        }
        if info & Flag.parentSub != 0 {
            throw .unsupported("a map entry", at: at)
        }
    }
}
