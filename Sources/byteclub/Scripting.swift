import ByteClubConfig
import Agent
import ArgumentParser
import Foundation
import DropboxWire
import Remote

/// Runs a remote operation for a command: Ctrl-C cancels it, errors print one line to stderr
/// and exit non-zero, and the embedded server is stopped on every path.
///
/// `retry` is how long each request keeps trying before its error reaches `body`;
/// `offlineStart` gives a backend even when a WebDAV server cannot be reached (`search`).
func runRemote(_ options: BackendOptions, retry: RetryPolicy = RetryPolicy(), offlineStart: Bool = false,
               _ body: @escaping @Sendable (Backend) async throws -> Void) async throws {
    StderrLog.bootstrap()
    let backend: Backend
    do {
        backend = try await options.connect(retry: retry, offlineStart: offlineStart)
    } catch let error as RemoteError {
        throw fail(error)
    }
    let work = Task { try await body(backend) }
    signal(SIGINT, SIG_IGN)
    let interrupt = DispatchSource.makeSignalSource(signal: SIGINT, queue: .global())
    interrupt.setEventHandler { work.cancel() }
    interrupt.activate()
    defer { interrupt.cancel() }
    let result = await work.result
    await backend.close()
    switch result {
    case .success:
        return
    case .failure(let error as RemoteError):
        throw fail(error)
    case .failure(let error):
        throw error
    }
}

/// Prints "byteclub: message" and picks an exit code a script can branch on.
func fail(_ error: RemoteError) -> ExitCode {
    say(error.message)
    switch error {
    case .notFound: return ExitCode(3)
    case .conflict: return ExitCode(4)
    case .unauthorized: return ExitCode(5)
    case .network, .gateway, .rateLimited, .server: return ExitCode(6)
    case .cancelled: return ExitCode(130)
    default: return ExitCode(1)
    }
}

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

    static func bytes(_ count: Int64) -> String {
        let units = ["B", "KiB", "MiB", "GiB", "TiB"]
        var value = Double(count)
        var unit = 0
        while value >= 1024 && unit < units.count - 1 {
            value /= 1024
            unit += 1
        }
        return unit == 0 ? "\(count) B" : String(format: "%.1f %@", value, units[unit])
    }
}

/// Writes "byteclub: message" to stderr, one line, through the one sanitizer: the message often
/// holds a name, a path or an error body from the server, whose control characters would act on
/// the terminal (``TerminalSafe``: `ESC` is shown as `\x1b`).
func say(_ message: String) {
    FileHandle.standardError.write(Data("byteclub: \(TerminalSafe.escape(message))\n".utf8))
}

struct Ls: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "List a folder.",
        discussion: """
            Each page is printed as it arrives (sorted within the page; a club server sends its pages \
            in order), so a club or Dropbox folder of any size lists in constant memory (WebDAV \
            answers a folder in one piece). A listing that never ends stops after 1,000,000 entries \
            with an error on stderr and a non-zero exit.
            """)
    @Argument(help: "The folder, e.g. /byteclub (default: the root).") var path: String = ""
    @Flag(help: "Print JSON, one array of entries.") var json = false
    @Option(help: "List only the files with this tag (see `byteclub tag`).") var tag: String?
    @OptionGroup var backend: BackendOptions

    func validate() throws {
        if let tag { do { _ = try TagText.normalised(tag) } catch { throw ValidationError(error.description) } }
    }

    func run() async throws {
        let path = remotePath(self.path)
        let json = self.json
        let tag = try self.tag.map { text in try TagText.normalised(text) }
        try await runRemote(backend) { backend in
            if let tag { return try await Ls.listTagged(path, tag: tag, json: json, store: backend.store) }
            let printer = ListingPrinter(json: json)
            try await backend.store.forEachPage(of: path) { printer.print($0) }
            printer.finish()
        }
    }
}

/// `ls`'s output, written a page at a time: nothing of a page is kept once it is printed.
///
/// With `--json` the pages make one array, byte for byte what encoding the whole listing at
/// once gives; a listing stopped by an error leaves the array open (and exits non-zero).
final class ListingPrinter {
    private let json: Bool
    private let formatter = JSONLines.localTimeFormatter()
    private var opened = false
    private let output = FileHandle.standardOutput

    init(json: Bool) { self.json = json }

    func print(_ page: [RemoteEntry]) {
        guard !page.isEmpty else { return }
        let sorted = page.sorted { $0.pathLower < $1.pathLower }
        guard json else {
            output.write(Data(sorted.map(line).joined().utf8))
            return
        }
        // The names exactly, as JSON escapes them (ESC is \u001b); DEL and C1, which encoders
        // leave raw, are escaped too, so even JSON is safe on a terminal.
        guard let array = try? JSONLines.encode(sorted), array.count >= 2 else { return }
        output.write(Data((opened ? "," : "[").utf8))
        output.write(array.dropFirst().dropLast())
        opened = true
    }

    func finish() {
        guard json else { return }
        output.write(Data((opened ? "]\n" : "[]\n").utf8))
    }

    private func line(_ entry: RemoteEntry) -> String {
        let size = entry.kind == .folder ? "-" : ProgressLine.bytes(entry.size)
        let date = entry.modified.map(formatter.string) ?? ""
        // Names from the server, shown as `ls -b` would: control characters as `\x1b`.
        let name = TerminalSafe.escape(entry.kind == .folder ? entry.name + "/" : entry.name)
        return size.padding(toLength: max(10, size.count), withPad: " ", startingAt: 0) + "  "
            + date.padding(toLength: 16, withPad: " ", startingAt: 0) + "  " + name + "\n"
    }
}

struct Get: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Download a file.",
        discussion: "Interrupted downloads (Ctrl-C or a lost connection) resume where they stopped when you run the same command again.")
    @Argument(help: "The remote file, e.g. /byteclub/photos/alps.jpg, or one revision of a file, rev:REV (from `byteclub log`).") var remote: String
    @Argument(help: "Where to put it (default: its name, here).") var local: String?
    @OptionGroup var streams: StreamsOption
    @Flag(help: "Hand the download to the background agent: it goes on if this command is interrupted or killed (see `byteclub transfers`).")
    var agent = false
    @OptionGroup var backend: BackendOptions

    func run() async throws {
        // "rev:0123abcd" names a revision, as Dropbox's download takes it; anything else a path.
        let path = remote.hasPrefix("rev:") ? remote : remotePath(remote)
        guard !path.isEmpty else { throw ValidationError("give a file to download") }
        let (folder, name, note) = Self.destination(remote: path, local: local)
        if let note { say(note) }
        let target = folder.appendingPathComponent(name)
        if agent {
            let handed = AgentTransfer(id: "", kind: .download, local: target.standardizedFileURL.path, remote: path,
                                       bandwidthLimit: backend.bandwidthLimit, streams: streams.streams)
            let ended = try AgentTransferFollower.run(handed, backend: backend)
            guard ended.state == .done else { throw fail(.local(ended.error ?? "Download \(ended.state.rawValue)")) }
            say("saved \(target.path) (\(ProgressLine.bytes(ended.total)))")
            return
        }
        AgentJournalWake.resumeUnfinished(backend)
        let key = backend.resumeIdentity
        let resumeFile = Paths.resumeData.appendingPathComponent(ResumeKey.make(key + "\n" + path + "\n" + target.path) + ".json")
        let streams = self.streams.streams
        try await runRemote(backend) { backend in
            let saved = FileManager.default.contents(atPath: resumeFile.path)
            let progress = ProgressLine(TerminalSafe.escape(name))
            if let saved, let offset = DownloadResume.offset(of: saved), offset > 0 {
                say("resuming \(path) at \(ProgressLine.bytes(offset))")
            }
            do {
                let entry = try await backend.store.get(path, to: target, resumeData: saved, progress: { done, total in progress.update(done, total) },
                                                             onResumeData: { data in ResumeKey.save(data, to: resumeFile) }, streams: streams)
                progress.finish()
                try? FileManager.default.removeItem(at: resumeFile)
                say("saved \(target.path) (\(ProgressLine.bytes(entry.size)))")
            } catch let error as RemoteError where error == .cancelled {
                progress.finish()
                throw RemoteError.local("Download interrupted; run the same command again to resume")
            }
        }
    }

    /// The folder a download goes to and its name there, and a note when the name had to change.
    ///
    /// A name taken from the remote path (no local name given, or a folder given) is one the
    /// server may have suggested through a listing, so it must be a single safe path component:
    /// `../../evil.jpg` is saved as `evil.jpg`, and the note says so. A local path the user
    /// typed is theirs, folders included.
    static func destination(remote path: String, local: String?) -> (folder: URL, name: String, note: String?) {
        let remoteName = path.split(separator: "/", omittingEmptySubsequences: false).last.map(String.init) ?? ""
        let name = SafeName.sanitized(remoteName)
        let note = SafeName.problem(remoteName).map { SafeName.Refusal(name: remoteName, problem: $0).message + "; saving it as \"\(name)\"" }
        let here = URL(fileURLWithPath: FileManager.default.currentDirectoryPath)
        var isDirectory: ObjCBool = false
        guard let local else {
            // As before, `get /x/photos` with a folder ./photos here saves into it.
            if note == nil, FileManager.default.fileExists(atPath: here.appendingPathComponent(name).path, isDirectory: &isDirectory),
               isDirectory.boolValue {
                return (here.appendingPathComponent(name), name, nil)
            }
            return (here, name, note)
        }
        let url = URL(fileURLWithPath: local)
        if FileManager.default.fileExists(atPath: url.path, isDirectory: &isDirectory), isDirectory.boolValue {
            return (url, name, note)
        }
        return (url.deletingLastPathComponent(), url.lastPathComponent, nil)
    }
}

/// Names resume-data files after what they resume.
enum ResumeKey {
    static func make(_ text: String) -> String {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in text.utf8 { hash = (hash ^ UInt64(byte)) &* 0x100_0000_01b3 }
        return String(format: "%016llx", hash)
    }

    static func save(_ data: Data, to url: URL) {
        try? FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
        try? data.write(to: url, options: .atomic)
    }
}

struct Put: AsyncParsableCommand {
    static let configuration = CommandConfiguration(abstract: "Upload a file.")
    @Argument(help: "The local file.") var local: String
    @Argument(help: "Where to put it, e.g. /byteclub/photos/ (a trailing / keeps the name).") var remote: String
    @Option(help: "add (never replace) or overwrite.") var mode: String = "add"
    @Flag(help: "If the name is taken, pick a free one instead of failing.") var autorename = false
    @OptionGroup var streams: StreamsOption
    @Flag(help: "Hand the upload to the background agent: it goes on if this command is interrupted or killed (see `byteclub transfers`).")
    var agent = false
    @OptionGroup var backend: BackendOptions

    func validate() throws {
        guard ["add", "overwrite"].contains(mode) else { throw ValidationError("--mode must be add or overwrite") }
    }

    func run() async throws {
        let file = URL(fileURLWithPath: local)
        guard FileManager.default.isReadableFile(atPath: file.path) else { throw fail(.local("Cannot read \(file.path)")) }
        var path = remotePath(remote)
        if remote.hasSuffix("/") || path.isEmpty { path += "/" + file.lastPathComponent }
        let writeMode: WriteMode = mode == "overwrite" ? .overwrite : .add
        let autorename = self.autorename
        let target = path
        let streams = self.streams.streams
        if agent {
            let handed = AgentTransfer(id: "", kind: .upload, local: file.standardizedFileURL.path, remote: target, mode: mode, autorename: autorename,
                                       bandwidthLimit: backend.bandwidthLimit, streams: streams)
            let ended = try AgentTransferFollower.run(handed, backend: backend)
            guard ended.state == .done else { throw fail(.local(ended.error ?? "Upload \(ended.state.rawValue)")) }
            FileHandle.standardOutput.write(Data("\(TerminalSafe.escape(ended.result ?? target))\n".utf8))
            return
        }
        AgentJournalWake.resumeUnfinished(backend)
        try await runRemote(backend) { backend in
            let progress = ProgressLine(file.lastPathComponent)
            let entry = try await backend.store.put(file: file, to: target, mode: writeMode, autorename: autorename,
                                                    progress: { done, total in progress.update(done, total) }, streams: streams)
            progress.finish()
            FileHandle.standardOutput.write(Data("\(TerminalSafe.escape(entry.path))\n".utf8))
        }
    }
}

struct Rm: AsyncParsableCommand {
    static let configuration = CommandConfiguration(abstract: "Delete a file or folder.")
    @Argument(help: "What to delete.") var path: String
    @OptionGroup var backend: BackendOptions

    func run() async throws {
        let target = remotePath(path)
        guard !target.isEmpty else { throw ValidationError("refusing to delete the root") }
        try await runRemote(backend) { backend in
            _ = try await backend.store.delete(target)
        }
    }
}

struct Mv: AsyncParsableCommand {
    static let configuration = CommandConfiguration(abstract: "Move or rename a file or folder.")
    @Argument(help: "From.") var from: String
    @Argument(help: "To.") var to: String
    @Flag(help: "If the name is taken, pick a free one instead of failing.") var autorename = false
    @OptionGroup var backend: BackendOptions

    func run() async throws {
        let from = remotePath(self.from)
        let to = remotePath(self.to)
        let autorename = self.autorename
        try await runRemote(backend) { backend in
            let entry = try await backend.store.move(from: from, to: to, autorename: autorename)
            FileHandle.standardOutput.write(Data("\(TerminalSafe.escape(entry.path))\n".utf8))
        }
    }
}
