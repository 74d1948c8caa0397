import Foundation

/// `UploadSessionType` of files.stone: how a session's appends may arrive.
///
/// A sequential session takes its appends one after another, each at the offset the last one
/// ended. A concurrent session takes appends of whole 4 MiB blocks in any order, several at
/// once, so one large file can travel over several connections; only the append that closes
/// the session may be shorter, and `finish` carries no data.
public enum UploadSessionType: String, WireUnion {
    case sequential
    case concurrent

    /// Every append but the closing one of a concurrent session is a multiple of this, and
    /// starts at a multiple of it.
    public static let concurrentBlock: Int64 = 4 << 20

    /// The largest file an upload session can make: Dropbox's 350 GB. A session's end, and every
    /// offset and length sent to it, stay within it, so their sums cannot overflow an Int64.
    public static let maxSessionBytes: Int64 = 350_000_000_000
}
