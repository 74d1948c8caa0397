import Agent
import ArgumentParser
import ByteClubConfig
import ClubKit
import DropboxWire
import Foundation
import Durable
import Remote

struct Get: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "get",
        abstract: "Download a file (or a folder, with -r).",
        discussion: """
            Interrupted downloads (Ctrl-C or a lost connection) resume where they stopped when you \
            run the same command again. LOCAL `-` writes the file to stdout. With -r the folder's \
            files go under LOCAL (default: the folder's name, here), skipping those already the same \
            (by content hash), so a second run fetches only what changed; --dry-run lists what would come.
            """)
    @Argument(help: "The remote file: a path in the club's folder (photos/alps.jpg), a note's title, /PATH, NAME:PATH, or one revision of a file, rev:REV (from `byteclub log`).")
    var remote: String
    @Argument(help: "Where to put it (default: its name, here); a folder, or DIR/ (made if need be), keeps its name; - for stdout.") var local: String?
    @Flag(name: [.customShort("r"), .long], help: "Download a folder and everything under it.") var recursive = false
    @Flag(help: "With -r: say what would be downloaded, and download nothing.") var dryRun = false
    @Flag(help: "Print the downloaded file's metadata as JSON on stdout (not with -).") var json = false
    @OptionGroup var streams: StreamsOption
    @Flag(help: "Hand the download to the background agent: it goes on if this command is interrupted or killed (see `byteclub transfers`).")
    var agent = false
    @OptionGroup var backend: BackendOptions

    mutating func validate() throws {
        if !remote.hasPrefix("rev:") { remote = try backend.takeRemote(from: remote) }
        if dryRun && !recursive { throw ValidationError("--dry-run goes with -r") }
        if local == "-" && (recursive || agent) { throw ValidationError("- (stdout) takes one file: not with -r or --agent") }
        if recursive && agent { throw ValidationError("--agent takes one file: not with -r") }
    }

    func run() async throws {
        // "rev:0123abcd" names a revision, as Dropbox's download takes it; anything else a path.
        let typed = remote.hasPrefix("rev:") ? remote : backend.clubPath(remote)
        guard !remote.isEmpty || recursive else { throw ValidationError("give a file to download") }
        let found = Carried(typed)
        if !recursive, !remote.hasPrefix("rev:"), ["", "md", "txt"].contains((typed as NSString).pathExtension.lowercased()) {
            // A note may be named by its title: which file that is decides the local name.
            try await runRemote(backend, path: typed) { backend in found.set(try await notePath(typed, on: backend)) }
        }
        let path = found.value
        if recursive { return try await getFolder(path) }
        if local == "-" { return try await toStdout(path) }
        let (folder, name, note) = Self.destination(remote: path, local: local)
        if let note { say(note) }
        let target = folder.appendingPathComponent(name)
        // The folder it goes into, made here for every store (and the agent) alike.
        do {
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        } catch {
            let problem = LocalFileProblem.making(folder.path, because: error)
            say(problem.message)
            throw problem.exit.code
        }
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
        let (streams, json) = (self.streams.streams, self.json)
        try await runRemote(backend, path: path) { backend in
            let saved = FileManager.default.contents(atPath: resumeFile.path)
            let progress = ProgressLine(TerminalSafe.escape(name))
            if let saved, let offset = DownloadResume.offset(of: saved), offset > 0 {
                say("resuming \(path) at \(ProgressLine.bytes(offset))")
            }
            do {
                // Kept as it arrives, not only at Ctrl-C: a `kill -9` leaves it too.
                let entry = try await DownloadCheckpoint.$current.withValue(DownloadCheckpoint { data in ResumeKey.save(data, to: resumeFile, flush: false) }) {
                    try await backend.get(path, to: target, resumeData: saved, progress: { done, total in progress.update(done, total) },
                                                onResumeData: { data in ResumeKey.save(data, to: resumeFile) }, streams: streams)
                }
                progress.finish()
                try? FileManager.default.removeItem(at: resumeFile)
                say("saved \(target.path) (\(ProgressLine.bytes(entry.size)))")
                if json { try await printEntry(entry, on: backend) }
            } catch let error as RemoteError where error == .cancelled {
                progress.finish()
                say("download interrupted; run the same command again to resume")
                throw error
            }
        }
    }

    /// `get PATH -`: the file through a private temporary file (the download's resume and
    /// streams need a file to write at offsets), then to stdout; the file is gone after.
    private func toStdout(_ path: String) async throws {
        let streams = self.streams.streams
        try await runRemote(backend, path: path) { backend in
            let scratch = FileManager.default.temporaryDirectory.appendingPathComponent("byteclub-get-\(UUID().uuidString)")
            defer { try? FileManager.default.removeItem(at: scratch) }
            _ = try await backend.get(path, to: scratch, resumeData: nil, progress: nil, onResumeData: nil, streams: streams)
            try StdStreams.copy(from: scratch, to: FileHandle.standardOutput)
        }
    }

    private func getFolder(_ path: String) async throws {
        let name = path.split(separator: "/").last.map(String.init) ?? "club"
        let into = URL(fileURLWithPath: local ?? SafeName.sanitized(name))
        let (streams, dryRun, key) = (self.streams.streams, self.dryRun, backend.resumeIdentity)
        let refused = Carried(0)
        try await runRemote(backend, path: path) { backend in
            let progress = FilesProgress()
            var transfer = FolderTransfer.command(on: backend, streams: streams, dryRun: dryRun, verb: "get", progress: progress)
            transfer.resumeKey = key
            let tally = try await transfer.download(path, into: into)
            progress.finish()
            FolderTransfer.report(tally, verb: "downloaded", dryRun: dryRun)
            refused.set(tally.refused.count)
        }
        if refused.value > 0 { throw Exit.conflict.code }
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
        // A folder here, or one written with its slash (`newdir/sub/`), made by the download if
        // need be: the file goes into it under its own name, never in its place.
        if local.hasSuffix("/") || FileManager.default.fileExists(atPath: url.path, isDirectory: &isDirectory) && isDirectory.boolValue {
            return (url, name, note)
        }
        return (url.deletingLastPathComponent(), url.lastPathComponent, nil)
    }
}

struct Put: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "put",
        abstract: "Upload a file (or a folder, with -r).",
        discussion: """
            LOCAL `-` reads stdin (give REMOTE a file name). A name already taken fails (exit 4) \
            unless --mode overwrite replaces it or --autorename picks a free one. With -r the files \
            under LOCAL go under REMOTE, skipping those already the same (by content hash); one that \
            differs is replaced with --mode overwrite and otherwise skipped and reported (exit 4).
            """)
    @Argument(help: "The local file; - for stdin.") var local: String
    @Argument(help: "Where to put it: a path in the club's folder (photos/, a trailing / keeps the name), /PATH or NAME:PATH (default: the club's folder).")
    var remote: String = ""
    @Option(help: "add (never replace) or overwrite.") var mode: String = "add"
    @Flag(help: "If the name is taken, pick a free one instead of failing.") var autorename = false
    @Flag(name: [.customShort("r"), .long], help: "Upload a folder and everything under it.") var recursive = false
    @Flag(help: "With -r: say what would be uploaded, and upload nothing.") var dryRun = false
    @Flag(help: "Print the uploaded file's metadata as JSON instead of its path.") var json = false
    @OptionGroup var streams: StreamsOption
    @Flag(help: "Hand the upload to the background agent: it goes on if this command is interrupted or killed (see `byteclub transfers`).")
    var agent = false
    @OptionGroup var backend: BackendOptions

    mutating func validate() throws {
        remote = try backend.takeRemote(from: remote)
        guard ["add", "overwrite"].contains(mode) else { throw ValidationError("--mode must be add or overwrite") }
        if dryRun && !recursive { throw ValidationError("--dry-run goes with -r") }
        if local == "-" && (recursive || agent) { throw ValidationError("- (stdin) takes one file: not with -r or --agent") }
        if local == "-" && (remote.hasSuffix("/") || remote.isEmpty) {
            throw ValidationError("stdin has no name: give the remote file's, e.g. byteclub put - notes.md")
        }
        if recursive && (agent || autorename) { throw ValidationError("-r goes with --mode, not with --agent or --autorename") }
    }

    func run() async throws {
        let writeMode: WriteMode = mode == "overwrite" ? .overwrite : .add
        if recursive { return try await putFolder(mode: writeMode) }
        var scratch: URL?
        defer { if let scratch { try? FileManager.default.removeItem(at: scratch) } }
        let file: URL
        if local == "-" {
            file = FileManager.default.temporaryDirectory.appendingPathComponent("byteclub-put-\(UUID().uuidString)")
            scratch = file
            try StdStreams.save(FileHandle.standardInput, to: file)
        } else {
            file = URL(fileURLWithPath: local)
            // A missing file is exit 3 and a folder 4, as a club's missing path and folder are.
            if let problem = LocalFileProblem.reading(file.path) {
                say(problem.message)
                throw problem.exit.code
            }
        }
        var path = backend.clubPath(remote)
        if remote.hasSuffix("/") || remote.isEmpty || path.isEmpty { path += "/" + file.lastPathComponent }
        let (autorename, target, json) = (self.autorename, path, self.json)
        let streams = self.streams.streams
        if agent {
            let handed = AgentTransfer(id: "", kind: .upload, local: file.standardizedFileURL.path, remote: target, mode: writeMode, autorename: autorename,
                                       bandwidthLimit: backend.bandwidthLimit, streams: streams)
            let ended = try AgentTransferFollower.run(handed, backend: backend)
            guard ended.state == .done else { throw fail(.local(ended.error ?? "Upload \(ended.state.rawValue)")) }
            let landed = ended.result ?? target
            // The agent moved the bytes; the front matter's tags are this command's to add.
            if let text = FrontMatterNotes.taggedText(file, name: landed) {
                try await runRemote(backend, path: landed) { backend in _ = try await FrontMatterNotes.adopt(text, at: landed, on: backend) }
            }
            FileHandle.standardOutput.write(Data("\(TerminalSafe.escape(landed))\n".utf8))
            return
        }
        AgentJournalWake.resumeUnfinished(backend)
        try await runRemote(backend, path: target) { backend in
            let progress = ProgressLine(file.lastPathComponent)
            let entry: RemoteEntry, said: [String]
            do {
                (entry, said) = try await backend.writes.put(file: file, to: target, mode: writeMode, autorename: autorename,
                                                             progress: { done, total in progress.update(done, total) }, streams: streams)
            } catch RemoteError.conflict where writeMode == .add {
                // With mode add, "conflict" means the name is taken, not that anyone changed anything.
                progress.finish()
                say("\(target) already exists; add --mode overwrite to replace it or --autorename to keep both")
                throw Exit.conflict.code
            }
            progress.finish()
            // A note's front matter: its tags and pin became the note's club tags; what was left out.
            for line in said { say(line) }
            if json { return try await printEntry(entry, on: backend) }
            FileHandle.standardOutput.write(Data("\(TerminalSafe.escape(entry.path))\n".utf8))
        }
    }

    private func putFolder(mode: WriteMode) async throws {
        let folder = URL(fileURLWithPath: local).standardizedFileURL
        if let problem = LocalFileProblem.readingFolder(folder.path) {
            say(problem.message)
            throw problem.exit.code
        }
        var target = backend.clubPath(remote)
        if remote.hasSuffix("/") || remote.isEmpty || target.isEmpty { target += "/" + folder.lastPathComponent }
        let (streams, dryRun, destination) = (self.streams.streams, self.dryRun, target)
        let refused = Carried(0)
        try await runRemote(backend, path: target) { backend in
            let progress = FilesProgress()
            let transfer = FolderTransfer.command(on: backend, streams: streams, dryRun: dryRun, verb: "put", progress: progress)
            // Through the write path: the notes land in order with the outbox, then their front
            // matter's tags and pin become their club tags.
            let (tally, said) = try await backend.writes.putFolder(folder, into: destination, mode: mode, transfer: transfer)
            progress.finish()
            for line in said { say(line) }
            FolderTransfer.report(tally, verb: "uploaded", dryRun: dryRun)
            refused.set(tally.refused.count)
        }
        if refused.value > 0 { throw Exit.conflict.code }
    }
}

/// An entry as `--json` prints it, with its author's name asked of the server.
func printEntry(_ entry: RemoteEntry, on backend: Backend) async throws {
    let names = await backend.names.names(for: [entry.modifiedBy])
    try CLIJSON.print(EntryJSON(entry, names: names))
}

/// A value set inside a remote operation (which runs in a task of its own) and read after it:
/// how many files a folder transfer refused, whether a search found anything.
final class Carried<Value: Sendable>: @unchecked Sendable {
    // @unchecked Sendable: `stored` is only touched under `lock`.
    private let lock = NSLock()
    private var stored: Value
    init(_ initial: Value) { stored = initial }
    func set(_ value: Value) { lock.withLock { stored = value } }
    var value: Value { lock.withLock { stored } }
}

/// stdin and stdout for `put -` and `get … -`, a buffer at a time.
enum StdStreams {
    static func copy(from file: URL, to output: FileHandle) throws {
        let input = try FileHandle(forReadingFrom: file)
        defer { try? input.close() }
        while let chunk = try input.read(upToCount: 1 << 20), !chunk.isEmpty { try output.write(contentsOf: chunk) }
    }

    static func save(_ input: FileHandle, to file: URL) throws {
        FileManager.default.createFile(atPath: file.path, contents: nil, attributes: [.posixPermissions: 0o600])
        let output = try FileHandle(forWritingTo: file)
        defer { try? output.close() }
        while let chunk = try input.read(upToCount: 1 << 20), !chunk.isEmpty { try output.write(contentsOf: chunk) }
    }
}

