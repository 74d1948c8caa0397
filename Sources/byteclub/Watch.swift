import ByteClubConfig
import ArgumentParser
import Foundation
import Remote

struct Watch: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Print each change in a folder as it happens.",
        discussion: """
            One line per change, as soon as the server tells: `added PATH`, `changed PATH` or \
            `deleted PATH` (folders end in /), with `by NAME` after a file when the server says who \
            made the change. --json prints one JSON object per line instead: {"change", \
            "path_display","name","kind","rev","size","modified","modified_by","modified_by_id"}. Waits with \
            longpolls, so an idle watch costs the server nothing; on a WebDAV remote, which has \
            no longpoll, it looks every 10 s instead (one PROPFIND). When the server goes away it \
            says so on stderr and keeps trying, more slowly each time; when the server forgets \
            where the watch was (a reset), it lists the folder again and prints what differs. \
            Ctrl-C stops it.
            """)
    @Argument(help: "The folder, e.g. /byteclub (default: the root).") var path: String = ""
    @Flag(help: "Print one JSON object per change, one per line.") var json = false
    @Flag(help: "Watch subfolders too.") var recursive = false
    @Option(help: "Seconds each longpoll waits at the server, 30 to 480.") var pollTimeout = 30
    @OptionGroup var backend: BackendOptions

    func validate() throws {
        guard (30...480).contains(pollTimeout) else { throw ValidationError("--poll-timeout must be between 30 and 480 seconds") }
    }

    func run() async throws {
        let folder = remotePath(path)
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

/// The watch loop: a cursor, then longpoll → changes → print, until cancelled.
struct Watcher {
    let store: any RemoteStore
    let folder: String
    let recursive: Bool
    let json: Bool
    let pollTimeout: TimeInterval
    var seen = SeenEntries()
    var cursor: RemoteCursor?
    /// The first listing is taken as it is; later ones (after a reset) print what differs.
    var started = false
    /// Failures in a row; the wait after each grows from 0.5 s to 30 s.
    var failures = 0
    /// Resets with no change page or longpoll answered between them: a server that resets
    /// every fresh cursor is waited on like a failing one, not listed in a tight loop.
    var resetsInARow = 0
    /// Members' names, for "by NAME" and `modified_by`.
    let names: MemberNames

    init(store: any RemoteStore, folder: String, recursive: Bool, json: Bool, pollTimeout: TimeInterval) {
        self.store = store
        self.folder = folder
        self.recursive = recursive
        self.json = json
        self.pollTimeout = pollTimeout
        names = MemberNames(store: store)
    }

    /// Runs until the task is cancelled (Ctrl-C), which ends it cleanly, or an error that
    /// waiting cannot fix (a refused token, a missing folder), which it throws.
    mutating func run() async throws(RemoteError) {
        var catchUp = false
        while !Task.isCancelled {
            do throws(RemoteError) {
                guard let cursor else {
                    try await start(printingDifferences: started)
                    if !started { say("watching \(shown)\(recursive ? " and its subfolders" : "") (Ctrl-C stops)") }
                    started = true
                    catchUp = false
                    continue
                }
                if catchUp {
                    let delta = try await store.listChanges(since: cursor)
                    for change in delta.changes { if let line = seen.apply(change) { await emit(line) } }
                    self.cursor = delta.cursor
                    catchUp = false
                    resetsInARow = 0
                    recovered()
                }
                guard let current = self.cursor else { continue }
                let began = ContinuousClock.now
                let answer = try await store.longpoll(current, timeout: pollTimeout)
                resetsInARow = 0
                recovered()
                catchUp = answer.changes
                // A server that answers "nothing" at once, without asking for a backoff, would
                // otherwise be asked again in a tight loop.
                if !answer.changes && answer.backoff == nil && ContinuousClock.now - began < .seconds(1) {
                    try await pause(1)
                }
            } catch .cancelled {
                return
            } catch .cursorReset {
                say("the server reset the watch; listing \(shown) again")
                // The top of the loop lists again and prints what differs.
                cursor = nil
                resetsInARow += 1
                if resetsInARow > 1 { guard try await failed(.cursorReset) else { return } }
            } catch {
                // What waiting alone will not mend (a 400 for a cursor the server gave) starts
                // over from a fresh cursor once the wait is over.
                if !error.isTransient { cursor = nil }
                catchUp = cursor != nil
                guard try await failed(error) else { return }
            }
        }
    }

    private var shown: String { folder.isEmpty ? "/" : folder }

    /// A fresh cursor, then the listing (in that order, so nothing between them is missed:
    /// a change made meanwhile comes again as a change, and is printed only if it is news).
    private mutating func start(printingDifferences: Bool) async throws(RemoteError) {
        let fresh = try await store.latestCursor(folder, recursive: recursive)
        let entries: [RemoteEntry]
        if let dropbox = store as? DropboxStore {
            entries = try await dropbox.listAll(folder, recursive: recursive)
        } else if let webdav = store as? WebDAVStore {
            entries = try await webdav.listAll(folder, recursive: recursive)
        } else {
            entries = try await store.list(folder)
        }
        let lines = seen.replace(with: entries)
        if printingDifferences { for line in lines { await emit(line) } }
        cursor = fresh
        recovered()
    }

    /// Says the error and waits before trying again: true to go on, false when cancelled
    /// meanwhile. Errors that waiting will not fix are thrown.
    private mutating func failed(_ error: RemoteError) async throws(RemoteError) -> Bool {
        switch error {
        case .unauthorized, .notFound, .malformedPath, .notSupported, .local:
            throw error
        default:
            break
        }
        failures += 1
        let wait = min(30, 0.5 * pow(2, Double(failures - 1)))
        say("\(error.message); trying again in \(wait < 1 ? String(format: "%.1f", wait) : String(Int(wait))) s")
        do { try await pause(wait) } catch { return false }
        return true
    }

    private mutating func recovered() {
        if failures > 0 { say("connected again") }
        failures = 0
    }

    private func pause(_ seconds: TimeInterval) async throws(RemoteError) {
        do { try await Task.sleep(for: .milliseconds(Int(seconds * 1000))) } catch { throw .cancelled }
    }

    /// One line to stdout, at once (stdout is written unbuffered, so a pipe sees it now).
    private func emit(_ line: SeenEntries.Line) async {
        let known = await names.names(for: [line.entry?.modifiedBy])
        if json {
            guard let data = try? CLIJSON.encode(line.json(names: known)) else { return }
            FileHandle.standardOutput.write(data + Data("\n".utf8))
        } else {
            let by = line.isFolder ? nil : MemberNames.shown(line.entry?.modifiedBy, names: known)
            FileHandle.standardOutput.write(Data((line.text + (by.map { " by " + TerminalSafe.escape($0) } ?? "") + "\n").utf8))
        }
    }
}

/// What the watch has seen: each path's rev (nil for folders), to tell `added` from `changed`
/// and to drop changes that are no news. A value with no I/O.
struct SeenEntries {
    /// By lower-case path: the path as displayed, and the rev (nil for folders).
    private var known: [String: (path: String, rev: String?)] = [:]

    /// One printed change.
    struct Line: Equatable {
        enum Change: String { case added, changed, deleted }
        var change: Change
        var path: String
        var entry: RemoteEntry?
        var isFolder: Bool { entry?.kind == .folder }

        /// `added /byteclub/a.txt`, with control characters escaped (the path is the server's).
        var text: String {
            change.rawValue + " " + TerminalSafe.escape(path + (isFolder ? "/" : ""))
        }

        func json(names: [String: String]) -> ChangeJSON {
            ChangeJSON(change: change.rawValue, pathDisplay: path, name: entry?.name ?? String(path.split(separator: "/").last ?? ""),
                       kind: entry.map { $0.kind.rawValue }, rev: entry?.rev, size: entry?.kind == .file ? entry?.size : nil,
                       modified: entry?.modified, modifiedBy: MemberNames.shown(entry?.modifiedBy, names: names), modifiedById: entry?.modifiedBy)
        }
    }

    /// A change from the server, as a line, or nil when it is no news (a rev already seen, a
    /// folder already there, a deletion of something never seen).
    mutating func apply(_ change: RemoteChange) -> Line? {
        switch change {
        case .updated(let entry):
            let before = known[entry.pathLower]
            known[entry.pathLower] = (entry.path, entry.rev)
            guard let before else { return Line(change: .added, path: entry.path, entry: entry) }
            if entry.kind == .folder || before.rev == entry.rev { return nil }
            return Line(change: .changed, path: entry.path, entry: entry)
        case .deleted(_, let path, let pathLower):
            // A deleted folder takes everything under it along, and is news if anything seen
            // was under it: the watched folder itself is never listed, but its deletion must
            // not pass in silence.
            let prefix = pathLower + "/"
            let under = known.keys.filter { $0.hasPrefix(prefix) }
            for key in under { known[key] = nil }
            guard known.removeValue(forKey: pathLower) != nil || !under.isEmpty else { return nil }
            return Line(change: .deleted, path: path, entry: nil)
        }
    }

    /// Takes a fresh listing as the whole truth, and answers how it differs from what was seen.
    mutating func replace(with entries: [RemoteEntry]) -> [Line] {
        var lines: [Line] = []
        var fresh: [String: (path: String, rev: String?)] = [:]
        for entry in entries.sorted(by: { $0.pathLower < $1.pathLower }) {
            fresh[entry.pathLower] = (entry.path, entry.rev)
            if let before = known[entry.pathLower] {
                if entry.kind == .file && before.rev != entry.rev { lines.append(Line(change: .changed, path: entry.path, entry: entry)) }
            } else {
                lines.append(Line(change: .added, path: entry.path, entry: entry))
            }
        }
        for key in known.keys.sorted() where fresh[key] == nil {
            lines.append(Line(change: .deleted, path: known[key]?.path ?? key, entry: nil))
        }
        known = fresh
        return lines
    }
}

/// A change as `watch --json` prints it (``CLIJSON``'s names).
struct ChangeJSON: Encodable {
    var change: String
    var pathDisplay: String
    var name: String
    var kind: String?
    var rev: String?
    var size: Int64?
    var modified: Date?
    var modifiedBy: String?
    var modifiedById: String?
}
