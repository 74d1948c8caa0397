import Foundation

/// The club server's bulk upload, `/2/byteclub/files/upload_batch`: many small files in one
/// request, committed together, answered as `upload_session/finish_batch_v2` answers.
///
/// Not a Dropbox endpoint. Dropbox's way (a closed `upload_session/start` a file, then
/// `finish_batch_v2`) costs a request, a session file, its owner's marker and a flush of the
/// disk for every file: an import of 6,800 notes and pictures spent most of its time there
/// (docs/benchmarks.md, 2026-11-28). Here the bytes of up to ``maxEntries`` files come in one
/// body, and the server flushes them together before it commits them in groups.
///
/// The request (`Content-Type: application/octet-stream`, `Dropbox-API-Arg: {}`) holds one part
/// per file:
///
/// ```
/// {"path":"/byteclub/a.md","mode":"add","autorename":false,"size":12}\n
/// <exactly size bytes>
/// ```
///
/// A part's line is `CommitInfo` (`path`, `mode`, `autorename`, `client_modified`) with the
/// file's `size`, JSON on one line (a JSON string never holds a raw newline). The answer is
/// `UploadSessionFinishBatchResult`: one entry per part, in order, the file's metadata or the
/// failure `finish` would have answered for it. A body that does not follow the format (a line
/// that is not a part, a part cut short, more than ``maxEntries`` parts, a part larger than
/// ``maxFileSize``) is a 400 and commits nothing.
public enum UploadBatch {
    /// The most parts one request may hold.
    public static let maxEntries = 1000
    /// The largest file a part may hold (a batch is for small files; larger ones take sessions).
    public static let maxFileSize: Int64 = 4 << 20
    /// The longest part line.
    public static let maxLineLength = 16 << 10

    /// A part's line, its newline included.
    public static func partLine(path: String, mode: WriteMode, size: Int64) -> String {
        var text = "{\"path\":"
        DropboxJSON.appendQuoted(path, to: &text, asciiOnly: true)
        text += ",\"mode\":"
        switch mode {
        case .add: text += "\"add\""
        case .overwrite: text += "\"overwrite\""
        case .update(let rev):
            text += "{\".tag\":\"update\",\"update\":"
            DropboxJSON.appendQuoted(rev, to: &text, asciiOnly: true)
            text += "}"
        }
        return text + ",\"autorename\":false,\"size\":\(size)}\n"
    }
}
