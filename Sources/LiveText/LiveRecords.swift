/// How a live note's history is kept on disk, in the club server's room log and in each
/// member's journal alike: records one after another, each a 4-byte big-endian length and then
/// that many bytes (an update, a snapshot or a ``RevisionMark``).
public enum LiveRecords {
    /// `payload` as one record.
    public static func framed<Bytes: Collection<UInt8>>(_ payload: Bytes) -> [UInt8] {
        let count = payload.count
        var record = [UInt8(count >> 24 & 0xFF), UInt8(count >> 16 & 0xFF), UInt8(count >> 8 & 0xFF), UInt8(count & 0xFF)]
        record.reserveCapacity(4 + count)
        record.append(contentsOf: payload)
        return record
    }

    /// The whole records `bytes` starts with, and how many bytes they take: a record cut short
    /// (a write a crash stopped) and whatever follows it are not records.
    public static func split(_ bytes: [UInt8]) -> (records: [ArraySlice<UInt8>], length: Int) {
        var records: [ArraySlice<UInt8>] = []
        var at = 0
        while at + 4 <= bytes.count {
            let length = Int(bytes[at]) << 24 | Int(bytes[at + 1]) << 16 | Int(bytes[at + 2]) << 8 | Int(bytes[at + 3])
            guard length <= bytes.count - at - 4 else { break }
            records.append(bytes[(at + 4)..<(at + 4 + length)])
            at += 4 + length
        }
        return (records, at)
    }
}
