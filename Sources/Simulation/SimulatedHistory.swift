import ClubCrypt
import ClubKit
import Foundation
import Remote
import Synchronization

/// One generated history in the simulation (issue 70): two members (ann and bob), each with
/// the command line's core (``NoteEditing``'s `edit` and `new`, the outbox and its sender, the
/// one write path's moves and deletes), over two clubs held in memory (``SimulatedClub``: the
/// club server's commit rule, or WebDAV's; an encrypted club is the club server behind each
/// member's own ``EncryptedStore``), each way between them through ``NetworkFaults``: the club
/// down, replies lost, a member's process killed just after the server did its work. Every
/// choice comes from the seed and time is a counter, so a seed gives the same history and the
/// same log, byte for byte; a step costs microseconds, not the seconds of a real process.
///
/// At the end the network is whole, every outbox is sent, and the promise is checked
/// (``violations``): every line a member was told was saved is in that club unless someone
/// deleted its note; every other line they wrote is there or in a draft of that club on their
/// machine; no line is in a club twice; nothing of one club is in the other; every note reads;
/// and no member is told a note was deleted that nobody deleted.
public final class SimulatedHistory {
    public enum Backend: String, Sendable, CaseIterable {
        case club, webdav, encrypted
    }

    public enum Member: String, Sendable, CaseIterable {
        case ann, bob
    }

    /// What a member was told of a line they wrote.
    enum Told: String {
        /// Exit 0: the club has it.
        case saved
        /// Exit 75: in the outbox, sent later.
        case queued
        /// Kept as a draft (a conflict, a refusal).
        case kept
        /// Typed, then the process died before it heard.
        case typed
    }

    struct Line {
        let text: String
        let club: Int
        let member: Member
        let step: Int
        var note: Int
        var told: Told
    }

    struct Note {
        let club: Int
        var path: String
        var deleted = false
    }

    public let seed: UInt64
    public let backend: Backend
    let folder = "/byteclub"
    let titles = ["Plan", "Trip", "Ideas", "Log", "Todo"]
    var random: SplitMix64
    let clock: SimulatedClock
    let clubs: [SimulatedClub]
    /// Each member's way to each club: [member][club].
    var faults: [Member: [NetworkFaults]] = [:]
    var backends: [Member: [ClubKit.Backend]] = [:]
    var notes: [Note] = []
    var lines: [Line] = []
    /// Paths (lowercased) a member moved away from, by club: a queued change of theirs follows.
    var movedAway: [Int: [String: Member]] = [0: [:], 1: [:]]
    /// Paths (lowercased) deleted by someone, by club.
    var deletedPaths: [Int: Set<String>] = [0: [], 1: []]
    /// The note each path (lowercased) a note was moved away from belonged to, by club: a change
    /// queued at that path meets a note that may since have been deleted where it went.
    var formerPaths: [Int: [String: Int]] = [0: [:], 1: [:]]
    /// Where each move took a note (lowercased paths, from → to), a club at a time.
    var movedTo: [Int: [String: String]] = [0: [:], 1: [:]]
    /// What happened, one line a step: the same for the same seed.
    public internal(set) var log: [String] = []
    /// Lines found in two notes or more at the end (never twice in one note: that is a broken
    /// promise), counted apart from the promise: each is a copy of text the club has, not a
    /// loss, and they come from a note known by its path alone (issue 68): a draft kept as a
    /// new note when its note's draft was taken, or when its note moved where the store cannot
    /// say (WebDAV), resumed later by `new` of that title; a move cut between its copy and its
    /// delete (an encrypted club's). docs/testing.md gives the figures.
    public internal(set) var copied: [String] = []

    /// Promises broken while the history ran (a member told something untrue).
    var broken: [String] = []
    public private(set) var step = 0
    /// This run's name in the keys of its drafts and outboxes (apart from every other run's).
    let runName: String
    /// The checker's view of each club: through ann's keys when encrypted.
    var checkers: [any RemoteStore] = []
    /// Each member's app running on a club: [member][club] (``SimulatedApp``).
    var apps: [Member: [Int: SimulatedApp]] = [:]
    /// How many apps have started: each a process of its own (``DraftStore/process``).
    var appsStarted = 0
    /// What the apps did while the clock moved at a step's start, for its log line.
    var appEvents: [String] = []

    /// Which shells write the members' notes: the command line's (as before the apps came), the
    /// app's, or both on one machine.
    public enum Shells: String, Sendable, CaseIterable {
        case cli, app, both

        /// Each step's action and its weight.
        var steps: [(String, Int)] {
            switch self {
            case .cli: [("edit", 40), ("new", 10), ("send", 15), ("move", 8), ("delete", 3), ("rest", 4)]
            case .app: [("app", 50), ("send", 15), ("move", 8), ("delete", 3), ("rest", 4)]
            case .both: [("edit", 40), ("app", 24), ("new", 10), ("send", 15), ("move", 8), ("delete", 3), ("rest", 4)]
            }
        }
    }

    public let shells: Shells

    public init(seed: UInt64, backend: Backend, runName: String, shells: Shells = .cli) async throws {
        self.seed = seed
        self.shells = shells
        self.backend = backend
        self.runName = runName
        random = SplitMix64(seed: seed)
        let clock = SimulatedClock()
        self.clock = clock
        let kind: SimulatedClub.Kind = backend == .webdav ? .webdav : .club
        clubs = (0..<2).map { SimulatedClub(kind: kind, name: "sim-\(runName)-\(backend.rawValue)-club\($0)", now: { clock.now }) }
        for member in Member.allCases {
            faults[member] = (0..<2).map { NetworkFaults(seed: seed &* 31 &+ UInt64($0) &+ (member == .ann ? 0 : 7)) }
        }
        try await connect()
        // Three notes in each club, the same titles in both (a draft of one club must never be
        // taken for the other's note of the same name).
        for club in 0..<2 {
            for title in titles.prefix(3) {
                let path = "\(folder)/\(title).md"
                _ = try await checkers[club].upload(data: Data("# \(title) in club \(club)\n".utf8), to: path, mode: .add, autorename: false)
                notes.append(Note(club: club, path: path))
            }
        }
    }

    /// Each member's backend on each club: the simulated network over the club, behind the
    /// member's own keys when the club is encrypted (ann makes the keys; bob asks to join and
    /// ann admits him).
    private func connect() async throws {
        var stores: [Member: [any RemoteStore]] = [:]
        for member in Member.allCases {
            stores[member] = (0..<2).map { SimulatedNetwork(clubs[$0], faults: faults[member]![$0]) }
        }
        if backend == .encrypted {
            // The kept folder names' time is the simulation's, so a seed replays exactly.
            let clock = self.clock
            let ann = MemberKeys(identity: X25519Identity()), bob = MemberKeys(identity: X25519Identity())
            for club in 0..<2 {
                let annKey = key(.ann, club) + "-keys", bobKey = key(.bob, club) + "-keys"
                let annRing = try await ClubKeyring.create(clubs[club], folder: folder, key: annKey, me: ann, name: "ann")
                let annStore = EncryptedStore(inner: stores[.ann]![club], keyring: annRing, folder: folder, key: annKey, clock: { clock.now })
                try await ClubKeyring.requestToJoin(clubs[club], folder: folder, me: bob, name: "bob")
                _ = try await EncryptedClubs.admit("bob", in: annStore)
                let bobRing = try await ClubKeyring.load(clubs[club], folder: folder, key: bobKey, me: bob)
                stores[.ann]![club] = annStore
                stores[.bob]![club] = EncryptedStore(inner: stores[.bob]![club], keyring: bobRing, folder: folder, key: bobKey, clock: { clock.now })
                checkers.append(EncryptedStore(inner: clubs[club], keyring: annRing, folder: folder, key: annKey, clock: { clock.now }))
            }
        } else {
            checkers = clubs
        }
        for member in Member.allCases {
            backends[member] = (0..<2).map { club in
                ClubKit.Backend(store: stores[member]![club], server: nil, label: "club \(club)", account: "\(runName)-\(member.rawValue)")
            }
        }
    }

    func key(_ member: Member, _ club: Int) -> String { "sim-\(runName)-\(member.rawValue)-\(club)" }

    /// Removes what this run kept on the machine: its drafts, outboxes and keys' local copies.
    public func close() {
        var folders: [URL] = []
        for member in Member.allCases {
            for backend in backends[member] ?? [] {
                folders += [Paths.drafts(backend.key), Paths.outbox(backend.key), Paths.cache(backend.key)]
            }
            for club in 0..<2 { folders.append(Paths.state.appendingPathComponent("encrypted").appendingPathComponent(key(member, club) + "-keys")) }
        }
        folders.append(Paths.drafts("planted-every-club"))
        for folder in folders { try? FileManager.default.removeItem(at: folder) }
    }

    // MARK: - Steps

    /// Runs `count` steps, each drawn from the seed.
    public func run(steps count: Int) async {
        for _ in 0..<count { await next() }
    }

    /// A note whose last edit went unconfirmed (its reply lost, or its writer killed): the
    /// history steers the other member to write in it before the change goes again, where
    /// a resent change meets someone else's (as FoundationDB's simulation steers its faults).
    var unconfirmed: (club: Int, note: Int, writer: Member)?

    func next() async {
        step += 1
        clock.advance()
        await advanceApps(by: 1)
        var member: Member = random.oneIn(2) ? .ann : .bob
        var club = random.int(0...1)
        var steered: Int?
        var steeredAction = "edit"
        if let hot = unconfirmed, random.oneIn(2) {
            // Mostly the other member writes in it; now and then its writer moves it, and the
            // queue must follow.
            if random.oneIn(3) {
                (member, club, steered, steeredAction) = (hot.writer, hot.club, hot.note, "move")
            } else {
                (member, club, steered) = (hot.writer == .ann ? .bob : .ann, hot.club, hot.note)
            }
            unconfirmed = nil
        }
        let faults = self.faults[member]![club]
        // The club's state for this member: an outage begins or ends; some replies are lost.
        if random.oneIn(faults.isDown ? 4 : 14) { faults.isDown.toggle() }
        faults.lossOdds = random.oneIn(3) ? 6 : 0
        if random.oneIn(10) { faults.armKill() }
        let action = steered != nil ? (steeredAction == "edit" && shells == .app ? "app" : steeredAction) : random.weighted(shells.steps)
        var said: String
        switch action {
        case "edit": said = await edit(member, club, steered: steered)
        case "app": said = await appStep(member, club)
        case "new": said = await create(member, club)
        case "send": said = await send(member, club)
        case "move": said = await move(member, club, steered: steered)
        case "delete": said = await delete(member, club)
        default: said = "rests"
        }
        let events = appEvents + faults.takeEvents()
        appEvents = []
        if faults.takeKilled() { said += " (killed)" }
        log.append("\(step) \(member.rawValue) c\(club)\(faults.isDown ? " down" : ""): \(action) \(said)\(events.isEmpty ? "" : " [" + events.joined(separator: "; ") + "]")")
        if let traced = ProcessInfo.processInfo.environment["SIMULATION_TRACE"], !traced.isEmpty { await trace(traced) }
    }

    /// Where `text` is after this step (`SIMULATION_TRACE=TEXT`, for a replay): each club file
    /// and each draft or outbox item that holds it, in the log.
    func trace(_ text: String) async {
        var found: [String] = []
        for club in 0..<2 {
            for entry in (try? await checkers[club].listRecursively(folder)) ?? [] where entry.kind == .file {
                if let data = try? await checkers[club].read(entry.path).data, String(decoding: data, as: UTF8.self).contains(text) {
                    found.append("c\(club) \(entry.path)")
                }
            }
            for member in Member.allCases {
                let backend = backends[member]![club]
                for draft in backend.drafts.all() where draft.body.contains(text) { found.append("\(member.rawValue) c\(club) draft \(draft.id)") }
                for item in backend.outbox.all() where item.text?.contains(text) == true || item.path.contains(text) { found.append("\(member.rawValue) c\(club) queued \(item.kind.rawValue) \(item.path)") }
            }
        }
        log.append("  trace: \(found.isEmpty ? "nowhere" : found.joined(separator: ", "))")
    }

    /// The notes of `club` not deleted, as the history knows them.
    func liveNotes(_ club: Int) -> [Int] {
        notes.indices.filter { notes[$0].club == club && !notes[$0].deleted }
    }

    func editing(_ member: Member, _ club: Int, line: String?, typed: Box<Bool>, said: Box<[String]>, printed: Box<String?>) -> NoteEditing {
        let editor = NoteEditing.Editor(name: "sim-editor") { file in
            guard let line else { return .exited(0) }
            var text = (try? String(contentsOf: file, encoding: .utf8)) ?? ""
            if !text.isEmpty, !text.hasSuffix("\n") { text += "\n" }
            text += line + "\n"
            do { try Data(text.utf8).write(to: file) } catch { return .exited(1) }
            typed.value = true
            return .exited(0)
        }
        let clock = self.clock
        return NoteEditing(backend: backends[member]![club], clubFolder: folder, editor: editor,
                           say: { said.value.append($0) }, printPath: { printed.value = $0 }, ask: { _ in nil }, now: { clock.now })
    }

    /// The line a step writes: who, where and when, found again by the checker.
    func lineText(_ member: Member, _ club: Int) -> String { "line \(step) by \(member.rawValue) in club \(club == 0 ? "alpha" : "beta")" }

    /// What the shell's exit means for the line it was given.
    func told(_ outcome: Result<Void, any Error>, printed: String?) -> Told {
        switch outcome {
        case .success: return printed != nil ? .saved : .kept
        case .failure(let error as CommandStop) where error.exit == .deferred: return .queued
        case .failure: return .kept
        }
    }

    func edit(_ member: Member, _ club: Int, steered: Int? = nil) async -> String {
        let live = liveNotes(club)
        guard !live.isEmpty else { return "nothing to edit" }
        let note = steered.flatMap { live.contains($0) ? $0 : nil } ?? live[random.int(0...(live.count - 1))]
        let path = notes[note].path
        let text = lineText(member, club)
        let (typed, said, printed) = (Box(false), Box<[String]>([]), Box<String?>(nil))
        let editing = editing(member, club, line: text, typed: typed, said: said, printed: printed)
        let outcome: Result<Void, any Error>
        do {
            try await editing.edit(path: path, title: ((path as NSString).lastPathComponent as NSString).deletingPathExtension)
            outcome = .success(())
        } catch {
            outcome = .failure(error)
        }
        guard typed.value else { return "\(name(path)): not opened" }
        let told = faults[member]![club].state.withLock { $0.killed } ? .typed : self.told(outcome, printed: printed.value)
        if told == .typed || told == .queued { unconfirmed = (club, note, member) }
        lines.append(Line(text: text, club: club, member: member, step: step, note: note, told: told))
        if told == .saved, let landed = printed.value { await rehome(member, club, into: note, at: landed) } else { carry(member, club, into: note, at: path) }
        return "\(name(path)): \(told.rawValue)"
    }

    func create(_ member: Member, _ club: Int) async -> String {
        let title = titles[random.int(0...(titles.count - 1))] + (random.oneIn(2) ? "" : " \(step)")
        let path = "\(folder)/\(title).md"
        let text = lineText(member, club)
        let (typed, said, printed) = (Box(false), Box<[String]>([]), Box<String?>(nil))
        let editing = editing(member, club, line: text, typed: typed, said: said, printed: printed)
        let outcome: Result<Void, any Error>
        do {
            try await editing.create(NoteEditing.NewNote(path: path, title: title, template: nil))
            outcome = .success(())
        } catch {
            outcome = .failure(error)
        }
        guard typed.value else { return "\(title).md: not made" }
        let killed = faults[member]![club].state.withLock { $0.killed }
        let told = killed ? .typed : self.told(outcome, printed: printed.value)
        // The note the history follows: where the club put it, or where it is meant to go.
        let landed = printed.value ?? path
        let note: Int
        if let known = notes.firstIndex(where: { $0.club == club && !$0.deleted && $0.path.lowercased() == landed.lowercased() }) {
            note = known
        } else {
            notes.append(Note(club: club, path: landed))
            note = notes.count - 1
        }
        lines.append(Line(text: text, club: club, member: member, step: step, note: note, told: told))
        if told == .saved {
            // A new note there: whoever moved the one before it away has nothing to do with it.
            movedAway[club]![landed.lowercased()] = nil
            formerPaths[club]![landed.lowercased()] = nil
            await rehome(member, club, into: note, at: landed)
        } else {
            carry(member, club, into: note, at: landed)
        }
        return "\(title).md: \(told.rawValue)"
    }

    /// After a save that said so: the member's earlier lines that were not yet in the club and
    /// are in the note now (a draft resumed into it, a merge) were saved there, and go with it.
    func rehome(_ member: Member, _ club: Int, into note: Int, at path: String) async {
        guard let text = try? await checkers[club].read(path).data else { return }
        let now = String(decoding: text, as: UTF8.self)
        for index in lines.indices where lines[index].member == member && lines[index].club == club && lines[index].told != .saved
            && now.contains(lines[index].text + "\n") {
            lines[index].note = note
            lines[index].told = .saved
        }
    }

    /// After a change that waits (queued, or kept): the member's earlier lines not yet in the
    /// club that its outbox item for `path` holds now (a draft resumed into it) go with that note.
    func carry(_ member: Member, _ club: Int, into note: Int, at path: String) {
        let waiting = backends[member]![club].outbox.all().filter { $0.path.lowercased() == path.lowercased() }.compactMap(\.text)
        guard !waiting.isEmpty else { return }
        for index in lines.indices where lines[index].member == member && lines[index].club == club && lines[index].told != .saved
            && waiting.contains(where: { $0.contains(lines[index].text + "\n") }) {
            lines[index].note = note
        }
    }

    func send(_ member: Member, _ club: Int) async -> String {
        let reports = Box<[OutboxReport]>([])
        let run = await backends[member]![club].sendOutbox { report in reports.value.append(report) }
        for report in reports.value { check(report, member: member, club: club) }
        let ended: String
        switch run {
        case .done: ended = "done"
        case .busy: ended = "busy"
        case .stopped: ended = "stopped"
        }
        return "\(reports.value.count) sent, \(ended)"
    }

    /// A report's words must be true: a note is "deleted meanwhile" only when someone deleted
    /// it, not when this member moved it (the queue follows their own moves).
    func check(_ report: OutboxReport, member: Member, club: Int) {
        guard report.cause == .gone else { return }
        let path = report.item.path.lowercased()
        // Moved, then deleted where it went: deleted meanwhile is true.
        if let note = formerPaths[club]?[path], notes[note].deleted { return }
        if movedAway[club]?[path] == member, deletedPaths[club]?.contains(path) != true {
            // Moved on by another member from where this one moved it: a store that cannot say
            // where a note went (WebDAV keeps no history; an encrypted club's move is a copy and
            // a delete) can only say it is gone from there (seed 193 on WebDAV, `--shells app`).
            if backend != .club, movedOnByAnother(from: path, after: member, in: club) { return }
            broken.append("step \(step): \(member.rawValue) was told \(report.item.path) was deleted meanwhile; nobody deleted it (\(member.rawValue) moved it, and the queue follows their moves)")
        }
    }

    /// Whether the note `member` moved away from `path` was moved on by another member since,
    /// following `member`'s own moves of it first (they are the queue's to follow).
    func movedOnByAnother(from path: String, after member: Member, in club: Int) -> Bool {
        var at = path
        for _ in 0..<64 {
            guard let next = movedTo[club]?[at], let by = movedAway[club]?[next] else { return false }
            if by != member { return true }
            at = next
        }
        return false
    }

    func move(_ member: Member, _ club: Int, steered: Int? = nil) async -> String {
        let live = liveNotes(club)
        guard !live.isEmpty else { return "nothing to move" }
        let note = steered.flatMap { live.contains($0) ? $0 : nil } ?? live[random.int(0...(live.count - 1))]
        let from = notes[note].path
        let to = "\(folder)/\(titles[random.int(0...(titles.count - 1))]) \(step).md"
        do {
            let moved = try await backends[member]![club].writes.move(from: from, to: to)
            notes[note].path = moved.path
            movedAway[club]![from.lowercased()] = member
            formerPaths[club]![from.lowercased()] = note
            movedTo[club]![from.lowercased()] = moved.path.lowercased()
            return "\(name(from)) to \(name(moved.path))"
        } catch {
            // A move whose reply was lost went through all the same; its member does not know,
            // so their queue stays where it was.
            if case .network = error, let moved = try? await checkers[club].metadata(to) {
                notes[note].path = moved.path
                movedAway[club]![from.lowercased()] = nil
                formerPaths[club]![from.lowercased()] = note
            }
            return "\(name(from)): \(Self.short(error))"
        }
    }

    func delete(_ member: Member, _ club: Int) async -> String {
        let live = liveNotes(club)
        guard !live.isEmpty else { return "nothing to delete" }
        let note = live[random.int(0...(live.count - 1))]
        let path = notes[note].path
        do {
            _ = try await backends[member]![club].writes.delete(path)
            notes[note].deleted = true
            deletedPaths[club]!.insert(path.lowercased())
            return "\(name(path)): deleted"
        } catch {
            // Refused or unreachable; a delete whose reply was lost went through all the same.
            if case .network = error, (try? await checkers[club].metadata(path)) == nil {
                notes[note].deleted = true
                deletedPaths[club]!.insert(path.lowercased())
            }
            return "\(name(path)): \(Self.short(error))"
        }
    }

    func name(_ path: String) -> String { (path as NSString).lastPathComponent }

    static func short(_ error: any Error) -> String {
        switch error as? RemoteError {
        case .network: return "network"
        case .notFound: return "not found"
        case .conflict: return "conflict"
        case .waiting: return "waiting"
        case let other?: return other.message
        case nil: return "\(error)"
        }
    }

    /// How many lines the members wrote, and what they were told of them.
    public var tally: String {
        let counts = Dictionary(grouping: lines, by: \.told.rawValue).mapValues(\.count)
        return ["saved", "queued", "kept", "typed"].map { "\(counts[$0] ?? 0) \($0)" }.joined(separator: ", ")
    }
}

/// Simulated time: a second a step, from a fixed start.
final class SimulatedClock: Sendable {
    private let seconds = Mutex(0.0)
    var now: Date { Date(timeIntervalSince1970: 1_790_000_000 + seconds.withLock { $0 }) }
    func advance() { seconds.withLock { $0 += 1 } }
}

/// A value a `@Sendable` callback sets and the step reads after it: the simulation runs one
/// step at a time, so nothing else touches it meanwhile.
public final class Box<T>: @unchecked Sendable {
    // @unchecked Sendable: every access is under `lock`.
    private let lock = NSLock()
    private var stored: T
    public init(_ value: T) { stored = value }
    public var value: T {
        get { lock.withLock { stored } }
        set { lock.withLock { stored = newValue } }
    }
}
