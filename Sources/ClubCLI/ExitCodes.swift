import ArgumentParser
import ClubKit
import Foundation
import Remote

extension Exit {
    public var code: ExitCode { ExitCode(rawValue) }
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

    /// Runs `body` (an editor on this terminal) with Ctrl-C left to it: the terminal sends the
    /// press to byteclub too, and vim's Ctrl-C must not end byteclub's command.
    static func leavingPressesTo<T>(_ body: () -> T) -> T {
        state.setPaused(true)
        defer { state.setPaused(false) }
        return body()
    }

    /// The presses and the work they cancel.
    private final class State: @unchecked Sendable {
        // @unchecked Sendable: `presses`, `paused` and `cancel` are only touched under `lock`; `source` is
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

        private var paused = false

        func setPaused(_ value: Bool) { lock.withLock { paused = value } }

        private func press() {
            let (count, cancel) = lock.withLock { () -> (Int, (@Sendable () -> Void)?) in
                if paused { return (0, nil) }
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
