/// Where a transfer stands. The agent's `transfers --json` prints these words, and the app's
/// Transfers panel shows them.
public enum TransferState: String, Codable, Sendable, CaseIterable {
    case queued, running, paused, done, failed, cancelled

    /// Nothing more will happen to it.
    public var isFinished: Bool { self == .done || self == .failed || self == .cancelled }
}

/// Something a `TransferQueue` holds: the app's photo transfers and the agent's transfers.
public protocol QueuedTransfer: Sendable {
    associatedtype ID: Hashable & Sendable
    var id: ID { get }
    var queueState: TransferState { get set }
}

/// The one transfer queue of byteclub, for the app and the agent alike: transfers in the order
/// they were asked for, at most ``limit`` running, the rest waiting; pause, resume and cancel
/// with the moves each state allows; and how a transfer's task ended. A value with no I/O: its
/// owner starts the tasks ``admit()`` names and reports their ends with ``end(_:succeeded:)``.
///
/// Because the app and the agent share it, handing a transfer from one to the other hands over
/// its state: a paused download stays paused, an upload session goes on at its offset.
public struct TransferQueue<Item: QueuedTransfer>: Sendable {
    /// Oldest first.
    public private(set) var items: [Item]
    /// Where each id is in ``items``, so a look-up or a progress event costs no scan (a batch of
    /// hundreds of photos reports progress many times a second). Every change that adds, drops
    /// or moves an item calls ``reindex()``; one that changes an item where it is needs not.
    private var positions: [Item.ID: Int] = [:]
    /// How many run at once.
    public var limit: Int

    /// Why a pause, resume or cancel was refused.
    public enum Refusal: Error, Equatable, Sendable {
        case unknown
        /// The transfer is in a state that move does not leave from.
        case isAlready(TransferState)
    }

    public init(_ items: [Item] = [], limit: Int) {
        self.items = items
        self.limit = limit
        reindex()
    }

    public subscript(id: Item.ID) -> Item? {
        positions[id].map { items[$0] }
    }

    /// Changes the transfer `id` in place (its progress, its result); not its state's rules, nor its id.
    public mutating func update(_ id: Item.ID, _ change: (inout Item) -> Void) {
        guard let index = positions[id] else { return }
        change(&items[index])
        precondition(items[index].id == id, "update changed a transfer's id")
    }

    /// Puts `item` in place of the one with its id, or at the end if there is none, in the
    /// state it carries (an owner keeping its own record of a transfer's other fields).
    public mutating func put(_ item: Item) {
        if let index = positions[item.id] {
            items[index] = item
        } else {
            items.append(item)
            positions[item.id] = items.count - 1
        }
    }

    public var queued: [Item] { items.filter { $0.queueState == .queued } }
    public var runningCount: Int { items.reduce(0) { $0 + ($1.queueState == .running ? 1 : 0) } }
    /// Something runs, or waits for a slot.
    public var isBusy: Bool { items.contains { $0.queueState == .running || $0.queueState == .queued } }

    /// Adds a transfer at the end, waiting for a slot.
    public mutating func enqueue(_ item: Item) {
        var item = item
        item.queueState = .queued
        if let index = positions[item.id] { items.remove(at: index) }
        items.append(item)
        reindex()
    }

    /// Starts waiting transfers, oldest first, while fewer than ``limit`` run: they are running
    /// now, and their owner starts their tasks.
    public mutating func admit() -> [Item] {
        var started: [Item] = []
        var running = runningCount
        for index in items.indices where running < max(1, limit) && items[index].queueState == .queued {
            items[index].queueState = .running
            running += 1
            started.append(items[index])
        }
        return started
    }

    /// A waiting or running transfer stops where it is (a running one's task is to be stopped,
    /// keeping what lets it resume).
    @discardableResult
    public mutating func pause(_ id: Item.ID) throws(Refusal) -> Item {
        try move(id, from: [.queued, .running], to: .paused)
    }

    /// A paused or failed transfer waits for a slot again.
    @discardableResult
    public mutating func resume(_ id: Item.ID) throws(Refusal) -> Item {
        try move(id, from: [.paused, .failed], to: .queued)
    }

    /// Any transfer not over yet is cancelled (a running one's task is to be stopped).
    @discardableResult
    public mutating func cancel(_ id: Item.ID) throws(Refusal) -> Item {
        try move(id, from: [.queued, .running, .paused], to: .cancelled)
    }

    /// A transfer's task ended. Only a running transfer becomes done or failed; one paused or
    /// cancelled meanwhile keeps that state. Returns the state it was in when its task ended.
    @discardableResult
    public mutating func end(_ id: Item.ID, succeeded: Bool) -> TransferState? {
        guard let index = positions[id] else { return nil }
        let was = items[index].queueState
        if was == .running { items[index].queueState = succeeded ? .done : .failed }
        return was
    }

    /// After a crash: what was running runs no more, so it waits again.
    public mutating func requeueRunning() {
        for index in items.indices where items[index].queueState == .running {
            items[index].queueState = .queued
        }
    }

    /// Takes the finished transfers off the queue and returns them.
    public mutating func removeFinished() -> [Item] {
        let gone = items.filter { $0.queueState.isFinished }
        items.removeAll { $0.queueState.isFinished }
        reindex()
        return gone
    }

    /// Takes one transfer off the queue, whatever its state.
    @discardableResult
    public mutating func remove(_ id: Item.ID) -> Item? {
        guard let index = positions[id] else { return nil }
        let gone = items.remove(at: index)
        reindex()
        return gone
    }

    private mutating func move(_ id: Item.ID, from allowed: Set<TransferState>, to state: TransferState) throws(Refusal) -> Item {
        guard let index = positions[id] else { throw .unknown }
        guard allowed.contains(items[index].queueState) else { throw .isAlready(items[index].queueState) }
        items[index].queueState = state
        return items[index]
    }

    /// ``positions`` from ``items`` (the first of an id, should one be there twice).
    private mutating func reindex() {
        positions = Dictionary(items.indices.map { (items[$0].id, $0) }, uniquingKeysWith: { first, _ in first })
    }
}

extension TransferQueue: Equatable where Item: Equatable {}
