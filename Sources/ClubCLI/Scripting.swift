import ByteClubConfig
import Agent
import ArgumentParser
import AsyncAlgorithms
import ClubKit
import Foundation
import DropboxWire
import Remote
import TerminalUI

/// Runs a remote operation for a command: Ctrl-C cancels it and exits 130 (``Interrupt``),
/// errors print one sentence to stderr and exit with their code (``Exit``), and the embedded
/// server is stopped on every path.
///
/// `retry` is how long each request keeps trying before its error reaches `body` (by default
/// the command's one policy, ``commandRetry``, whose waits all of its connections share);
/// `offlineStart` gives a backend even when a WebDAV server cannot be reached (`search`);
/// `path` is what the command works on, named in errors whose answer does not name it.
func runRemote(_ options: BackendOptions, retry: RetryPolicy = commandRetry, offlineStart: Bool = false, path: String? = nil,
               _ body: @escaping @Sendable (Backend) async throws -> Void) async throws {
    StderrLog.bootstrap()
    let backend: Backend
    do {
        backend = try await Interrupt.run { try await options.connect(retry: retry, offlineStart: offlineStart) }
    } catch let error as RemoteError {
        throw fail(error, path: path)
    }
    let result: Result<Void, any Error>
    do {
        try await Interrupt.run { try await body(backend) }
        result = .success(())
    } catch {
        result = .failure(error)
    }
    await backend.close()
    // A read that showed less than was asked (an encrypted club's refused newest version) says so.
    for notice in backend.takeNotices() {
        FileHandle.standardError.write(Data("byteclub: \(notice)\n".utf8))
    }
    switch result {
    case .success:
        return
    case .failure(let error as RemoteError):
        throw fail(error, path: path)
    case .failure(let stop as CommandStop):
        // The core said why already: the status is what is left.
        throw stop.exit.code
    case .failure(let error):
        throw error
    }
}

/// The tries of a command's requests, one policy for the whole process: a command that connects
/// twice (`get` finds the note, then downloads it) waits out a server that fails, or learns one
/// refuses, once, within `--timeout` in all (Remote's `RetryBudget`).
let commandRetry = RetryPolicy()

/// A one-line progress bar on stderr, only when stderr is a terminal.
final class ProgressLine: @unchecked Sendable {
    // @unchecked Sendable: all mutable state is guarded by `lock`.
    private let lock = NSLock()
    private let label: String
    private let enabled = isatty(2) == 1
    private let start = Date()
    private var lastDraw = Date.distantPast

    init(_ label: String) { self.label = label }

    func update(_ done: Int64, _ total: Int64) {
        guard enabled else { return }
        lock.lock()
        defer { lock.unlock() }
        let now = Date()
        guard now.timeIntervalSince(lastDraw) >= 0.1 || (total > 0 && done >= total) else { return }
        lastDraw = now
        let elapsed = max(0.001, now.timeIntervalSince(start))
        let rate = Double(done) / elapsed
        var line = "\r\(label) "
        if total > 0 {
            let fraction = min(1, Double(done) / Double(total))
            let filled = Int(fraction * 24)
            line += "[" + String(repeating: "█", count: filled) + String(repeating: "·", count: 24 - filled) + "] "
            line += String(format: "%3d%% ", Int(fraction * 100))
            line += "\(Self.bytes(done)) / \(Self.bytes(total))  \(Self.bytes(Int64(rate)))/s"
            if rate > 0 && done < total {
                let eta = Int(Double(total - done) / rate)
                line += String(format: "  ETA %d:%02d", eta / 60, eta % 60)
            }
        } else {
            line += "\(Self.bytes(done))  \(Self.bytes(Int64(rate)))/s"
        }
        FileHandle.standardError.write(Data((line + "\u{1B}[K").utf8))
    }

    func finish() {
        guard enabled else { return }
        FileHandle.standardError.write(Data("\r\u{1B}[K".utf8))
    }

    static func bytes(_ count: Int64) -> String { ByteFormat.size(count) }
}

/// The file a note's path or title names in the club (``NoteName``, by the app's rules: a
/// title in any folder, nearest the club folder first); two notes of that title as near are a
/// usage error that names both.
func notePath(_ path: String, on backend: Backend) async throws -> String {
    switch await backend.findNote(path) {
    case .path(let found):
        return found
    case .ambiguous(let paths):
        say("\(path) could be \(paths.joined(separator: " or ")); give the whole path")
        throw Exit.usage.code
    }
}

/// Writes "byteclub: message" to stderr, one line, through the one sanitizer: the message often
/// holds a name, a path or an error body from the server, whose control characters would act on
/// the terminal (``TerminalSafe``: `ESC` is shown as `\x1b`).
public func say(_ message: String) {
    CLIError.said(message)
    FileHandle.standardError.write(Data("byteclub: \(TerminalSafe.escape(message))\n".utf8))
}

struct Ls: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "ls",
        abstract: "List a folder.",
        discussion: """
            Each page is printed as it arrives (sorted within the page; a club server sends its pages \
            in order), so a club or Dropbox folder of any size lists in constant memory (WebDAV \
            answers a folder in one piece). A listing that never ends stops after 1,000,000 entries \
            with an error on stderr and a non-zero exit.
            """)
    @Argument(help: "The folder: a path in the club's folder (default: the club's folder, the notes), /PATH from the remote's root, or NAME:PATH on the remote NAME of config.toml.")
    var path: String = ""
    @Flag(help: "Print JSON, one array of entries.") var json = false
    @Option(help: "List only the files with this tag or a tag nested under it (`project` lists `project/alpha`; see `byteclub tag`), in every folder under the folder listed: the whole club unless a folder is given.")
    var tag: String?
    @Option(help: "With --tag: look only in this folder and the folders in it (as the folder argument: a path in the club's folder, /PATH or NAME:PATH).")
    var folder: String?
    @OptionGroup var backend: BackendOptions

    mutating func validate() throws {
        path = try backend.takeRemote(from: path)
        if let tag { do { _ = try TagText.normalised(tag) } catch { throw ValidationError(error.description) } }
        if let folder {
            guard tag != nil else { throw ValidationError("--folder goes with --tag; to list a folder, name it: byteclub ls \(folder)") }
            guard path.isEmpty else { throw ValidationError("give the folder once: byteclub ls --tag \(tag ?? "") --folder \(folder)") }
            path = try backend.takeRemote(from: folder)
            self.folder = nil
        }
    }

    func run() async throws {
        let path = backend.clubPath(self.path)
        let json = self.json
        let tag = try self.tag.map { text in try TagText.normalised(text) }
        try await runRemote(backend, path: path) { backend in
            let printer = ListingPrinter(json: json, names: backend.names)
            if let tag {
                do {
                    return try await Ls.listTagged(path, tag: tag, json: json, on: backend)
                } catch RemoteError.notFound where backend.isClubFolder(path) {
                    // A club's folder not made yet holds nothing, tagged or not.
                    return await printer.finish()
                }
            }
            // One page is printed (its members' names asked for first) while the next is
            // decoded, and no more wait: a printer slower than the server holds up the listing
            // instead of queueing its pages (an unbounded stream once did).
            let pages = AsyncChannel<[RemoteEntry]>()
            async let printed: Void = { for await page in pages { await printer.print(page) } }()
            do {
                // The club's own folder before anything was put in it lists empty (ClubKit).
                try await backend.forEachPage(of: path) { await pages.send($0) }
            } catch {
                pages.finish()
                await printed
                throw error
            }
            pages.finish()
            await printed
            await printer.finish()
        }
    }
}

/// `ls`'s output, written a page at a time: nothing of a page is kept once it is printed.
///
/// With `--json` the pages make one array, byte for byte what encoding the whole listing at
/// once gives; a listing stopped by an error leaves the array open (and exits non-zero).
actor ListingPrinter {
    private let json: Bool
    private let names: MemberNames
    /// The folder a listing of many folders is under (`ls --tag`): each line names its file by
    /// the path from there (`Trips/Day one.md`); nil names each by its name.
    private let folder: String?
    private let formatter = JSONLines.localTimeFormatter()
    private var opened = false
    private let output = FileHandle.standardOutput

    init(json: Bool, names: MemberNames, under folder: String? = nil) {
        self.json = json
        self.names = names
        self.folder = folder
    }

    func print(_ page: [RemoteEntry]) async {
        guard !page.isEmpty else { return }
        let sorted = page.sorted { $0.pathLower < $1.pathLower }
        guard json else {
            output.write(Data(sorted.map(line).joined().utf8))
            return
        }
        // The names exactly, as JSON escapes them (ESC is \u001b); DEL and C1, which encoders
        // leave raw, are escaped too, so even JSON is safe on a terminal.
        let known = await names.names(for: sorted.map(\.modifiedBy))
        // A few hundred entries at a time: JSONEncoder builds the whole value's tree before
        // writing a byte, some MiB for a 2,000-entry page.
        for start in stride(from: 0, to: sorted.count, by: 250) {
            let slice = sorted[start..<min(start + 250, sorted.count)]
            guard let array = try? CLIJSON.encode(slice.map { EntryJSON($0, names: known) }), array.count >= 2 else { return }
            output.write(Data((opened ? "," : "[").utf8))
            output.write(array.dropFirst().dropLast())
            opened = true
        }
    }

    func finish() {
        guard json else { return }
        output.write(Data((opened ? "]\n" : "[]\n").utf8))
    }

    private func line(_ entry: RemoteEntry) -> String {
        let size = entry.kind == .folder ? "-" : ProgressLine.bytes(entry.size)
        let date = entry.modified.map(minute) ?? ""
        // Names from the server, shown as `ls -b` would: control characters as `\x1b`.
        let name = TerminalSafe.escape(entry.kind == .folder ? shownName(entry) + "/" : shownName(entry))
        return Self.padded(size, to: 10) + "  " + Self.padded(date, to: 16) + "  " + name + "\n"
    }

    /// The minutes shown so far: a club's files share a few, and a `DateFormatter` call per line
    /// was a tenth of `ls`'s time for 100,000 files.
    private var minutes: [Int64: String] = [:]

    private func minute(_ date: Date) -> String {
        let key = Int64((date.timeIntervalSince1970 / 60).rounded(.down))
        if let known = minutes[key] { return known }
        let text = formatter.string(from: date)
        if minutes.count < 100_000 { minutes[key] = text }
        return text
    }

    /// `text` with spaces after it up to `width` characters (as `padding(toLength:)`, without
    /// its trip through NSString; never cut: the texts here are shorter or are kept whole).
    static func padded(_ text: String, to width: Int) -> String {
        let count = text.count
        return count >= width ? text : text + String(repeating: " ", count: width - count)
    }

    /// The entry's name, or its path from ``folder`` when the listing spans folders.
    private func shownName(_ entry: RemoteEntry) -> String {
        guard let folder else { return entry.name }
        let depth = folder.split(separator: "/").count
        let parts = entry.path.split(separator: "/")
        guard parts.count > depth else { return entry.name }
        return parts.dropFirst(depth).joined(separator: "/")
    }
}

struct Rm: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "rm",
        abstract: "Delete a file or folder (a folder that holds files with -r).",
        discussion: """
            A folder that holds files is deleted only with -r, as rm and rclone's purge do: without \
            it, byteclub says how many files it holds and deletes nothing (exit 64). An empty \
            folder needs no -r. A club server and Dropbox keep the history of what is deleted; \
            WebDAV keeps none, and -r there says, on stderr, that the deletion cannot be undone.
            """)
    @Argument(help: "What to delete: a path in the club's folder, a note's title, /PATH or NAME:PATH.") var path: String
    @Flag(name: [.customShort("r"), .long], help: "Delete a folder and everything in it.") var recursive = false
    @Flag(help: "Print the deleted file's or folder's metadata (as it was) as JSON; without it rm prints nothing.") var json = false
    @OptionGroup var backend: BackendOptions

    mutating func validate() throws {
        path = try backend.takeRemote(from: path)
    }

    func run() async throws {
        let typed = backend.clubPath(path)
        guard !typed.isEmpty else { throw ValidationError("refusing to delete the root") }
        guard typed.lowercased() != backend.clubFolder.lowercased() else {
            throw ValidationError("refusing to delete the club's folder \(typed) itself; name what is in it")
        }
        let (recursive, json) = (self.recursive, self.json)
        try await runRemote(backend, path: typed) { backend in
            let target = try await notePath(typed, on: backend)
            // One rule for every backend (ClubKit's ``Removal``): a folder that holds files
            // needs -r, and where nothing is kept, that is said before it goes.
            let removal = try await backend.removal(of: target)
            if let refusal = removal.refusal(recursive: recursive) {
                say(refusal)
                throw Exit.usage.code
            }
            if let warning = removal.warning { say(warning) }
            // Through the write path the app uses: refused while queued changes write into it.
            let deleted = try await backend.writes.delete(removal.path)
            if json { try await printEntry(deleted, on: backend) }
        }
    }
}

struct Mv: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "mv",
        abstract: "Move or rename a file or folder.",
        discussion: """
            With --update-links, the club's notes whose links led into what moved ([[Title]], \
            [[Folder/Title]], [[Title|alias]], [[Title#heading]], Markdown links with or without <> \
            and %20) are rewritten to its new place, as the app's R and m do; each is saved over \
            the version read, so a note changed meanwhile is left as it was and named (exit 4).
            """)
    @Argument(help: "From: a path in the club's folder, a note's title, /PATH or NAME:PATH.") var from: String
    @Argument(help: "To, on the same remote.") var to: String
    @Flag(help: "If the name is taken, pick a free one instead of failing.") var autorename = false
    @Flag(help: "Rewrite the links into what moved in the club's other notes.") var updateLinks = false
    @Flag(help: "Print the moved file's metadata as JSON instead of its path.") var json = false
    @OptionGroup var backend: BackendOptions

    mutating func validate() throws {
        from = try backend.takeRemote(from: from)
        to = try backend.takeRemote(from: to)
    }

    func run() async throws {
        let typed = backend.clubPath(self.from)
        let named = backend.clubPath(self.to)
        // `mv a.md Folder/` moves into the folder, as `put a.md Folder/` puts into it.
        let into = self.to.hasSuffix("/") || self.to.isEmpty || named.isEmpty
        let (autorename, json, updateLinks) = (self.autorename, self.json, self.updateLinks)
        let incomplete = Carried(false)
        try await runRemote(backend, path: typed) { backend in
            let from = try await notePath(typed, on: backend)
            // The club as it was: what the links led to before the move.
            let before = updateLinks ? try await backend.listRecursively(backend.folder).filter { $0.kind == .file } : []
            let name = (from as NSString).lastPathComponent
            var to = into ? named + "/" + name : named
            let entry: RemoteEntry
            do {
                do {
                    entry = try await backend.writes.move(from: from, to: to, autorename: autorename)
                } catch RemoteError.conflict where !into {
                    // A folder of that name, written without its slash: into it, as mv(1) does.
                    guard (try? await backend.metadata(to))?.kind == .folder else { throw RemoteError.conflict(to) }
                    to += "/" + name
                    entry = try await backend.writes.move(from: from, to: to, autorename: autorename)
                }
            } catch RemoteError.conflict {
                say("\(to) already exists; choose another name or add --autorename")
                throw Exit.conflict.code
            }
            if json { try await printEntry(entry, on: backend) } else {
                FileHandle.standardOutput.write(Data("\(TerminalSafe.escape(entry.path))\n".utf8))
            }
            guard updateLinks else { return }
            let report = try await backend.updateLinks(from: from, to: entry.path, entries: before)
            say(report.summary)
            incomplete.set(!report.isComplete)
        }
        if incomplete.value { throw Exit.conflict.code }
    }
}
