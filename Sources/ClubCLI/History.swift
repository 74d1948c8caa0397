import ByteClubConfig
import ClubKit
import ArgumentParser
import Foundation
import Remote

struct Log: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "log",
        abstract: "List a file's revisions, newest first.",
        discussion: """
            One line per revision: its rev, when it was made, its size and who made it (you, or \
            the member's name; "another member" when the server does not know it), with the members \
            who wrote in it live beside them on a club server ("ann with ray"). Give a rev to `byteclub restore PATH REV` to bring it back, \
            or to `byteclub get rev:REV FILE` to download it.
            """)
    @Argument(help: "The file: a path in the club's folder, a note's title (\"Trip plan\"), /PATH or NAME:PATH.") var path: String
    @Option(help: "How many revisions, 1 to 100.") var limit = 10
    @Flag(help: "Print JSON, one array of revisions.") var json = false
    @OptionGroup var backend: BackendOptions

    mutating func validate() throws {
        path = try backend.takeRemote(from: path)
        guard (1...100).contains(limit) else { throw ValidationError("--limit must be between 1 and 100") }
    }

    func run() async throws {
        guard !self.path.isEmpty else { throw ValidationError("give a file, e.g. \"Trip plan\" or /byteclub/notes.txt") }
        let typed = backend.clubPath(self.path)
        let (limit, json) = (self.limit, self.json)
        try await runRemote(backend, path: typed) { backend in
            let path = try await notePath(typed, on: backend)
            // Who "you" are, to name your own revisions; a server without accounts is fine.
            async let me = backend.me()
            let history = try await backend.revisions(path, limit: limit)
            let account = await me
            let writers = history.entries.flatMap(history.writers(of:)).map(Optional.some)
            let names = await backend.names.names(for: writers + [history.deletedBy])
            if json { return try CLIJSON.print(history.entries.map { RevisionJSON($0, in: history, you: account, names: names) }) }
            if let deleted = RevisionList.deletedLine(path, history: history, you: account, names: names) { say(deleted) }
            let lines = RevisionList.lines(history, you: account, names: names, formatter: JSONLines.localTimeFormatter(), size: ProgressLine.bytes)
            FileHandle.standardOutput.write(Data(lines.utf8))
        }
    }
}

struct Restore: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "restore",
        abstract: "Bring back an earlier revision of a file.",
        discussion: "The old content becomes a new revision (nothing is lost: the present one stays in the log). Find revs with `byteclub log PATH`.")
    @Argument(help: "The file: a path in the club's folder, a note's title, /PATH or NAME:PATH.") var path: String
    @Argument(help: "The revision to bring back, from `byteclub log`.") var rev: String
    @Flag(help: "Print the new revision's metadata as JSON.") var json = false
    @OptionGroup var backend: BackendOptions

    mutating func validate() throws {
        path = try backend.takeRemote(from: path)
        guard RevisionList.isRev(rev) else {
            throw ValidationError("'\(TerminalSafe.escape(rev))' is not a rev: revs are letters and digits, as `byteclub log` prints them")
        }
    }

    func run() async throws {
        guard !self.path.isEmpty else { throw ValidationError("give a file, e.g. \"Trip plan\" or /byteclub/notes.txt") }
        let typed = backend.clubPath(self.path)
        let (rev, json) = (self.rev, self.json)
        try await runRemote(backend, path: typed) { backend in
            let path = try await notePath(typed, on: backend)
            let (entry, said) = try await backend.writes.restoreSaying(path, rev: rev)
            for line in said { say(line) }
            if json { return try await printEntry(entry, on: backend) }
            FileHandle.standardOutput.write(Data("\(TerminalSafe.escape(entry.path)) \(TerminalSafe.escape(entry.rev ?? ""))\n".utf8))
            say("restored \(entry.path) to \(rev) as the new revision \(entry.rev ?? "?")")
        }
    }
}

struct Cp: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "cp",
        abstract: "Copy a file or folder on the server.",
        discussion: "Never replaces: copying onto an existing name fails (exit 4) unless --autorename picks a free one. A destination ending in / keeps the name.")
    @Argument(help: "From: a path in the club's folder (a.md), a note's title, /PATH or NAME:PATH.") var from: String
    @Argument(help: "To, e.g. b.md or archive/ (a trailing / keeps the name), on the same remote.") var to: String
    @Flag(help: "If the name is taken, pick a free one instead of failing.") var autorename = false
    @Flag(help: "Print the copy's metadata as JSON instead of its path.") var json = false
    @OptionGroup var backend: BackendOptions

    mutating func validate() throws {
        from = try backend.takeRemote(from: from)
        to = try backend.takeRemote(from: to)
    }

    func run() async throws {
        let typed = backend.clubPath(self.from)
        let json = self.json
        let to = backend.clubPath(self.to)
        guard !typed.isEmpty else { throw ValidationError("refusing to copy the root") }
        let keepsName = self.to.hasSuffix("/") || self.to.isEmpty || to.isEmpty
        let autorename = self.autorename
        try await runRemote(backend, path: typed) { backend in
            let from = try await notePath(typed, on: backend)
            do {
                let (entry, said) = try await backend.writes.copy(from, to: to, keepingName: keepsName, autorename: autorename)
                for line in said { say(line) }
                if json { return try await printEntry(entry, on: backend) }
                FileHandle.standardOutput.write(Data("\(TerminalSafe.escape(entry.path))\n".utf8))
            } catch RemoteError.conflict(let path) {
                // The server's "conflict" here means the name is taken, not a lost race.
                say("\(path) already exists; choose another name or add --autorename")
                throw Exit.conflict.code
            }
        }
    }
}
