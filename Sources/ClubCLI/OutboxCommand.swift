import ArgumentParser
import ClubKit
import Foundation
import Remote

/// `byteclub outbox`: what the app queued while the club could not be reached, and `--send`
/// to send it now.
struct OutboxCommand: AsyncParsableCommand {
    /// The exit status when items still wait after `--send` (EX_TEMPFAIL: try again later).
    static let waitingStatus: Int32 = 75

    static let configuration = CommandConfiguration(
        commandName: "outbox",
        abstract: "List the changes waiting to be sent to the club, or send them now.",
        discussion: """
            The app queues a note's save, create, rename or delete, and a photo's upload, when the \
            club cannot be reached; it sends them by itself once the club answers again. This lists \
            them, oldest first: number, kind, title and path, the rev the change was based on, and \
            when it was queued (--json: the items as a JSON array). Listing sends nothing and does not reach a club \
            server or Dropbox (the embedded club is started; a WebDAV folder is asked once how it \
            signs in, and listed from here when it does not answer; a Dropbox login from before byteclub kept its account id is asked that id once, \
            as each account has its own outbox). \
            --send sends them now, in order, and prints one line per item: sent, merged (someone \
            changed the note meanwhile and the changes did not overlap), kept as a draft (they \
            overlapped; open the note in the app to merge) or refused (e.g. a photo changed since it \
            was queued); with --json, one JSON object per item instead: \
            {"seq","kind","title","path","result","reason","draft","entry"}, result being sent, \
            merged, draft or refused. Exit status: 0 when the outbox is empty afterwards; 75 (EX_TEMPFAIL) when \
            items still wait: the club could not be reached or refused the token (the message says \
            why), or another byteclub is sending them right now; 130 on Ctrl-C. \
            Drafts are kept per club. Drafts left by an older byteclub, which kept every club's \
            drafts in one folder, go to the club they are known to be from (a change queued from \
            them, or the note's rev in that club's cache) when it is next opened; the others are \
            kept aside, shown in no club and sent to none, and listing names them on stderr. \
            --take-draft ID (or all) takes them into the drafts of the club this command names \
            (the app then marks them ✎): 3 when no draft kept aside has that id, 4 when the club \
            has a draft of that note already (both are kept).
            """)

    @Flag(help: "Send the waiting changes now.") var send = false
    @Flag(help: "Print the items as a JSON array.") var json = false
    @Option(name: .customLong("take-draft"),
            help: ArgumentHelp("Take a draft an older byteclub left aside (its id as listed, or all) into this club's drafts.", valueName: "ID"))
    var takeDrafts: [String] = []
    @OptionGroup var backend: BackendOptions

    func validate() throws {
        if !takeDrafts.isEmpty, send || json { throw ValidationError("--take-draft is a run of its own: without --send or --json") }
    }

    func run() async throws {
        if send { return try await sendNow() }
        if !takeDrafts.isEmpty { return try await take() }
        StderrLog.bootstrap()
        let connected: Backend
        do {
            // A WebDAV server that cannot be reached still lists what waits: the outbox is on
            // this machine, and it waits precisely when the server is away.
            connected = try await backend.connect(offlineStart: true)
        } catch let error as RemoteError {
            throw fail(error)
        }
        connected.adoptFormerFolders()
        let items = connected.outbox.all()
        await connected.close()
        if json {
            try CLIJSON.print(items.map(ItemJSON.init))
        } else if items.isEmpty {
            FileHandle.standardOutput.write(Data("The outbox is empty.\n".utf8))
        } else {
            let formatter = JSONLines.localTimeFormatter()
            FileHandle.standardOutput.write(Data(items.map { Self.line($0, formatter: formatter) + "\n" }.joined().utf8))
        }
        // On stderr: stdout stays this club's outbox, as scripts read it.
        Self.sayKeptAside()
    }

    /// Names the drafts an older byteclub left in the folder every club shared, that no club
    /// has taken (``Backend/adoptOlderDrafts()``), and how to take one into its club.
    static func sayKeptAside() {
        let aside = Backend.draftsKeptAside.all()
        guard !aside.isEmpty else { return }
        let one = aside.count == 1
        say("\(aside.count) draft\(one ? "" : "s") left by an older byteclub, which kept every club's drafts together, \(one ? "is" : "are") "
            + "kept aside in \(Paths.olderDrafts.path), shown in no club and sent to none:")
        let formatter = JSONLines.localTimeFormatter()
        for draft in aside {
            say("  \(draft.id)  \"\(draft.title)\"  \(draft.path ?? "a new note")  updated \(formatter.string(from: draft.updated))")
        }
        say("byteclub outbox --take-draft ID (or all), with the club's --remote or flags, takes \(one ? "it" : "them") into that club's drafts")
    }

    /// `--take-draft`: the drafts kept aside that were named, into this club's drafts folder.
    private func take() async throws {
        StderrLog.bootstrap()
        let connected: Backend
        do {
            // The drafts are on this machine: a club that cannot be reached still takes them.
            connected = try await backend.connect(offlineStart: true)
        } catch let error as RemoteError {
            throw fail(error)
        }
        connected.adoptFormerFolders()
        await connected.close()
        let aside = Backend.draftsKeptAside, mine = connected.drafts
        let all = aside.all()
        let chosen = takeDrafts.contains("all") ? all : all.filter { takeDrafts.contains($0.id) }
        let unknown = takeDrafts.filter { name in name != "all" && !all.contains { $0.id == name } }
        var kept = false
        for draft in chosen {
            if aside.move(draft.id, to: mine) {
                print("took \"\(TerminalSafe.escape(draft.title))\" into the drafts of \(TerminalSafe.escape(connected.label))")
            } else {
                say("\"\(draft.title)\" stays aside: this club has a draft \(draft.id) already, in \(mine.directory.path) (both are kept)")
                kept = true
            }
        }
        for name in unknown { say("no draft kept aside is called \(name) (byteclub outbox lists them)") }
        if !unknown.isEmpty { throw Exit.notFound.code }
        if kept { throw Exit.conflict.code }
    }

    /// One item for people: `#3  save    "Trip plan"  /byteclub/Trip plan.txt  base 015f2a3b  queued 2026-11-22 21:05`.
    /// Every name goes through ``TerminalSafe``.
    static func line(_ item: OutboxItem, formatter: DateFormatter) -> String {
        var place = TerminalSafe.escape(item.path)
        if let newPath = item.newPath { place += " → " + TerminalSafe.escape(newPath) }
        if let localFile = item.localFile { place = TerminalSafe.escape(localFile) + " → " + place }
        let seq = "#\(item.seq)"
        var line = seq.padding(toLength: max(4, seq.count), withPad: " ", startingAt: 0) + "  "
            + item.kind.rawValue.padding(toLength: 6, withPad: " ", startingAt: 0) + "  "
            + "\"" + TerminalSafe.escape(item.title) + "\"  " + place
        if let baseRev = item.baseRev { line += "  base " + TerminalSafe.escape(baseRev) }
        return line + "  queued " + formatter.string(from: item.queued)
    }

    /// A waiting item as `outbox --json` prints it (``CLIJSON``'s names: `path_display`).
    struct ItemJSON: Encodable {
        var id: String
        var seq: Int
        var kind: String
        var pathDisplay: String
        var newPathDisplay: String?
        var baseRev: String?
        var title: String
        var text: String?
        var localFile: String?
        var queued: Date

        init(_ item: OutboxItem) {
            (id, seq, kind, pathDisplay, newPathDisplay) = (item.id, item.seq, item.kind.rawValue, item.path, item.newPath)
            (baseRev, title, text, localFile, queued) = (item.baseRev, item.title, item.text, item.localFile, item.queued)
        }
    }

    /// One result for scripts (`--send --json`).
    struct ReportLine: Encodable {
        var seq: Int
        var kind: String
        var title: String
        var pathDisplay: String
        /// sent, merged, draft or refused.
        var result: String
        var reason: String?
        /// The draft that holds the text (result draft).
        var draft: String?
        /// The note or photo on the server afterwards (sent, merged; none after a delete).
        var entry: EntryJSON?

        init(_ report: OutboxReport) {
            seq = report.item.seq
            kind = report.item.kind.rawValue
            title = report.item.title
            pathDisplay = report.item.path
            switch report.result {
            case .sent(let entry): result = "sent"; self.entry = entry.map { EntryJSON($0) }
            case .merged(let entry, _): result = "merged"; self.entry = EntryJSON(entry)
            case .conflict(let id, let reason): result = "draft"; self.reason = reason; draft = id
            case .refused(let reason): result = "refused"; self.reason = reason
            }
        }
    }

    /// `--send`: each request tries a few times (the outbox waits for the next run anyway).
    private func sendNow() async throws {
        let json = self.json
        var retry = RetryPolicy()
        retry.maxAttempts = 3
        // Offline start: a WebDAV server that is away leaves the items waiting (75), as a club
        // server that is away does, rather than failing the connection (6).
        try await runRemote(backend, retry: retry, offlineStart: true) { backend in
            backend.adoptFormerFolders()
            let outbox = backend.outbox
            guard !outbox.isEmpty else {
                if !json { FileHandle.standardOutput.write(Data("The outbox is empty.\n".utf8)) }
                return
            }
            let run = await backend.sendOutbox { report in
                if json, let line = try? CLIJSON.encode(ReportLine(report)) {
                    FileHandle.standardOutput.write(line + Data("\n".utf8))
                } else {
                    FileHandle.standardOutput.write(Data((OutboxLines.line(report) + "\n").utf8))
                }
            }
            let left = outbox.count
            switch run {
            case .done where left == 0:
                return
            case .done:
                say("\(left) queued meanwhile \(left == 1 ? "waits" : "wait"); run it again")
            case .busy:
                say("another byteclub is sending this outbox now; \(left) \(left == 1 ? "item waits" : "items wait")")
            case .stopped(.cancelled):
                throw ExitCode(130)
            case .stopped(let error):
                say("\(left) \(left == 1 ? "item waits" : "items wait"): \(error.message)")
            }
            throw ExitCode(Self.waitingStatus)
        }
    }
}
