import Foundation
import LiveText
import ClubKit

/// A live note's journal as the app reads it at open (`LiveNote.records`, each record a revision
/// mark or an update applied to the note's document): any bytes, a torn record, a damaged mark or
/// update passed over, never a trap; a mark read is written back the same; and the records,
/// written back as the journal writes them, read back the same.
enum LiveJournalTarget {
    static func run(_ data: Data) {
        let records = LiveNote.records(of: data)
        FuzzCheck.expect(records.reduce(0) { $0 + 4 + $1.count } <= data.count, "records longer than the journal")
        var document = LiveDocument(clientID: 7)
        for record in records {
            if let mark = RevisionMark(decoding: record) {
                FuzzCheck.expect(RevisionMark(decoding: mark.encoded()) == mark, "a revision mark written back reads differently")
            } else {
                FuzzCheck.expect(!RevisionMark.isMark(record) || (try? document.apply(update: record)) == nil, "a damaged mark applied as an update")
                try? document.apply(update: record)
            }
        }
        _ = document.text
        var written = Data()
        for record in records { written.append(contentsOf: LiveRecords.framed(record)) }
        FuzzCheck.expect(LiveNote.records(of: written) == records, "a journal written back reads differently")
    }
}
