import ByteClubConfig
import ArgumentParser
import ClubKit
import Foundation
import Remote

struct Watch: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "watch",
        abstract: "Print each change in a folder as it happens.",
        discussion: """
            One line per change, as soon as the server tells: `added PATH`, `changed PATH`, \
            `deleted PATH` or `renamed OLD -> NEW` (a file or folder moved: one line, a folder's \
            for all it holds; folders end in /), with `by NAME` when the server says who made the \
            change. --json prints one JSON object per line instead: {"change", \
            "path_display","from_path_display","name","kind","rev","size","modified","modified_by","modified_by_id"}. Waits with \
            longpolls, so an idle watch costs the server nothing; on a WebDAV remote, which has \
            no longpoll, it looks every 10 s instead (one PROPFIND) and prints what differs between \
            two looks: a change undone before the next look is not seen. When the server goes away it \
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
            let names = backend.names
            let shown = folder.isEmpty ? "/" : folder
            let how = backend.watchComparesListings
                ? " by comparing listings (WebDAV keeps no feed of changes: one undone before the next look is not seen)" : ""
            var watcher = backend.watcher(of: folder, recursive: recursive, pollTimeout: pollTimeout) { notice in
                switch notice {
                case .started: say("watching \(shown)\(recursive ? " and its subfolders" : "")\(how) (Ctrl-C stops)")
                case .change(let line): await Self.emit(line, names: names, json: json)
                case .reset: say("the server reset the watch; listing \(shown) again")
                case .failing(let error, let wait): say("\(error.message); trying again in \(wait < 1 ? String(format: "%.1f", wait) : String(Int(wait))) s")
                case .recovered: say("connected again")
                }
            }
            try await watcher.run()
        }
    }

    /// One line to stdout, at once (stdout is written unbuffered, so a pipe sees it now).
    private static func emit(_ line: SeenEntries.Line, names: MemberNames, json: Bool) async {
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
                   kind: entry.map { $0.kind.rawValue }, rev: entry?.shownRev, size: entry?.kind == .file ? entry?.size : nil,
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
