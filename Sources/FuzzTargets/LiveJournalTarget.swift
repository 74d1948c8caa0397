import Foundation
import LiveText
import ClubKit

/// A live note's journal as the app reads it at open (`LiveNote.records`, each record an update
/// applied to the note's document): any bytes, a torn record or a damaged update passed over,
/// never a trap; and the records, written back as the journal writes them, read back the same.
enum LiveJournalTarget {
    static func run(_ data: Data) {
        let records = LiveNote.records(of: data)
        FuzzCheck.expect(records.reduce(0) { $0 + 4 + $1.count } <= data.count, "records longer than the journal")
        var document = LiveDocument(clientID: 7)
        for record in records { try? document.apply(update: record) }
        _ = document.text
        var written = Data()
        for record in records {
            let count = record.count
            written.append(contentsOf: [UInt8(count >> 24 & 0xFF), UInt8(count >> 16 & 0xFF), UInt8(count >> 8 & 0xFF), UInt8(count & 0xFF)])
            written.append(record)
        }
        FuzzCheck.expect(LiveNote.records(of: written) == records, "a journal written back reads differently")
    }
}
