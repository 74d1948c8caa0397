import Foundation

/// Where an upload session stands: its id and the bytes the server has acknowledged.
///
/// Kept by whoever must survive its own death (the background agent's journal), or handed to
/// another process (the app quitting to the background), so that the session is continued
/// instead of the file being sent again from its first byte.
///
/// A sequential session is a single offset. A concurrent one (`put --streams`) is the block
/// size its file was cut into and the offsets of the blocks the server acknowledged: the
/// server keeps no single offset for it, so the blocks still owed are the ones not listed.
public struct UploadSessionMark: Sendable, Codable, Equatable {
    public var sessionID: String
    /// Sequential: the bytes the server acknowledged. Concurrent: the sum of the acknowledged blocks.
    public var offset: Int64
    /// Concurrent sessions only: the length of every block but the last.
    public var blockSize: Int64?
    /// Concurrent sessions only: the offsets of the blocks acknowledged.
    public var blocksDone: [Int64]?

    public init(sessionID: String, offset: Int64, blockSize: Int64? = nil, blocksDone: [Int64]? = nil) {
        self.sessionID = sessionID
        self.offset = offset
        self.blockSize = blockSize
        self.blocksDone = blocksDone
    }

    /// A concurrent upload session's mark.
    public var isConcurrent: Bool { blockSize != nil }

    enum CodingKeys: String, CodingKey {
        case sessionID = "session_id"
        case offset
        case blockSize = "block_size"
        case blocksDone = "blocks_done"
    }
}

/// A store whose large uploads can be continued by another process.
///
/// A separate protocol, not a requirement of ``RemoteStore``: WebDAV has no upload sessions,
/// and a caller that does not need to outlive itself keeps the plain `upload(file:…)`.
public protocol ResumableUploadStore: RemoteStore {
    /// Uploads `file`, continuing the session `resuming` when given (a sequential one at the
    /// offset the server says it holds, asked before a byte is sent; a concurrent one with the
    /// blocks its mark does not list), and reporting the session's mark to `onSession` as soon
    /// as the session exists and after every acknowledged chunk. A session the server no longer
    /// knows starts over, once. A new session uses `streams` connections as `put` does (nil:
    /// ``TransferStreams/automatic(for:)``). Files too small for a session go up in one request
    /// and never call `onSession`.
    func upload(file: URL, to path: String, mode: WriteMode, autorename: Bool, resuming: UploadSessionMark?, streams: Int?,
                onSession: @escaping @Sendable (UploadSessionMark) -> Void, progress: ProgressHandler?) async throws(RemoteError) -> RemoteEntry
}

extension ResumableUploadStore {
    /// One connection, a sequential session.
    public func upload(file: URL, to path: String, mode: WriteMode, autorename: Bool, resuming: UploadSessionMark?,
                       onSession: @escaping @Sendable (UploadSessionMark) -> Void, progress: ProgressHandler?) async throws(RemoteError) -> RemoteEntry {
        try await upload(file: file, to: path, mode: mode, autorename: autorename, resuming: resuming, streams: 1, onSession: onSession,
                         progress: progress)
    }
}
