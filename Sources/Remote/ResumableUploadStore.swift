import Foundation

/// Where an upload session stands: its id and the bytes the server has acknowledged.
///
/// Kept by whoever must survive its own death (the background agent's journal), so that a new
/// process continues the session instead of sending the file again from its first byte.
public struct UploadSessionMark: Sendable, Codable, Equatable {
    public var sessionID: String
    public var offset: Int64

    public init(sessionID: String, offset: Int64) {
        self.sessionID = sessionID
        self.offset = offset
    }

    enum CodingKeys: String, CodingKey {
        case sessionID = "session_id"
        case offset
    }
}

/// A store whose large uploads can be continued by another process.
///
/// A separate protocol, not a requirement of ``RemoteStore``: WebDAV has no upload sessions,
/// and a caller that does not need to outlive itself keeps the plain `upload(file:…)`.
public protocol ResumableUploadStore: RemoteStore {
    /// Uploads `file`, continuing the session `resuming` when given (at the server's offset:
    /// an `incorrect_offset` answer says where that is), and reporting the session's mark to
    /// `onSession` after every acknowledged chunk. A session the server no longer knows starts
    /// over, once. Files too small for a session go up in one request and never call `onSession`.
    func upload(file: URL, to path: String, mode: WriteMode, autorename: Bool, resuming: UploadSessionMark?,
                onSession: @escaping @Sendable (UploadSessionMark) -> Void, progress: ProgressHandler?) async throws(RemoteError) -> RemoteEntry
}
