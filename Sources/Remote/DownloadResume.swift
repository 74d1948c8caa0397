import Foundation
import Transfer

/// What the app may know of a paused download's resume data without importing Transfer.
///
/// The bytes stay opaque (they are handed back to ``RemoteStore/download(_:to:resumeData:progress:onResumeData:)``
/// as they are); only the offset is read, to show "paused 42%".
public enum DownloadResume {
    /// The number of bytes already downloaded, or nil when `data` is not resume data.
    public static func offset(of data: Data) -> Int64? {
        if let resume = try? ResumeData.decode(data).get() { return resume.offset }
        // A store's own resume data (an encrypted club's one-pass download) names its offset alike.
        struct Offset: Decodable { var offset: Int64 }
        return (try? JSONDecoder().decode(Offset.self, from: data)).map(\.offset)
    }
}
