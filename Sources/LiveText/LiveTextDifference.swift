/// What turns one text into another as one replacement: the UTF-16 range of the old text it
/// removes and the text it puts there, their common start and end kept. For a text that changed
/// as a whole (a join's merge, a file merged in), never for a key: the editor records each key's
/// own edit.
public enum LiveTextDifference {
    /// `cursor` (a UTF-16 offset in `new`), when given, keeps the common start from reaching past
    /// where the typing was: "a" typed after "r" before another member's "ann" is an insert after
    /// "r", not after "ra".
    public static func between(_ old: String, _ new: String, cursor: Int? = nil) -> (removed: Range<Int>, inserted: String) {
        let old = Array(old.utf16), new = Array(new.utf16)
        var head = 0
        while head < old.count, head < new.count, old[head] == new[head] { head += 1 }
        if let cursor { head = min(head, max(0, cursor - max(0, new.count - old.count))) }
        var tail = 0
        while tail < old.count - head, tail < new.count - head, old[old.count - 1 - tail] == new[new.count - 1 - tail] { tail += 1 }
        // Never half a surrogate pair (it would not survive as a String).
        if head > 0, UTF16.isLeadSurrogate(new[head - 1]) { head -= 1 }
        if tail > 0, UTF16.isTrailSurrogate(new[new.count - tail]) { tail -= 1 }
        return (head..<(old.count - tail), String(decoding: new[head..<(new.count - tail)], as: UTF16.self))
    }
}
