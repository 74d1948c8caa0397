import ByteClubConfig
import ArgumentParser
import Foundation
import Remote

struct Watch: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Print each change in a folder as it happens.",
        discussion: """
            One line per change, as soon as the server tells: `added PATH`, `changed PATH`, \
            `deleted PATH` or `renamed OLD -> NEW` (a file or folder moved: one line, a folder's \
            for all it holds; folders end in /), with `by NAME` when the server says who made the \
            change. --json prints one JSON object per line instead: {"change", \
            "path_display","from_path_display","name","kind","rev","size","modified","modified_by","modified_by_id"}. Waits with \
            longpolls, so an idle watch costs the server nothing; on a WebDAV remote, which has \
            no longpoll, it looks every 10 s instead (one PROPFIND). When the server goes away it \
            says so on stderr and keeps trying, more slowly each time; when the server forgets \
            where the watch was (a reset), it lists the folder again and prints what differs. \
            Ctrl-C stops it.
            """)
    @Argument(help: "The folder: a path in the club's folder (default: the club's folder, what the app shows), /PATH or NAME:PATH.")
    var path: String = ""
    @Flag(help: "Print one JSON object per change, one per line.") var json = false
    @Flag(inversion: .prefixedNo, help: "Watch subfolders too (the photos, folders of notes).") var recursive = true
    @Option(help: "Seconds each longpoll waits at the server, 30 to 480.") var pollTimeout = 30
    @OptionGroup var backend: BackendOptions

    mutating func validate() throws {
        path = try backend.takeRemote(from: path)
        guard (30...480).contains(pollTimeout) else { throw ValidationError("--poll-timeout must be between 30 and 480 seconds") }
    }

    func run() async throws {
        let folder = backend.clubPath(path)
        let (json, recursive, pollTimeout) = (self.json, self.recursive, TimeInterval(self.pollTimeout))
        // Each request tries twice, then the loop below reports and waits: a dead server is said
        // out loud within a second, not after a minute of silent retries.
        var retry = RetryPolicy()
        retry.maxAttempts = 2
        try await runRemote(backend, retry: retry) { backend in
            var watcher = Watcher(store: backend.store, folder: folder, recursive: recursive, json: json, pollTimeout: pollTimeout)
            try await watcher.run()
        }
    }
}

/// The watch loop: a ``ChangeFeed`` (a cursor, then longpoll → changes → print) carried out
/// here, until cancelled.
struct Watcher {
    let store: any RemoteStore
    let folder: String
    let recursive: Bool
    let json: Bool
    var seen = SeenEntries()
    /// The first listing is taken as it is; later ones (after a reset) print what differs.
    var started = false
    /// The feed: failures wait 0.5 s doubling to 30 s; what waiting cannot mend ends the watch.
    var feed: ChangeFeed
    /// The listing taken with the last fresh cursor, until the feed says to take it.
    var listing: [RemoteEntry] = []
    /// Members' names, for "by NAME" and `modified_by`.
    let names: MemberNames

    init(store: any RemoteStore, folder: String, recursive: Bool, json: Bool, pollTimeout: TimeInterval) {
        self.store = store
        self.folder = folder
        self.recursive = recursive
        self.json = json
        // A page of deletions waits a moment for the rest of a move (its additions), as the app's lists do.
        feed = ChangeFeed(configuration: .init(pollTimeout: pollTimeout, backoff: Backoff(first: 0.5, longest: 30), moveWait: 0.1, ends: { error, _ in
            switch error {
            case .unauthorized, .notFound, .malformedPath, .notSupported, .local: return true
            default: return false
            }
        }))
        names = MemberNames(store: store)
    }

    /// Runs until the task is cancelled (Ctrl-C), which ends it cleanly, or an error that
    /// waiting cannot fix (a refused token, a missing folder), which it throws.
    mutating func run() async throws(RemoteError) {
        let clock = ContinuousClock(), origin = clock.now
        func now() -> Double {
            let (seconds, attoseconds) = (clock.now - origin).components
            return Double(seconds) + Double(attoseconds) / 1e18
        }
        var effects = feed.start(at: now())
        while !Task.isCancelled {
            var event: ChangeFeed.Event?
            var listed = false
            for effect in effects {
                switch effect {
                case .fetchCursor, .longpoll, .listChanges, .wait:
                    // The first listing is in: the watch has begun (said once, after what came with it).
                    if listed, !started {
                        say("watching \(shown)\(recursive ? " and its subfolders" : "") (Ctrl-C stops)")
                        started = true
                    }
                    event = await outcome(of: effect)
                case .fresh:
                    let lines = seen.replace(with: listing)
                    listing = []
                    if started { for line in lines { await emit(line) } }
                    listed = true
                case .deliver(let changes, _, _):
                    for line in seen.apply(page: changes) { await emit(line) }
                case .reset:
                    say("the server reset the watch; listing \(shown) again")
                case .failing(let error, let wait, _):
                    say("\(error.message); trying again in \(wait < 1 ? String(format: "%.1f", wait) : String(Int(wait))) s")
                case .recovered:
                    say("connected again")
                case .end(let error):
                    throw error
                }
            }
            // Cancelled (a request answered `.cancelled`, or a wait was cut): the watch ends.
            guard let event else { return }
            effects = feed.handle(event, at: now())
        }
    }

    /// Carries out a request or a wait of the feed: what happened, or nil when cancelled
    /// during a wait. A fresh cursor comes with the listing at it (kept for ``ChangeFeed/Effect/fresh(_:)``).
    private mutating func outcome(of effect: ChangeFeed.Effect) async -> ChangeFeed.Event? {
        do throws(RemoteError) {
            switch effect {
            case .fetchCursor:
                let (fresh, entries) = try await freshListing()
                listing = entries
                return .cursor(fresh)
            case .longpoll(let cursor, let timeout):
                return .answered(try await store.longpoll(cursor, timeout: timeout))
            case .listChanges(let cursor, _):
                return .changes(try await store.listChanges(since: cursor))
            case .wait(let seconds, let token):
                do { try await pause(seconds) } catch { return nil }
                return .waited(token: token)
            default:
                return nil
            }
        } catch {
            return .failed(error)
        }
    }

    private var shown: String { folder.isEmpty ? "/" : folder }

    /// A fresh cursor, then the listing (in that order, so nothing between them is missed:
    /// a change made meanwhile comes again as a change, and is printed only if it is news).
    private func freshListing() async throws(RemoteError) -> (RemoteCursor, [RemoteEntry]) {
        let fresh = try await store.latestCursor(folder, recursive: recursive)
        let entries: [RemoteEntry]
        if let dropbox = store as? DropboxStore {
            entries = try await dropbox.listAll(folder, recursive: recursive)
        } else if let webdav = store as? WebDAVStore {
            entries = try await webdav.listAll(folder, recursive: recursive)
        } else {
            entries = try await store.list(folder)
        }
        return (fresh, entries)
    }

    private func pause(_ seconds: TimeInterval) async throws(RemoteError) {
        do { try await Task.sleep(for: .milliseconds(Int(seconds * 1000))) } catch { throw .cancelled }
    }

    /// One line to stdout, at once (stdout is written unbuffered, so a pipe sees it now).
    private func emit(_ line: SeenEntries.Line) async {
        let known = await names.names(for: [line.entry?.modifiedBy, line.by])
        if json {
            guard let data = try? CLIJSON.encode(line.json(names: known)) else { return }
            FileHandle.standardOutput.write(data + Data("\n".utf8))
        } else {
            let by = MemberNames.shown(line.by, names: known)
            FileHandle.standardOutput.write(Data((line.text + (by.map { " by " + TerminalSafe.escape($0) } ?? "") + "\n").utf8))
        }
    }
}

extension SeenEntries.Line {
    func json(names: [String: String]) -> ChangeJSON {
        ChangeJSON(change: change.rawValue, pathDisplay: path, fromPathDisplay: from, name: entry?.name ?? String(path.split(separator: "/").last ?? ""),
                   kind: entry.map { $0.kind.rawValue }, rev: entry?.rev, size: entry?.kind == .file ? entry?.size : nil,
                   modified: entry?.modified, modifiedBy: MemberNames.shown(entry?.modifiedBy, names: names), modifiedById: entry?.modifiedBy)
    }
}

/// A change as `watch --json` prints it (``CLIJSON``'s names), every field present: null when
/// unknown (a deletion knows only its path and name; only a rename has a `from_path_display`),
/// as docs/cli.md and watch.schema.json say.
struct ChangeJSON: Encodable {
    var change: String
    var pathDisplay: String
    /// A rename's path before it.
    var fromPathDisplay: String?
    var name: String
    var kind: String?
    var rev: String?
    var size: Int64?
    var modified: Date?
    var modifiedBy: String?
    var modifiedById: String?

    /// Nulls written out (a synthesized encoder leaves nil fields out).
    func encode(to encoder: any Encoder) throws {
        var object = encoder.container(keyedBy: CodingKeys.self)
        try object.encode(change, forKey: .change)
        try object.encode(pathDisplay, forKey: .pathDisplay)
        try object.encode(fromPathDisplay, forKey: .fromPathDisplay)
        try object.encode(name, forKey: .name)
        try object.encode(kind, forKey: .kind)
        try object.encode(rev, forKey: .rev)
        try object.encode(size, forKey: .size)
        try object.encode(modified, forKey: .modified)
        try object.encode(modifiedBy, forKey: .modifiedBy)
        try object.encode(modifiedById, forKey: .modifiedById)
    }

    enum CodingKeys: String, CodingKey {
        case change, pathDisplay, fromPathDisplay, name, kind, rev, size, modified, modifiedBy, modifiedById
    }
}
