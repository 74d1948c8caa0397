/// What one line of a two-way diff is: in both texts, only in the new one, or only in the old one.
public enum LineChange: Sendable, Equatable {
    case same, added, removed
}

/// A two-way line diff for display (the history view's "this revision against the current
/// text"): the same minimal Myers diff the merge uses, on lines already split the way the
/// caller shows them.
public enum TwoWayDiff {
    /// Every line of `old` and `new` in order, each marked kept, removed or added; within a
    /// changed run the removed lines come before the added ones.
    public static func lines(from old: [String], to new: [String]) -> [(change: LineChange, text: String)] {
        // Number the distinct lines so that the diff compares integers. Display diffs are small
        // enough for a plain dictionary (the merge's own table is for 1 MiB notes).
        var numbers: [String: Int32] = [:]
        func number(_ line: String) -> Int32 {
            if let known = numbers[line] { return known }
            let next = Int32(numbers.count)
            numbers[line] = next
            return next
        }
        let a = old.map(number), b = new.map(number)
        var result: [(change: LineChange, text: String)] = []
        result.reserveCapacity(max(old.count, new.count))
        var i = 0
        for hunk in LineDiff.hunks(a, b) {
            while i < hunk.a.lowerBound { result.append((.same, old[i])); i += 1 }
            for k in hunk.a { result.append((.removed, old[k])) }
            for k in hunk.b { result.append((.added, new[k])) }
            i = hunk.a.upperBound
        }
        while i < old.count { result.append((.same, old[i])); i += 1 }
        return result
    }
}
