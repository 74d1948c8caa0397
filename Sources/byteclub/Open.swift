import ArgumentParser
import ByteClubConfig
import ByteClubApp
import ClubCLI
import ClubKit
import Dispatch
import Durable
import Foundation
import Logging
import Remote
import TerminalUI
#if canImport(Glibc)
import Glibc
#endif

/// The default command: the terminal UI on the embedded club, a club server or Dropbox.
struct Open: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "open",
        abstract: "Open the terminal UI (the default).",
        shouldDisplay: false
    )

    @OptionGroup var backend: BackendOptions
    @Option(help: "Where downloaded photos go (default: ~/Downloads/byteclub).") var downloadDir: String?
    @Option(help: "How many uploads and downloads run at once, 1 to 16 (the rest wait in the queue).") var transfers = 3
    @Option(help: "How the viewer draws photos: auto (ask the terminal), kitty, iterm, sixel or symbols.") var images = "auto"
    @Flag(help: "Open notes without live editing on a club server (config.toml: live_editing = false).") var noLive = false

    /// The longest the UI waits for a silent server before it says `offline`.
    static let stallLimit: Double = 10

    func validate() throws {
        guard (1...16).contains(transfers) else { throw ValidationError("bad --transfers \(transfers): use a number from 1 to 16") }
        guard ImagesOption(argument: images) != nil else {
            throw ValidationError("bad --images \"\(images)\": use auto, kitty, iterm, sixel or symbols")
        }
    }

    func run() async throws {
        if let problem = Self.terminalProblem(environment: Paths.environment) {
            FileHandle.standardError.write(Data("byteclub: \(problem)\n".utf8))
            throw ExitCode(2)
        }
        // Before anything logs: the embedded server's logger must never write to the screen.
        FileLog.bootstrap(url: Paths.log)
        let logger = Logger(label: "byteclub")
        logger.info("starting", metadata: ["version": "\(ByteClub.configuration.version)"])

        // Connecting runs on the cooperative pool, whose threads (libdispatch workers) block
        // every async signal; the server's NIO threads started from there inherit that mask,
        // so SIGWINCH and SIGINT reach the terminal's signal sources and no other thread.
        let connected: Backend
        do {
            // Interactive: give up after about 3 s of retries and say so; drafts keep the text.
            var retry = RetryPolicy()
            retry.maxAttempts = 5
            retry.maxDelay = 2
            // A server that cannot be reached is said at once (the outbox takes over), not
            // after retries; one that stalls within 10 s, whatever --timeout says for scripts.
            retry.retriesUnreachable = false
            var options = backend
            options.timeout = min(backend.timeout, Self.stallLimit)
            // A WebDAV folder is asked how it signs in before the screen is taken (for at most
            // Backend.probeLimit; then the app starts from its cache): said at once.
            if options.webdav != nil || ((try? options.resolveRemote()) ?? nil)?.1.kind == .webdav {
                say("connecting to the WebDAV folder (at most \(Backend.probeLimit.components.seconds) s; Ctrl-C stops)…")
            }
            // A WebDAV server that cannot be reached: start from the cache, as for a club.
            connected = try await options.connect(serverLogLevel: .info, retry: retry, offlineStart: true)
        } catch let error as ValidationError {
            throw error
        } catch let error as ExitCode {
            // Said already (a config problem: file, line and key).
            throw error
        } catch let error as RemoteError {
            // The same code as the commands': a refused password or token is 5, as `ls` says.
            logger.error("cannot connect: \(error)")
            say("cannot open the club: \(error.message)")
            throw Exit.of(error).code
        } catch {
            logger.error("cannot connect: \(error)")
            say("cannot open the club: \(error)")
            throw ExitCode(1)
        }
        logger.info("connected", metadata: ["backend": "\(connected.store.displayName)"])

        let downloads = downloadDir.map { URL(fileURLWithPath: $0) } ?? connected.downloadDirectory ?? Paths.downloads
        // config.toml's new_note_extension, read even when a flag names the backend; a bad one
        // is said with its file and line before the screen is taken.
        let newNoteExtension: String
        var editorSettings = EditorSettings()
        var live = !noLive
        do {
            let config = try ClubConfig.load()
            newNoteExtension = config?.newNoteExtension ?? ClubConfig.defaultNoteExtension
            editorSettings = EditorSettings(lineNumbers: config?.lineNumbers ?? false, softWrap: config?.softWrap ?? true)
            live = live && config?.liveEditing ?? true
        } catch {
            await connected.close()
            throw error.said()
        }
        do {
            try await MainActor.run { try UI.open(connected, downloads: downloads, transfers: transfers, images: ImagesOption(argument: images) ?? .auto,
                                                    agent: AppAgent.make(backend), newNoteExtension: newNoteExtension,
                                                    editorSettings: editorSettings, live: live) }
        } catch {
            await connected.close()
            say("cannot open the terminal: \(error)")
            throw ExitCode(1)
        }
        // The UI now runs on DispatchQueue.main, which the async entry point drains with
        // dispatchMain(). This task waits for ever; the process ends through Terminal.quit.
        await withUnsafeContinuation { (_: UnsafeContinuation<Void, Never>) in }
    }

    /// Why the UI cannot run here, or nil: it needs a TTY on stdin and stdout and a real TERM.
    static func terminalProblem(environment: [String: String]) -> String? {
        let term = environment["TERM"] ?? ""
        if isatty(STDIN_FILENO) != 1 || isatty(STDOUT_FILENO) != 1 {
            return "the terminal UI needs a terminal (stdin and stdout must be a TTY); for scripts use byteclub ls, get, put, rm or mv"
        }
        if term.isEmpty || term == "dumb" {
            return "the terminal UI cannot run with TERM=\(term.isEmpty ? "(unset)" : term); set TERM (e.g. xterm-256color), or use byteclub ls, get, put, rm or mv"
        }
        return nil
    }
}

/// The live UI: a ``Terminal`` showing a ``ClubApp``.
@MainActor
enum UI {
    /// Kept alive for the life of the process.
    private static var current: (terminal: Terminal, app: ClubApp)?

    static func open(_ backend: Backend, downloads: URL, transfers: Int = 3, images: ImagesOption = .auto, agent: AppAgent? = nil,
                     newNoteExtension: String = ClubConfig.defaultNoteExtension, editorSettings: EditorSettings = EditorSettings(),
                     live: Bool = true) throws {
        var options = Terminal.Options()
        options.images = images
        let terminal = try Terminal(options: options)
        // This club's drafts alone: another club's are never shown here, nor saved here.
        backend.adoptFormerFolders()
        // A note's own journal left by a crash before its draft named it: a day old, no one's.
        backend.drafts.dropUnnamedJournals()
        var configuration = AppConfiguration(club: backend, newNoteExtension: newNoteExtension)
        configuration.downloadDirectory = downloads
        configuration.transfers = transfers
        configuration.searchIndex = AppConfiguration.searchIndex(in: Paths.cache(backend.key))
        configuration.pausedDownloads = PausedDownloads(directory: Paths.resumeData.appendingPathComponent("photos"))
        configuration.thumbnailsDirectory = Paths.thumbnails
        configuration.graphics = terminal.graphics
        configuration.editorSettings = editorSettings
        configuration.saveEditorSettings = { settings in try EditorSettingsFile.save(settings) }
        configuration.clipboard = { [weak terminal] text in terminal?.copyToClipboard(text) }
        configuration.agent = agent
        configuration.externalEditor = ExternalEditorHook(command: ExternalEditor.command(environment: ProcessInfo.processInfo.environment)) {
            [weak terminal] command, file in terminal?.runEditor(command, file: file) ?? .notStarted("the terminal is gone")
        }
        configuration.uploadStartDirectory = URL(fileURLWithPath: FileManager.default.currentDirectoryPath)
        configuration.door = (backend.store as? EncryptedStore).map { EncryptedClubDoor(store: $0) }
        // Live editing on a club server (sealed in an encrypted club); none on WebDAV or Dropbox.
        if !live {
            // Turned off: notes open, save and merge as on any backend, and nothing is said.
        } else if let club = backend.store as? DropboxStore, club.speaksClub {
            configuration.liveChannel = { fileID, deliver in club.openLive(fileID: fileID, deliver: deliver)! }
        } else if let encrypted = backend.store as? EncryptedStore, encrypted.offersLive {
            configuration.liveChannel = { fileID, deliver in encrypted.openLive(fileID: fileID, deliver: deliver)! }
        }
        if configuration.liveChannel != nil {
            configuration.liveFolder = LiveJournals.folder(of: backend)
        } else if live {
            configuration.liveUnavailable = "Live editing needs a club server"
        }
        let app = ClubApp(store: backend.store, compositor: terminal.compositor, configuration: configuration)
        app.onBusyChanged = { [unowned terminal] busy in terminal.isAnimating = busy }
        app.onQuit = { [unowned terminal] status in terminal.quit(status: status) }
        terminal.onExit = { [weak app] status in
            // Ctrl-C, SIGTERM and SIGHUP leave at once: the last keystrokes reach the draft first.
            app?.journal()
            app?.stopTransfersForExit()
            Logger(label: "byteclub").info("quitting", metadata: ["status": "\(status)"])
            // Stop the embedded server cleanly, but never hang the way out on it.
            let done = DispatchSemaphore(value: 0)
            Task.detached {
                await backend.close()
                done.signal()
            }
            _ = done.wait(timeout: .now() + 2)
            // The log is not flushed to disk on the way out: each line went to the file with
            // write(2) as it was logged, so the exit leaves none behind, and a flush on a busy disk
            // held the exit for seconds (an OS crash may cut the log's last lines; not the user's text).
        }
        current = (terminal, app)
        terminal.start()
        // The first frame (the cached list, if there is one) before the index's look at the
        // list: on two cores, a 100,000-note index check beside it slowed the frame.
        app.start(indexing: false)
        terminal.redrawNow()
        app.startIndexing()
    }
}

/// The editor's settings in config.toml, written as text beside what the user wrote there
/// (``ConfigSettings``): `Alt-N` and `Alt-W` in the editor keep `line_numbers` and `soft_wrap`.
enum EditorSettingsFile {
    struct Unwritable: Error, CustomStringConvertible {
        var description: String { "its top-level keys are written in a form byteclub does not rewrite" }
    }

    static func save(_ settings: EditorSettings, to file: URL = Paths.config) throws {
        try PrivateFiles.folder(file.deletingLastPathComponent())
        var text = (try? String(contentsOf: file, encoding: .utf8)) ?? ""
        for (key, value) in [("line_numbers", settings.lineNumbers), ("soft_wrap", settings.softWrap)] {
            guard let changed = ConfigSettings.setting(key, to: value ? "true" : "false", in: text) else { throw Unwritable() }
            text = changed
        }
        try DurableFile.write(Data(text.utf8), to: file)
    }
}
