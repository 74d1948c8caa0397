/// What to keep of one conflict.
public enum MergeChoice: Sendable, Hashable {
    /// Your lines.
    case mine
    /// The other member's lines.
    case theirs
    /// Yours, then theirs.
    case both
}

/// Lines that both sides changed, differently: the text they had in common, and each side's.
///
/// Each is whole lines with their endings ("" when a side deleted the lines).
public struct MergeConflict: Sendable, Hashable {
    public var base: String
    public var mine: String
    public var theirs: String

    public init(base: String, mine: String, theirs: String) {
        self.base = base
        self.mine = mine
        self.theirs = theirs
    }
}

/// A piece of a merge: text both sides agree on (or that only one side changed), or a conflict.
public enum MergeChunk: Sendable, Hashable {
    case stable(String)
    case conflict(MergeConflict)
}

/// A three-way merge: the chunks in order; when no chunk is a conflict, ``text`` is the merge.
public struct MergeResult: Sendable, Hashable {
    /// The pieces in order. While merging, a text without a final newline is given one (see
    /// ``endsWithNewline``), so every line of every chunk ends in ``lineEnding`` or "\n".
    public var chunks: [MergeChunk]
    /// What the texts' lines mostly end with: "\r\n" or "\n".
    public var lineEnding: String
    /// Whether the merged text ends with a newline: as mine, if mine added or removed the base's
    /// final newline, otherwise as theirs.
    public var endsWithNewline: Bool

    public init(chunks: [MergeChunk], lineEnding: String = "\n", endsWithNewline: Bool = true) {
        self.chunks = chunks
        self.lineEnding = lineEnding
        self.endsWithNewline = endsWithNewline
    }

    /// How many chunks are conflicts.
    public var conflictCount: Int {
        chunks.reduce(0) { count, chunk in
            if case .conflict = chunk { return count + 1 }
            return count
        }
    }

    /// Whether the sides changed no line differently.
    public var isClean: Bool { conflictCount == 0 }

    /// The merged text, when the merge is clean.
    public var text: String? {
        isClean ? resolved([]) : nil
    }

    /// The merged text with the `choices` made, one per conflict in order (a conflict past the
    /// end of `choices` keeps yours). "Both" puts yours first, then theirs, on lines of their own.
    public func resolved(_ choices: [MergeChoice]) -> String {
        var out = ""
        var index = 0
        for chunk in chunks {
            switch chunk {
            case .stable(let text):
                out += text
            case .conflict(let conflict):
                let choice = index < choices.count ? choices[index] : .mine
                index += 1
                out += Self.take(conflict, choice, lineEnding: lineEnding)
            }
        }
        if !endsWithNewline, out.utf8.last == 0x0A {
            // The newline the merge gave the last line goes again (bytes: "\r\n" is one Character).
            let crlf = lineEnding == "\r\n" && out.utf8.dropLast().last == 0x0D
            out = String(decoding: out.utf8.dropLast(crlf ? 2 : 1), as: UTF8.self)
        }
        return out
    }

    /// The text of one conflict under `choice`.
    public static func take(_ conflict: MergeConflict, _ choice: MergeChoice, lineEnding: String = "\n") -> String {
        switch choice {
        case .mine: return conflict.mine
        case .theirs: return conflict.theirs
        case .both:
            // Mine may be the note's last line, without its newline: theirs goes on a line of its own.
            if conflict.mine.isEmpty || conflict.theirs.isEmpty || conflict.mine.utf8.last == 0x0A {
                return conflict.mine + conflict.theirs
            }
            return conflict.mine + lineEnding + conflict.theirs
        }
    }
}

/// diff3, line by line: what changed from the base to mine and from the base to theirs, put
/// together.
///
/// Both line diffs (``LineDiff``) are walked side by side in the base's order. A change made by
/// one side only is taken; changes that touch the same base lines, or two insertions at the same
/// place, or an insertion right beside the other side's change, are one region: if both sides
/// made it the same it is taken once, otherwise it is a ``MergeConflict`` (with the lines both
/// sides agree on at its ends moved out of it). Changes to neighbouring lines do not overlap and
/// merge cleanly. Lines keep their endings (``Lines``): CRLF stays CRLF, a missing final newline
/// stays missing, and any UTF-8 text (CJK, emoji) merges as well as ASCII.
public enum ThreeWayMerge {
    /// Two texts written apart from nothing in common (two members' notes of the same name,
    /// made offline): the lines they share at their ends once, and where they differ, `first`'s
    /// lines, then `second`'s. Never a conflict: nothing either wrote is dropped.
    public static func union(_ first: String, _ second: String) -> String {
        let result = merge(base: "", mine: first, theirs: second)
        return result.resolved(Array(repeating: .both, count: result.conflictCount))
    }

    /// Both sides' changes over `base` as one text that loses neither: where they overlap, both
    /// are kept (mine, then theirs). For a live note's shared text, which has no one to ask.
    public static func keepingBoth(base: String, mine: String, theirs: String) -> String {
        let result = merge(base: base, mine: mine, theirs: theirs)
        return result.text ?? result.resolved(Array(repeating: .both, count: result.conflictCount))
    }

    /// Merges `mine` and `theirs`, two edits of `base`.
    public static func merge(base: String, mine: String, theirs: String) -> MergeResult {
        var baseLines = Lines(base), mineLines = Lines(mine), theirLines = Lines(theirs)
        let counts = [baseLines.endings, mineLines.endings, theirLines.endings]
        let crlf = counts.reduce(0) { $0 + $1.crlf } > counts.reduce(0) { $0 + $1.lf }
        // A last line without its newline is given one while merging, so that appending a line
        // after it is an insertion, not a change of that line; the merge then ends as decided below.
        let terminator: [UInt8] = crlf ? [0x0D, 0x0A] : [0x0A]
        let baseEnds = baseLines.endsWithNewline, mineEnds = mineLines.endsWithNewline, theirEnds = theirLines.endsWithNewline
        if !baseEnds { baseLines = Lines(bytes: baseLines.bytes + terminator) }
        if !mineEnds { mineLines = Lines(bytes: mineLines.bytes + terminator) }
        if !theirEnds { theirLines = Lines(bytes: theirLines.bytes + terminator) }

        // Number the lines; the table's keys point into the three texts, held alive here.
        let (b, m, t) = baseLines.bytes.withUnsafeBufferPointer { bb in
            mineLines.bytes.withUnsafeBufferPointer { mb in
                theirLines.bytes.withUnsafeBufferPointer { tb in
                    var table = LineTable(capacity: baseLines.count + 64)
                    return (table.number(baseLines, pinned: bb), table.number(mineLines, pinned: mb), table.number(theirLines, pinned: tb))
                }
            }
        }
        let regions = Diff3.regions(base: b, mine: m, theirs: t)
        var chunks: [MergeChunk] = []
        var stable: [UInt8] = []
        func flush() {
            if !stable.isEmpty {
                chunks.append(.stable(String(decoding: stable, as: UTF8.self)))
                stable.removeAll(keepingCapacity: true)
            }
        }
        for region in regions {
            switch region {
            case .base(let range): baseLines.append(range, to: &stable)
            case .mine(let range): mineLines.append(range, to: &stable)
            case .theirs(let range): theirLines.append(range, to: &stable)
            case .conflict(let base, let mine, let theirs):
                flush()
                chunks.append(.conflict(MergeConflict(base: baseLines.text(base), mine: mineLines.text(mine), theirs: theirLines.text(theirs))))
            }
        }
        flush()
        return MergeResult(chunks: chunks, lineEnding: crlf ? "\r\n" : "\n", endsWithNewline: mineEnds != baseEnds ? mineEnds : theirEnds)
    }
}

/// The diff3 walk over numbered lines.
enum Diff3 {
    /// A stretch of the merge: lines to copy from one text, or a conflict.
    enum Region: Equatable {
        case base(Range<Int>)
        case mine(Range<Int>)
        case theirs(Range<Int>)
        case conflict(base: Range<Int>, mine: Range<Int>, theirs: Range<Int>)
    }

    static func regions(base: [Int32], mine: [Int32], theirs: [Int32]) -> [Region] {
        let toMine = LineDiff.hunks(base, mine), toTheirs = LineDiff.hunks(base, theirs)
        var regions: [Region] = []
        var i = 0, j = 0
        // The next base line not yet copied, and each side's offset from the base after it.
        var position = 0, mineShift = 0, theirShift = 0

        /// Whether hunk x comes before hunk y in the base (an insertion before a change at the same line).
        func before(_ x: Hunk, _ y: Hunk) -> Bool {
            (x.a.lowerBound, x.a.upperBound) <= (y.a.lowerBound, y.a.upperBound)
        }

        while i < toMine.count || j < toTheirs.count {
            var mineHunks: [Hunk] = [], theirHunks: [Hunk] = []
            // Take the first hunk of either side, then every hunk that overlaps the region so far.
            let takeMine = j >= toTheirs.count || (i < toMine.count && before(toMine[i], toTheirs[j]))
            let first = takeMine ? toMine[i] : toTheirs[j]
            if takeMine { mineHunks.append(first); i += 1 } else { theirHunks.append(first); j += 1 }
            let start = first.a.lowerBound
            var end = first.a.upperBound
            // An insertion at `end` is in the region: a change starting there touches it.
            var insertionAtEnd = first.a.isEmpty
            while true {
                let nextMine = i < toMine.count ? toMine[i] : nil
                let nextTheirs = j < toTheirs.count ? toTheirs[j] : nil
                let isMine: Bool
                switch (nextMine, nextTheirs) {
                case (nil, nil): isMine = false
                case (.some, nil): isMine = true
                case (nil, .some): isMine = false
                case (.some(let x), .some(let y)): isMine = before(x, y)
                }
                guard let next = isMine ? nextMine : nextTheirs else { break }
                let overlaps = next.a.lowerBound < end || (next.a.lowerBound == end && (next.a.isEmpty || insertionAtEnd))
                guard overlaps else { break }
                if isMine { mineHunks.append(next); i += 1 } else { theirHunks.append(next); j += 1 }
                if next.a.upperBound > end {
                    end = next.a.upperBound
                    insertionAtEnd = false
                } else if next.a.isEmpty && next.a.lowerBound == end {
                    insertionAtEnd = true
                }
            }
            let mineRange = span(mineHunks, start: start, end: end, shift: mineShift)
            let theirRange = span(theirHunks, start: start, end: end, shift: theirShift)
            if position < start { regions.append(.base(position..<start)) }
            if theirHunks.isEmpty {
                regions.append(.mine(mineRange))
            } else if mineHunks.isEmpty {
                regions.append(.theirs(theirRange))
            } else if mine[mineRange].elementsEqual(theirs[theirRange]) {
                regions.append(.mine(mineRange))  // both made the same change
            } else {
                // Lines both sides agree on at the ends are not part of the conflict.
                var head = 0
                while head < mineRange.count, head < theirRange.count,
                      mine[mineRange.lowerBound + head] == theirs[theirRange.lowerBound + head] { head += 1 }
                var tail = 0
                while tail < mineRange.count - head, tail < theirRange.count - head,
                      mine[mineRange.upperBound - tail - 1] == theirs[theirRange.upperBound - tail - 1] { tail += 1 }
                if head > 0 { regions.append(.mine(mineRange.lowerBound..<mineRange.lowerBound + head)) }
                let mineRest = mineRange.lowerBound + head..<mineRange.upperBound - tail
                let theirRest = theirRange.lowerBound + head..<theirRange.upperBound - tail
                if start == end {
                    regions += insertions(mine: mineRest, theirs: theirRest, at: start, mine, theirs)
                } else {
                    regions.append(.conflict(base: start..<end, mine: mineRest, theirs: theirRest))
                }
                if tail > 0 { regions.append(.mine(mineRange.upperBound - tail..<mineRange.upperBound)) }
            }
            position = end
            mineShift = mineRange.upperBound - end
            theirShift = theirRange.upperBound - end
        }
        if position < base.count { regions.append(.base(position..<base.count)) }
        return regions
    }

    /// Both sides inserted lines at one place of the base (`at`): the lines both inserted are
    /// one insertion, taken once, and what only one side inserted around them is that side's,
    /// as git's zealous merge refines a conflict by diffing its two sides. Only where the two
    /// put different lines at the same place is there a conflict. Two members whose texts
    /// already shared a burst (a save that landed unheard before a crash, its draft saved
    /// again over the older base) add what each typed since, not the burst a second time.
    private static func insertions(mine mineRange: Range<Int>, theirs theirRange: Range<Int>, at position: Int,
                                   _ mine: [Int32], _ theirs: [Int32]) -> [Region] {
        let hunks = LineDiff.hunks(Array(mine[mineRange]), Array(theirs[theirRange]))
        var regions: [Region] = []
        var next = 0
        for hunk in hunks {
            if next < hunk.a.lowerBound { regions.append(.mine(mineRange.lowerBound + next..<mineRange.lowerBound + hunk.a.lowerBound)) }
            let ours = mineRange.lowerBound + hunk.a.lowerBound..<mineRange.lowerBound + hunk.a.upperBound
            let their = theirRange.lowerBound + hunk.b.lowerBound..<theirRange.lowerBound + hunk.b.upperBound
            if their.isEmpty {
                regions.append(.mine(ours))
            } else if ours.isEmpty {
                regions.append(.theirs(their))
            } else {
                regions.append(.conflict(base: position..<position, mine: ours, theirs: their))
            }
            next = hunk.a.upperBound
        }
        if next < mineRange.count { regions.append(.mine(mineRange.lowerBound + next..<mineRange.upperBound)) }
        return regions
    }

    /// A side's lines for base lines start..<end: through its hunks there, or shifted as they are
    /// when it changed none of them.
    private static func span(_ hunks: [Hunk], start: Int, end: Int, shift: Int) -> Range<Int> {
        guard let first = hunks.first, let last = hunks.last else { return start + shift..<end + shift }
        return first.b.lowerBound - (first.a.lowerBound - start)..<last.b.upperBound + (end - last.a.upperBound)
    }
}
