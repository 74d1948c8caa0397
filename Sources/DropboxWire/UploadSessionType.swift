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
}
