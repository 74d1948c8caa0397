import Foundation
import Synchronization

/// Stores that can move one large file over several connections at once: Dropbox and the club
/// server by concurrent upload sessions and parallel `Range` downloads, WebDAV by parallel
/// `Range` downloads.
///
/// A separate protocol rather than more requirements on ``RemoteStore``: the plain entry points
/// keep their signatures (they use ``TransferStreams/standard`` streams), and callers that let
/// a person choose (`put --streams N`) ask for this one.
public protocol ParallelTransferStore: RemoteStore {
    /// ``RemoteStore/upload(file:to:mode:autorename:progress:)`` over up to `streams` connections
    /// (nil: ``TransferStreams/automatic(for:)``).
    func upload(file: URL, to path: String, mode: WriteMode, autorename: Bool, progress: ProgressHandler?,
                streams: Int?) async throws(RemoteError) -> RemoteEntry
    /// ``RemoteStore/download(_:to:resumeData:progress:onResumeData:)`` over up to `streams`
    /// connections (nil: ``TransferStreams/automatic(for:)``).
    func download(_ path: String, to destination: URL, resumeData: Data?, progress: ProgressHandler?,
                  onResumeData: (@Sendable (Data) -> Void)?, streams: Int?) async throws(RemoteError) -> RemoteEntry
}

/// How many connections one transfer may use, and from what size it uses more than one.
public enum TransferStreams {
    /// What `put` and `get` use unless told otherwise, as rclone's `--multi-thread-streams`.
    public static let standard = 4
    /// What `--streams` accepts.
    public static let allowed = 1...16
    /// Smaller files go over one connection: below this, the extra round trips to set up
    /// the streams cost more than they win.
    public static let threshold: Int64 = 32 << 20
    /// The share of a file each stream must have when the streams were asked for (`--streams N`):
    /// a concurrent upload's block, so that N streams each get a block at least.
    public static let perRequestedStream: Int64 = 4 << 20

    /// The smallest file that goes over several streams: ``threshold`` by default, but N × 4 MiB
    /// when N was asked for, since whoever asked knows their link (a 16 MiB `put --streams 4`
    /// on a lossy 50 ms link took 50 s over one stream).
    public static func minimumSize(requested: Int?) -> Int64 {
        requested.map { Int64(clamped($0)) * perRequestedStream } ?? threshold
    }

    /// `requested` within ``allowed``.
    public static func clamped(_ requested: Int) -> Int {
        min(max(requested, allowed.lowerBound), allowed.upperBound)
    }

    /// What a transfer uses when nobody asked for a number: ``standard`` streams, but one for
    /// a server on this machine (the embedded club, a loopback test server). Streams win where
    /// round trips and loss hold one connection back; on loopback there are neither, and the
    /// extra requests only cost CPU: 4 streams took 1.2-1.5× one stream's time for a 256 MiB
    /// put and 1.6-3× for a get (`transfer-bench cli`, 2026-11-23).
    public static func automatic(for server: URL) -> Int {
        let host = (server.host ?? "").lowercased()
        let loopback = host == "localhost" || host.hasPrefix("127.") || host == "::1" || host == "[::1]"
        return loopback ? 1 : standard
    }

    /// The streams a transfer to `server` uses: `requested`, within ``allowed``, or ``automatic(for:)``.
    public static func resolved(_ requested: Int?, server: URL) -> Int {
        requested.map(clamped) ?? automatic(for: server)
    }
}

/// A value the streams of one transfer share behind a lock: a class, so the streams' tasks
/// can all hold it (a `Mutex` alone cannot be captured by several escaping closures).
final class SharedPlan<Value: Sendable>: Sendable {
    private let mutex: Mutex<Value>

    init(_ value: Value) { mutex = Mutex(value) }

    func withLock<Result: Sendable>(_ body: (inout Value) -> Result) -> Result {
        mutex.withLock { body(&$0) }
    }
}
