import ArgumentParser
import Foundation
import Remote

/// Every exit status byteclub's commands end with, in one place (docs/cli.md lists them).
///
/// As grep, curl and the BSD sysexits: 0 is done, 1 is "nothing found" (a search without a
/// hit), 64 is a command line that cannot be run. A script branches on these, so a failure the
/// network did not cause is never 6: a missing path is 3, a taken name 4, a refused token 5.
enum Exit: Int32, CaseIterable, Sendable {
    case ok = 0
    /// `search` found nothing (as grep); `transfers --wait` when a transfer failed.
    case noMatch = 1
    /// The config file (`config.toml`) has a problem; its message says which line.
    case config = 2
    /// The path (or revision, or account) does not exist.
    case notFound = 3
    /// A name taken, a change made meanwhile, or a folder where a file is expected (or the reverse).
    case conflict = 4
    /// The token was refused (or the login is gone).
    case unauthorized = 5
    /// The network or the server failed: trying again later may work.
    case network = 6
    /// The command line: an unknown command or option, a bad value, a malformed URL.
    case usage = 64
    /// `outbox --send` left changes waiting (EX_TEMPFAIL): the club unreachable, or another sender.
    case deferred = 75
    /// Ctrl-C (128 + SIGINT), whatever the command was doing.
    case interrupted = 130

    var code: ExitCode { ExitCode(rawValue) }

    /// The status for a failed remote operation.
    static func of(_ error: RemoteError) -> Exit {
        switch error {
        case .notFound: return .notFound
        case .conflict: return .conflict
        case .unauthorized: return .unauthorized
        case .malformedPath: return .usage
        case .network, .stalled, .gateway, .rateLimited, .insufficientSpace, .cursorReset: return .network
        case .server(let status, let detail): return FolderKindError(detail) != nil ? .conflict : (status == 401 ? .unauthorized : .network)
        case .cancelled: return .interrupted
        case .local, .notSupported: return .noMatch
        }
    }
}

/// Dropbox's `not_file` and `not_folder` (a folder where a file was asked for, or the
/// reverse), which Remote passes on as a 409 with the error summary: said as a sentence.
enum FolderKindError {
    case notFile, notFolder

    init?(_ detail: String) {
        let tags = detail.split(separator: "/")
        if tags.contains("not_file") { self = .notFile } else if tags.contains("not_folder") { self = .notFolder } else { return nil }
    }

    func message(_ path: String) -> String {
        let shown = path.isEmpty ? "/" : path
        switch self {
        case .notFile: return "\(shown) is a folder, not a file (byteclub ls lists it; byteclub get -r downloads all of it)"
        case .notFolder: return "\(shown) is a file, not a folder (byteclub get downloads it)"
        }
    }
}

/// Prints "byteclub: message" and picks the exit code a script can branch on.
///
/// `path` names what the command was working on, for errors whose answer does not say it.
func fail(_ error: RemoteError, path: String? = nil) -> ExitCode {
    say(explained(error, path: path))
    return Exit.of(error).code
}

/// The sentence for an error: which path, and what to do about it.
func explained(_ error: RemoteError, path: String?) -> String {
    switch error {
    case .server(_, let detail):
        if let kind = FolderKindError(detail) { return kind.message(path ?? "the path") }
    case .notFound(let missing):
        // A path gets a way to look; a rev or a link is said as the server named it.
        let shown = missing.isEmpty ? (path ?? "/") : missing
        guard shown.hasPrefix("/") else { break }
        return "Not found: \(shown) (byteclub ls \(parentFolder(shown)) lists what is there)"
    case .malformedPath(let bad):
        return "\(bad) is not a valid club path: paths start with / and hold no control characters"
    default:
        break
    }
    return error.message
}

private func parentFolder(_ path: String) -> String {
    let parent = (path as NSString).deletingLastPathComponent
    return parent.isEmpty ? "/" : parent
}

/// Ctrl-C, handled once for every command that talks to a club: the first press cancels the
/// work (which cleans up: resume data saved, partial files kept for the next run), and the
/// command then exits 130 whatever the work said, as a shell expects of an interrupted tool.
/// A second press exits at once.
///
/// One signal source for the whole process, made on first use: libdispatch installs its handler
/// once per signal, so a second `signal(SIGINT, SIG_IGN)` for a second source would silence it.
enum Interrupt {
    private static let state = State()

    /// Runs `work` with Ctrl-C cancelling it; throws exit 130 when Ctrl-C was pressed.
    static func run<T: Sendable>(_ work: @escaping @Sendable () async throws -> T) async throws -> T {
        let task = Task { try await work() }
        state.begin { task.cancel() }
        let result = await task.result
        state.end()
        if state.pressed {
            say("interrupted")
            throw Exit.interrupted.code
        }
        return try result.get()
    }

    /// The presses and the work they cancel.
    private final class State: @unchecked Sendable {
        // @unchecked Sendable: `presses` and `cancel` are only touched under `lock`; `source` is
        // set once in init and only kept alive.
        private let lock = NSLock()
        private var presses = 0
        private var cancel: (@Sendable () -> Void)?
        private var source: (any DispatchSourceSignal)?

        init() {
            signal(SIGINT, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: SIGINT, queue: .global())
            source.setEventHandler { [unowned self] in self.press() }
            source.activate()
            self.source = source
        }

        private func press() {
            let (count, cancel) = lock.withLock { () -> (Int, (@Sendable () -> Void)?) in
                presses += 1
                return (presses, self.cancel)
            }
            if count > 1 { Foundation.exit(Exit.interrupted.rawValue) }
            cancel?()
        }

        /// Work to cancel on Ctrl-C (at once when it was pressed before the work began).
        func begin(_ cancel: @escaping @Sendable () -> Void) {
            let already = lock.withLock { () -> Bool in
                self.cancel = cancel
                return presses > 0
            }
            if already { cancel() }
        }

        func end() { lock.withLock { cancel = nil } }

        var pressed: Bool { lock.withLock { presses > 0 } }
    }
}
