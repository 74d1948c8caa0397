import Foundation
import Remote

/// What a watch (``ChangeWatcher``) has to say as it goes, for a shell to print.
public enum WatchNotice: Sendable {
    /// The first listing is in: the watch has begun.
    case started
    /// A change, as a line to show.
    case change(SeenEntries.Line)
    /// The server forgot where the watch was: the folder is listed again, what differs told.
    case reset
    /// A request failed; the next try is after `wait` seconds.
    case failing(RemoteError, wait: TimeInterval)
    /// A request went through after failures.
    case recovered
}

/// The watch loop of `byteclub watch`: a ``ChangeFeed`` (a cursor, then longpoll → changes →
/// tell) carried out here, until cancelled; each change and each word about the connection is
/// a ``WatchNotice`` for `tell`.
public struct ChangeWatcher {
    let store: any RemoteStore
    let folder: String
    let recursive: Bool
    let tell: (WatchNotice) async -> Void
    var seen = SeenEntries()
    /// The first listing is taken as it is; later ones (after a reset) print what differs.
    var started = false
    /// The feed: failures wait 0.5 s doubling to 30 s; what waiting cannot mend ends the watch.
    var feed: ChangeFeed
    /// The listing taken with the last fresh cursor, until the feed says to take it.
    var listing: [RemoteEntry] = []

    public init(store: any RemoteStore, folder: String, recursive: Bool, pollTimeout: TimeInterval, tell: @escaping (WatchNotice) async -> Void) {
        self.store = store
        self.folder = folder
        self.recursive = recursive
        self.tell = tell
        // A page of deletions waits a moment for the rest of a move (its additions), as the app's lists do.
        feed = ChangeFeed(configuration: .init(pollTimeout: pollTimeout, backoff: Backoff(first: 0.5, longest: 30), moveWait: 0.1, ends: { error, _ in
            switch error {
            case .unauthorized, .forbidden, .notFound, .malformedPath, .notSupported, .local: return true
            default: return false
            }
        }))
    }

    /// Runs until the task is cancelled (Ctrl-C), which ends it cleanly, or an error that
    /// waiting cannot fix (a refused token, a missing folder), which it throws.
    public mutating func run() async throws(RemoteError) {
        let clock = ContinuousClock(), origin = clock.now
        func now() -> Double {
            let (seconds, attoseconds) = (clock.now - origin).components
            return Double(seconds) + Double(attoseconds) / 1e18
        }
        var effects = feed.start(at: now())
        while !Task.isCancelled {
            var event: ChangeFeed.Event?
            var listed = false
            for effect in effects {
                switch effect {
                case .fetchCursor, .longpoll, .listChanges, .wait:
                    // The first listing is in: the watch has begun (said once, after what came with it).
                    if listed, !started {
                        await tell(.started)
                        started = true
                    }
                    event = await outcome(of: effect)
                case .fresh:
                    let lines = seen.replace(with: listing)
                    listing = []
                    if started { for line in lines { await tell(.change(line)) } }
                    listed = true
                case .deliver(let changes, _, _):
                    for line in seen.apply(page: changes) { await tell(.change(line)) }
                case .reset:
                    await tell(.reset)
                case .failing(let error, let wait, _):
                    await tell(.failing(error, wait: wait))
                case .recovered:
                    await tell(.recovered)
                case .end(let error):
                    throw error
                }
            }
            // Cancelled (a request answered `.cancelled`, or a wait was cut): the watch ends.
            guard let event else { return }
            effects = feed.handle(event, at: now())
        }
    }

    /// Carries out a request or a wait of the feed: what happened, or nil when cancelled
    /// during a wait. A fresh cursor comes with the listing at it (kept for ``ChangeFeed/Effect/fresh(_:)``).
    private mutating func outcome(of effect: ChangeFeed.Effect) async -> ChangeFeed.Event? {
        do throws(RemoteError) {
            switch effect {
            case .fetchCursor:
                let (fresh, entries) = try await freshListing()
                listing = entries
                return .cursor(fresh)
            case .longpoll(let cursor, let timeout):
                return .answered(try await store.longpoll(cursor, timeout: timeout))
            case .listChanges(let cursor, _):
                return .changes(try await store.listChanges(since: cursor))
            case .wait(let seconds, let token):
                do { try await pause(seconds) } catch { return nil }
                return .waited(token: token)
            default:
                return nil
            }
        } catch {
            return .failed(error)
        }
    }

    /// A fresh cursor, then the listing (in that order, so nothing between them is missed:
    /// a change made meanwhile comes again as a change, and is printed only if it is news).
    private func freshListing() async throws(RemoteError) -> (RemoteCursor, [RemoteEntry]) {
        let fresh = try await store.latestCursor(folder, recursive: recursive)
        let entries: [RemoteEntry]
        if let dropbox = store as? DropboxStore {
            entries = try await dropbox.listAll(folder, recursive: recursive)
        } else if let webdav = store as? WebDAVStore {
            entries = try await webdav.listAll(folder, recursive: recursive)
        } else {
            entries = try await store.list(folder)
        }
        return (fresh, entries)
    }

    private func pause(_ seconds: TimeInterval) async throws(RemoteError) {
        do { try await Task.sleep(for: .milliseconds(Int(seconds * 1000))) } catch { throw .cancelled }
    }
}
