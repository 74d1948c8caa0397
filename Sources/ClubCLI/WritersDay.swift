import ArgumentParser
import ClubKit
import ByteClubConfig
import Foundation
import Remote
import TerminalUI

/// What `new`, `edit` and `today` say about keeping the text safe; each command's help ends with it.
private let keptSafe = """
    The text is a draft on disk (with the rev the note was opened at) before the editor starts, \
    so a byteclub killed meanwhile loses nothing: the next edit of the note (or new of the same \
    title) takes up the draft where the editor left it. What the editor leaves is queued in the \
    outbox and sent: a change another member made meanwhile is merged (three-way, over the rev \
    the note was opened at); changes that overlap keep your text as a draft and, on a terminal, \
    ask to open both in the editor with the overlaps marked (<<<<<<< yours … >>>>>>> NAME); \
    without a terminal the command exits 4 and the next edit opens them so. A club that cannot \
    be reached leaves the text in the outbox (exit 75; byteclub outbox --send sends it). The \
    editor is $VISUAL, else $EDITOR, else vi. Prints the note's path when the club has it.
    """

/// The retries of a note's save: a few, then the outbox keeps it (as `outbox --send`).
private var editRetry: RetryPolicy {
    var retry = RetryPolicy()
    retry.maxAttempts = 3
    return retry
}

/// `byteclub new "Title"`: a note made from the shell, as `nb add` and `zk new` do.
struct New: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "new",
        abstract: "Make a note and write it in $EDITOR.",
        discussion: """
            Makes TITLE.md in the club's folder (or in --folder, made if need be; config.toml's \
            new_note_extension = "txt" makes TITLE.txt), its text from the club's templates/NAME.md \
            with --template NAME ({{title}}, {{date}}, {{time}} and {{author}}, your name in the \
            club, filled), and opens it in your editor. --no-edit reads the text from stdin instead \
            (the template's text when stdin is a terminal or empty). A note of that title already \
            there is exit 4 and nothing is overwritten; a title with / or control characters, or an \
            empty one, is exit 64.
            """ + " " + keptSafe)

    @Argument(help: "The note's title; its file is TITLE.md.") var title: String
    @Option(help: "A folder inside the club's folder to put it in (made if need be), e.g. trips/2026.") var folder: String?
    @Option(help: "A template: the title of a note in the club's templates/ folder.") var template: String?
    @Flag(help: "Read the text from stdin instead of opening an editor.") var noEdit = false
    @OptionGroup var backend: BackendOptions

    mutating func validate() throws {
        if let problem = NoteTitle.problem(title) { throw ValidationError(problem) }
        if let folder {
            let parts = folder.split(separator: "/", omittingEmptySubsequences: true)
            if folder.hasPrefix("/") || parts.contains(where: { $0 == "." || $0 == ".." })
                || folder.unicodeScalars.contains(where: { $0.properties.generalCategory == .control }) {
                throw ValidationError("--folder is a folder inside the club's folder, e.g. trips/2026 (no leading /, no . or .. parts, no control characters)")
            }
        }
        if let template, template.isEmpty || template.contains("/") { throw ValidationError("--template is a template's title, e.g. --template meeting") }
    }

    func run() async throws {
        let clubFolder = backend.clubFolder
        let inside = (folder ?? "").split(separator: "/").joined(separator: "/")
        let ext = try noteExtension()
        // --no-edit: the text from stdin, unless it is a terminal (then the template's).
        let typed = noEdit && isatty(0) != 1 ? String(decoding: FileHandle.standardInput.readDataToEndOfFile(), as: UTF8.self) : nil
        let note = NoteEditing.NewNote(path: clubFolder + (inside.isEmpty ? "" : "/" + inside) + "/" + title + "." + ext,
                                       title: title, template: template, edit: !noEdit, typed: typed)
        // A WebDAV server that cannot be reached still gives a backend, as a club server's does: the
        // text (piped in already, for --no-edit) goes to the outbox (exit 75), never to nothing.
        try await runRemote(backend, retry: editRetry, offlineStart: true) { backend in
            try await NoteEditing.command(backend: backend, clubFolder: clubFolder).create(note)
        }
    }
}

/// `byteclub edit "Title"`: an existing note in `$EDITOR`.
struct Edit: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "edit",
        abstract: "Open a note in $EDITOR and save what the editor leaves.",
        discussion: "An unchanged text saves nothing. A missing note is exit 3; two notes of that title, exit 64. " + keptSafe)

    @Argument(help: "The note: its title ('Trip plan'), a path in the club's folder ('trips/Trip plan.md'), /PATH or NAME:PATH.") var note: String
    @OptionGroup var backend: BackendOptions

    mutating func validate() throws {
        note = try backend.takeRemote(from: note)
    }

    func run() async throws {
        let typed = backend.clubPath(note)
        let clubFolder = backend.clubFolder
        try await runRemote(backend, retry: editRetry, path: typed) { backend in
            let editing = NoteEditing.command(backend: backend, clubFolder: clubFolder)
            var path = typed
            if let drafted = editing.draftedPath(typed) { path = drafted } else { path = try await notePath(typed, on: backend) }
            try await editing.edit(path: path, title: NoteName.title((path as NSString).lastPathComponent))
        }
    }
}

/// `byteclub today`: the day's note, made the first time.
struct Today: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "today",
        abstract: "Open today's daily note in $EDITOR, making it the first time.",
        discussion: """
            The day's note is daily/2026-11-25.md in the club's folder: config.toml's daily_folder \
            (default "daily") and daily_format (strftime's date fields, default "%Y-%m-%d") change \
            where and how it is named. The first time in a day it is made from the club's \
            templates/daily.md when there is one (a blank note otherwise). Two members who make the \
            same day's note while offline end up with one note holding both texts, never two files.
            """ + " " + keptSafe)

    @OptionGroup var backend: BackendOptions

    func run() async throws {
        let config: ClubConfig?
        do { config = try ClubConfig.load() } catch { throw Remotes.exit(error) }
        let daily = config?.daily ?? DailyNotes()
        let ext = config?.newNoteExtension ?? ClubConfig.defaultNoteExtension
        let clubFolder = backend.clubFolder
        let relative = daily.relativePath(for: Date())
        let path = clubFolder + "/" + relative + "." + ext
        let title = (relative as NSString).lastPathComponent
        try await runRemote(backend, retry: editRetry, offlineStart: true, path: path) { backend in
            let editing = NoteEditing.command(backend: backend, clubFolder: clubFolder)
            if editing.drafts.load(Draft.id(forPath: path)) != nil {
                return try await editing.edit(path: path, title: title)
            }
            try await editing.create(NoteEditing.NewNote(path: path, title: title, template: NoteTemplate.dailyName,
                                                         templateRequired: false, joinsExisting: true))
        }
    }
}

extension New {
    /// config.toml's `new_note_extension` (`md` without a config).
    func noteExtension() throws -> String {
        do { return try ClubConfig.load()?.newNoteExtension ?? ClubConfig.defaultNoteExtension } catch { throw Remotes.exit(error) }
    }
}

extension NoteEditing {
    /// The writer's day on this terminal: `$VISUAL`, else `$EDITOR`, else vi, with Ctrl-C left
    /// to it; words on stderr, the note's path on stdout, questions asked when stdin and stderr
    /// are a terminal.
    static func command(backend: Backend, clubFolder: String) -> NoteEditing {
        let command = ExternalEditor.command(environment: ProcessInfo.processInfo.environment)
        let editor = Editor(name: ExternalEditor.name(of: command)) { file in
            switch Interrupt.leavingPressesTo({ ExternalEditor.run(command, file: file.path) }) {
            case .exited(let status): return .exited(status)
            case .killed(let signal): return .killed(signal: signal)
            case .notStarted(let why): return .notStarted(why)
            }
        }
        return NoteEditing(backend: backend, clubFolder: clubFolder, editor: editor, say: { say($0) }, printPath: { path in
            FileHandle.standardOutput.write(Data((TerminalSafe.escape(path) + "\n").utf8))
        }, ask: { question in
            guard isatty(0) == 1, isatty(2) == 1 else { return nil }
            FileHandle.standardError.write(Data("byteclub: \(TerminalSafe.escape(question)) [Y/n] ".utf8))
            guard let answer = readLine() else { return false }
            return !answer.trimmingCharacters(in: .whitespaces).lowercased().hasPrefix("n")
        })
    }
}
