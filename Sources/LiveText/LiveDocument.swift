import Foundation

/// One note's text as a CRDT that Yjs and Yrs peers can share: a single root `Y.Text`, its
/// updates in Yjs's update format v1.
///
/// Each member's app holds one, with a client ID of its own. A local edit returns the update to
/// send; a peer's update goes to ``apply(update:)``, in any order, any number of times: every
/// document that has seen the same updates holds the same text, whatever order they came in.
/// Concurrent inserts at one place are ordered by Yjs's rules (YATA), so a Yjs or Yrs peer
/// orders them the same way.
///
/// A value: copies are independent documents (copy-on-write underneath).
public struct LiveDocument: Sendable {
    /// This document's client: the `client` of every item it writes. Two documents writing at
    /// once must not share one, or their items collide; below 2^53 for Yjs peers, whose lib0
    /// reads integers as JavaScript numbers (``randomClientID()`` draws one as Yjs does).
    public let clientID: UInt64
    /// The name of the root text in the Yjs document (`ydoc.getText(root)`).
    public let root: String

    var store = BlockStore()
    /// Structs that came before what they build on, per client by clock, and deletes of units
    /// not here yet: applied as soon as an update brings what they wait for (as Yjs keeps them).
    private(set) var pendingBlocks: [UInt64: PendingBlocks] = [:]
    private(set) var pendingDeletes = PendingDeletes()
    var undoSteps: [UndoStep] = []
    var redoSteps: [UndoStep] = []
    /// Text an undo put back, by the tombstone it copies (see ``Redone``).
    var redone: [Redone] = []
    /// How many edits ``undo()`` can take back, at least (as vim's `undolevels`): each keeps
    /// the text it deleted, and a long session's every key would otherwise stay in memory.
    public var undoLimit = 1_000

    public init(clientID: UInt64, root: String = "note") {
        self.clientID = clientID
        self.root = root
    }

    /// A client ID as Yjs draws one: a random 32-bit number. A session should draw a new one
    /// rather than reuse one another process may still be writing with.
    public static func randomClientID() -> UInt64 {
        UInt64(UInt32.random(in: 1...UInt32.max))
    }

    /// The text, as a Yjs peer's `ytext.toString()` gives it.
    public var text: String { String(decoding: store.utf16, as: UTF16.self) }

    /// The text's length in UTF-16 code units, the unit of every offset here (as in Yjs).
    public var utf16Count: Int { store.count }

    /// Whether updates are waiting for others (an earlier update of a client, or an item an
    /// origin names) before they can be applied.
    public var hasPendingUpdates: Bool { !pendingBlocks.isEmpty || !pendingDeletes.isEmpty }

    // MARK: Local edits

    /// Inserts `text` at `utf16Offset` (0 through ``utf16Count``); returns the update to send.
    ///
    /// An offset inside a surrogate pair splits it, and both halves become U+FFFD, as in Yjs.
    @discardableResult
    public mutating func insert(_ text: String, at utf16Offset: Int) -> Data {
        precondition((0...store.count).contains(utf16Offset), "insert at \(utf16Offset) of a text of \(store.count) UTF-16 units")
        let units = Array(text.utf16)
        let clock = store.state(of: clientID)
        if !units.isEmpty {
            store.insertLocal(units, at: utf16Offset, id: ItemID(client: clientID, clock: clock))
            record(UndoStep(inserted: [clock..<clock + UInt64(units.count)], deleted: []))
        }
        return Data(store.encodeUpdate(of: clientID, from: clock, deletes: [], root: root))
    }

    /// Deletes the UTF-16 units `range`; returns the update to send.
    @discardableResult
    public mutating func delete(_ range: Range<Int>) -> Data {
        precondition(range.lowerBound >= 0 && range.upperBound <= store.count, "delete \(range) of a text of \(store.count) UTF-16 units")
        let deleted = store.deleteLocal(range)
        let pieces = deleted.map { DeletedText(id: store[$0].id, units: Array(store.units(of: store[$0]))) }
        if !pieces.isEmpty { record(UndoStep(inserted: [], deleted: pieces)) }
        let ranges = deleted.map { DeleteRange(client: store[$0].id.client, clock: store[$0].id.clock, length: store[$0].length) }
        return Data(store.encodeUpdate(of: clientID, from: store.state(of: clientID), deletes: ranges, root: root))
    }

    // MARK: Sync

    /// Applies a peer's update (Yjs update v1). What it builds on but this document lacks waits
    /// here, and is applied when that arrives; what this document has already is skipped.
    ///
    /// Throws, and changes nothing, when the bytes are not an update this document can hold:
    /// truncated, malformed, or with content other than the root text's characters.
    public mutating func apply(update: Data) throws(LiveTextError) {
        let decoded = try DecodedUpdate(Array(update), root: root)
        store.positions.removeAll()
        integrate(decoded)
    }

    /// ``apply(update:)``, returning what it changed in the text, in order (see
    /// ``LiveTextChange``): nothing for an update that only waits, or that this document had.
    ///
    /// Finding where the changes are walks the text's items from the start up to the last one
    /// that changed: what an editor pays anyway to take the new text, but not what a relay or a
    /// load should pay, so it is a call of its own.
    public mutating func applyReportingChanges(_ update: Data) throws(LiveTextError) -> [LiveTextChange] {
        let decoded = try DecodedUpdate(Array(update), root: root)
        store.startJournal()
        integrate(decoded)
        return store.endJournal()
    }

    /// This document's state vector, encoded: what a peer needs to send only what is missing.
    public func stateVector() -> Data { Data(store.stateVector.encoded()) }

    /// The same, as a value.
    public var state: StateVector { store.stateVector }

    /// Everything this document holds that a peer with `stateVector` (an encoded state vector;
    /// nil for a peer with nothing) lacks, as one update. Updates still waiting here are not in it.
    public func encodeStateAsUpdate(since stateVector: Data?) throws(LiveTextError) -> Data {
        let since = try stateVector.map { data throws(LiveTextError) in try StateVector(encoded: data) } ?? StateVector()
        return encodeStateAsUpdate(since: since)
    }

    /// Everything this document holds past `since` (everything, by default).
    public func encodeStateAsUpdate(since: StateVector = StateVector()) -> Data {
        Data(store.encodeUpdate(since: since, root: root))
    }

    /// The structs of `update` and those waiting, each client's in clock order, integrated as
    /// their dependencies allow; then the deletes, and those waiting whose units have come.
    private mutating func integrate(_ update: DecodedUpdate) {
        var queues = pendingBlocks
        for (client, blocks) in update.blocks {
            for block in blocks { queues[client, default: PendingBlocks()].insert(block) }
        }
        // A worklist: a client goes as far as its structs' dependencies allow, then waits on the
        // client it lacks a unit of, and is woken when that client moves on. Each client is
        // taken up again only after progress it waits for (Yjs keeps a stack to the same end).
        var ready = queues.keys.sorted(by: >)
        var waiting: [UInt64: [UInt64]] = [:]
        var advanced = Set<UInt64>()
        while let client = ready.popLast() {
            guard var queue = queues.removeValue(forKey: client) else { continue }
            var progressed = false
            while let block = queue.first {
                let state = store.state(of: client)
                if block.end <= state {
                    queue.removeFirst()
                    continue
                }
                // A gap in its own clocks: only a later update can fill it.
                guard block.id.clock <= state else { break }
                let offset = state - block.id.clock
                if let missing = store.missingDependency(of: block, offset: offset) {
                    if missing != client { waiting[missing, default: []].append(client) }
                    break
                }
                store.integrate(queue.removeFirst().dropping(offset))
                progressed = true
            }
            queues[client] = queue
            if progressed {
                advanced.insert(client)
                if let woken = waiting.removeValue(forKey: client) { ready.append(contentsOf: woken) }
            }
        }
        pendingBlocks = queues.filter { !$0.value.isEmpty }
        var ignored: [Handle] = []
        var due = update.deletes
        for client in advanced { due += pendingDeletes.removeStarting(before: store.state(of: client), client: client) }
        for range in due {
            if let rest = store.delete(range, deleted: &ignored) { pendingDeletes.insert(rest) }
            ignored.removeAll(keepingCapacity: true)
        }
    }
}

extension LiveDocument {
    /// For each client whose structs `update` holds, the clock just past its last one: what a
    /// peer that has applied `update` holds at least (its deletes add no clocks). A client keeps
    /// the state vector of what a relay has sent it this way, and sends only what lies past it.
    public static func clockEnds(of update: Data, root: String = "note") throws(LiveTextError) -> StateVector {
        let decoded = try DecodedUpdate(Array(update), root: root)
        var ends = StateVector()
        for (client, blocks) in decoded.blocks {
            if let end = blocks.map(\.end).max() { ends.clocks[client] = end }
        }
        return ends
    }
}

extension StateVector {
    /// Takes in what `other` holds: each client's greater clock.
    public mutating func formUnion(_ other: StateVector) {
        for (client, clock) in other.clocks where clock > clocks[client, default: 0] { clocks[client] = clock }
    }
}
