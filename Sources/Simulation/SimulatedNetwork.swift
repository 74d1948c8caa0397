import DropboxWire
import Foundation
import Remote
import Synchronization
import Transfer

/// The way between one member's machine and a club in the simulation, and what goes wrong on
/// it, all drawn from the run's seed: the club down (every call refused before it reaches the
/// server), a reply lost after the server did the work (the member hears a network error), and
/// `kill -9` (the member's process dies just after the server did the work: it hears nothing,
/// and everything it sends until the step ends is refused, as a dead process sends nothing).
public final class NetworkFaults: Sendable {
    struct State {
        var random: SplitMix64
        var down = false
        /// One reply in this many is lost (0: none).
        var lossOdds = 0
        /// The next write the server does kills the member's process.
        var killArmed = false
        /// The process died during this step.
        var killed = false
        /// What happened, for the run's log.
        var events: [String] = []
    }

    let state: Mutex<State>

    public init(seed: UInt64) {
        state = Mutex(State(random: SplitMix64(seed: seed)))
    }

    public var isDown: Bool {
        get { state.withLock { $0.down } }
        set { state.withLock { $0.down = newValue } }
    }

    public var lossOdds: Int {
        get { state.withLock { $0.lossOdds } }
        set { state.withLock { $0.lossOdds = newValue } }
    }

    /// Kills the member's process at its next write that the server carries out.
    public func armKill() { state.withLock { $0.killArmed = true } }

    /// Whether the process died in this step; a new step starts a new process.
    public func takeKilled() -> Bool {
        state.withLock {
            let killed = $0.killed
            $0.killed = false
            $0.killArmed = false
            return killed
        }
    }

    /// The events since the last call.
    public func takeEvents() -> [String] {
        state.withLock {
            let events = $0.events
            $0.events = []
            return events
        }
    }

    /// Before a call: refused when the club is down or the process is dead.
    func before(_ call: String) throws(RemoteError) {
        try state.withLock { state throws(RemoteError) in
            if state.killed { throw RemoteError.network("simulated: the process is dead") }
            if state.down {
                state.events.append("\(call) refused (down)")
                // As a club that is not there answers: the connection refused at once.
                throw RemoteError.network("simulated: the club cannot be reached (\(TransferError.refusedReason))")
            }
        }
    }

    /// After the server did `call`: the reply lost, or the process killed.
    func after(_ call: String, writes: Bool) throws(RemoteError) {
        try state.withLock { state throws(RemoteError) in
            if writes, state.killArmed {
                state.killArmed = false
                state.killed = true
                state.events.append("killed after \(call)")
                throw RemoteError.network("simulated: killed")
            }
            if state.lossOdds > 0, state.random.oneIn(state.lossOdds) {
                state.events.append("reply to \(call) lost")
                throw RemoteError.network("simulated: the reply was lost")
            }
        }
    }
}

/// A store seen through ``NetworkFaults``: each call goes to `inner` unless the faults refuse
/// it first, and its answer comes back unless they lose it.
public final class SimulatedNetwork: RemoteStore, Sendable {
    let inner: any RemoteStore
    public let faults: NetworkFaults

    public init(_ inner: any RemoteStore, faults: NetworkFaults) {
        self.inner = inner
        self.faults = faults
    }

    public var displayName: String { inner.displayName }
    public var keepsHistory: Bool { inner.keepsHistory }
    public var keepsIDsThroughMoves: Bool { inner.keepsIDsThroughMoves }

    private func call<T>(_ name: String, writes: Bool = false, _ body: () async throws(RemoteError) -> T) async throws(RemoteError) -> T {
        try faults.before(name)
        let value = try await body()
        try faults.after(name, writes: writes)
        return value
    }

    public func read(_ path: String) async throws(RemoteError) -> (data: Data, entry: RemoteEntry) {
        try await call("read") { () async throws(RemoteError) in try await inner.read(path) }
    }

    public func listPage(_ folder: String, cursor: String?, limit: Int) async throws(RemoteError) -> (entries: [RemoteEntry], next: String?) {
        try await call("list") { () async throws(RemoteError) in try await inner.listPage(folder, cursor: cursor, limit: limit) }
    }

    public func metadata(_ path: String) async throws(RemoteError) -> RemoteEntry {
        try await call("metadata") { () async throws(RemoteError) in try await inner.metadata(path) }
    }

    public func search(in folder: String, extensions: [String]) async throws(RemoteError) -> [RemoteEntry] {
        try await call("search") { () async throws(RemoteError) in try await inner.search(in: folder, extensions: extensions) }
    }

    public func download(_ path: String, to destination: URL, resumeData: Data?, progress: ProgressHandler?,
                         onResumeData: (@Sendable (Data) -> Void)?) async throws(RemoteError) -> RemoteEntry {
        try await call("download") { () async throws(RemoteError) in
            try await inner.download(path, to: destination, resumeData: resumeData, progress: progress, onResumeData: onResumeData)
        }
    }

    public func upload(file: URL, to path: String, mode: WriteMode, autorename: Bool, progress: ProgressHandler?) async throws(RemoteError) -> RemoteEntry {
        try await call("upload", writes: true) { () async throws(RemoteError) in
            try await inner.upload(file: file, to: path, mode: mode, autorename: autorename, progress: progress)
        }
    }

    public func upload(data: Data, to path: String, mode: WriteMode, autorename: Bool) async throws(RemoteError) -> RemoteEntry {
        try await call("upload", writes: true) { () async throws(RemoteError) in
            try await inner.upload(data: data, to: path, mode: mode, autorename: autorename)
        }
    }

    public func thumbnail(_ path: String, size: ThumbnailSize) async throws(RemoteError) -> Data {
        try await call("thumbnail") { () async throws(RemoteError) in try await inner.thumbnail(path, size: size) }
    }

    public func delete(_ path: String) async throws(RemoteError) -> RemoteEntry {
        try await call("delete", writes: true) { () async throws(RemoteError) in try await inner.delete(path) }
    }

    public func move(from: String, to: String, autorename: Bool) async throws(RemoteError) -> RemoteEntry {
        try await call("move", writes: true) { () async throws(RemoteError) in try await inner.move(from: from, to: to, autorename: autorename) }
    }

    public func createFolder(_ path: String) async throws(RemoteError) -> RemoteEntry {
        try await call("create_folder", writes: true) { () async throws(RemoteError) in try await inner.createFolder(path) }
    }

    public func revisions(_ path: String, limit: Int, before: String?) async throws(RemoteError) -> RemoteRevisions {
        try await call("list_revisions") { () async throws(RemoteError) in try await inner.revisions(path, limit: limit, before: before) }
    }

    public func restore(_ path: String, rev: String) async throws(RemoteError) -> RemoteEntry {
        try await call("restore", writes: true) { () async throws(RemoteError) in try await inner.restore(path, rev: rev) }
    }

    public func copy(from: String, to: String, autorename: Bool) async throws(RemoteError) -> RemoteEntry {
        try await call("copy", writes: true) { () async throws(RemoteError) in try await inner.copy(from: from, to: to, autorename: autorename) }
    }
}
