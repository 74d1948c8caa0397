import DropboxWire
import Foundation

/// A file whose history is asked for (`list_revisions`, `restore`, `rev:` downloads): live, or
/// deleted and remembered by a tombstone.
struct HistoryTarget {
    var id: String
    var key: String
    var live: FileMetadata?
    var resolved: FolderStore.Resolved?
    var tombstone: Tombstone?

    /// Where the file is (or was).
    var pathDisplay: String { live?.pathDisplay ?? tombstone?.path ?? "" }

    /// A revision as file metadata, at the file's present (or last) path.
    func metadata(of record: RevisionRecord, sharingInfo: FileSharingInfo?) -> FileMetadata {
        let display = pathDisplay.isEmpty ? record.path : pathDisplay
        return FileMetadata(
            name: (display as NSString).lastPathComponent, id: id, pathLower: display.lowercased(), pathDisplay: display,
            clientModified: Date(timeIntervalSince1970: TimeInterval(record.client)),
            serverModified: Date(timeIntervalSince1970: TimeInterval(record.server)),
            rev: record.rev, size: record.size, contentHash: record.hash, sharingInfo: sharingInfo)
    }

    /// Where a revision's bytes are: its kept copy if there is one (`hasCopy`), or the live file
    /// if that still holds them.
    func contentPath(of record: RevisionRecord, copy: String, hasCopy: Bool) -> String? {
        if hasCopy { return copy }
        if let live, live.contentHash == record.hash, let host = resolved?.host { return host }
        return nil
    }

    /// A revision asked for that retention removed: `error` (what the endpoint gives an unknown
    /// rev), with a sentence saying why.
    func pastRetention(rev: String, days: Int, as error: APIError) -> APIError {
        let what = pathDisplay.isEmpty ? "this file" : pathDisplay
        return error.saying("revision \(rev) of \(what) is past this club's history retention: revisions replaced more than \(days) day(s) ago are pruned (serve --history-days)")
    }

    /// A deleted file whose history retention removed.
    static func pastRetention(_ tombstone: Tombstone, days: Int, field: ErrorTag) -> APIError {
        let when = DropboxTimestamp.format(Date(timeIntervalSince1970: TimeInterval(tombstone.deleted)))
        return APIError.endpoint([field, .notFound])
            .saying("\(tombstone.path) was deleted at \(when), more than \(days) day(s) ago: its history is past this club's retention (serve --history-days)")
    }
}
