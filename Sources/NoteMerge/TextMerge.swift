/// A change made to a note outside a live session, laid onto the live text word by word.
///
/// The line merge (``ThreeWayMerge``) is right where a person settles the conflicts. A live
/// note's shared text has no one to ask, and a line merge that keeps both sides of a conflict
/// keeps the lines both sides left as they were twice: a line added by the shell between two
/// lines the members had typed on put the whole region in twice, with every word in it. Here
/// the unit is a word (a run of letters and digits) or any other single character, so the two
/// sides clash only where they changed the same words; there the live text's words stay, and
/// the outside change's new words follow them (nothing either wrote is lost, and nothing
/// neither wrote is doubled).
public enum TextMerge {
    /// One replacement in `mine`: its UTF-16 `range` becomes `text`.
    public struct Edit: Equatable, Sendable {
        public var range: Range<Int>
        public var text: String

        public init(range: Range<Int>, text: String) {
            self.range = range
            self.text = text
        }
    }

    /// The edits that bring `theirs`'s changes (both `mine` and `theirs` are edits of `base`) into
    /// `mine`, last first: each can be made in turn with the offsets it gives.
    public static func edits(base: String, mine: String, theirs: String) -> [Edit] {
        var table: [Substring: Int32] = [:]
        let baseTokens = Tokens(base, table: &table)
        let mineTokens = Tokens(mine, table: &table)
        let theirTokens = Tokens(theirs, table: &table)
        let separators = Set(["\n", " "].compactMap { table[$0] })
        // Both sides' insertions placed alike, so an insertion beside a word the other side deleted
        // is beside it, not inside it (which would keep the word).
        let mineHunks = attachedToWhatIsBefore(LineDiff.anchoredHunks(baseTokens.numbers, mineTokens.numbers),
                                               base: baseTokens.numbers, theirs: mineTokens.numbers, separators: separators)
        let theirHunks = attachedToWhatIsBefore(oneInsertion(LineDiff.anchoredHunks(baseTokens.numbers, theirTokens.numbers), base: baseTokens.numbers, theirs: theirTokens.numbers),
                                                base: baseTokens.numbers, theirs: theirTokens.numbers, separators: separators)

        var edits: [Edit] = []
        for their in theirHunks {
            let text = theirTokens.text(their.b)
            let clashing = mineHunks.filter { clash($0.a, their.a) }
            if let first = clashing.first, let last = clashing.last {
                // The same change on both sides (a merge made before, from an older base): once.
                if clashing.count == 1, first.a == their.a, mineTokens.text(first.b) == text { continue }
                // Both changed these words: mine stay, and theirs' new words go beside them:
                // before them when they end a line (or end in a space), else after them.
                guard !text.isEmpty else { continue }
                let before = text.last.map { $0.isWhitespace } ?? false
                let at = before ? mineTokens.offset(first.b.lowerBound) : mineTokens.offset(last.b.upperBound)
                // Apart as theirs had them: a space theirs had beside these words that mine's
                // change took (` ann6` deleted, ` bob29` typed in its place) is not lost.
                let spaced = (before: theirTokens.isSpace(their.b.lowerBound - 1), after: theirTokens.isSpace(their.b.upperBound))
                edits.append(Edit(range: at..<at, text: mineTokens.apart(text, at: before ? first.b.lowerBound : last.b.upperBound, spaced: spaced)))
                continue
            }
            // Where `their.a` lies in mine: shifted by mine's changes before it.
            let shift = mineHunks.filter { $0.a.upperBound <= their.a.lowerBound }.reduce(0) { $0 + $1.b.count - $1.a.count }
            let start = their.a.lowerBound + shift
            let range = mineTokens.offset(start)..<mineTokens.offset(start + their.a.count)
            edits.append(Edit(range: range, text: text))
        }
        // Last first; two at one place keep their order once both are made.
        return edits.enumerated().sorted { ($0.element.range.lowerBound, $0.offset) > ($1.element.range.lowerBound, $1.offset) }.map(\.element)
    }

    /// `mine` with `theirs`'s changes laid on it (``edits(base:mine:theirs:)``).
    public static func merged(base: String, mine: String, theirs: String) -> String {
        var units = Array(mine.utf16)
        for edit in edits(base: base, mine: mine, theirs: theirs) {
            units.replaceSubrange(edit.range, with: Array(edit.text.utf16))
        }
        return String(decoding: units, as: UTF16.self)
    }

    /// Two insertions that are one: `X` at i and `Y` at j, where `Y` is base's words between i
    /// and j, are `X Y` at i (the diff may split a line added after an empty one so: `new` between
    /// the two `⏎`, then a `⏎`).
    private static func oneInsertion(_ hunks: [Hunk], base: [Int32], theirs: [Int32]) -> [Hunk] {
        var out: [Hunk] = []
        for hunk in hunks {
            if let last = out.last, last.a.isEmpty, hunk.a.isEmpty {
                let between = last.a.lowerBound..<hunk.a.lowerBound
                if hunk.b.count == between.count, theirs[hunk.b].elementsEqual(base[between]) {
                    out[out.count - 1] = Hunk(a: last.a, b: last.b.lowerBound..<(last.b.upperBound + between.count))
                    continue
                }
            }
            out.append(hunk)
        }
        return out
    }

    /// An insertion of lines (`X⏎` after a `⏎`) slid to where the same text is `⏎X`, at the end of
    /// the line before, and of words (`X ` after a space) to ` X`, after the word before: the
    /// diff may give either, and at the start of a line or a word it would meet whatever a member
    /// types there meanwhile, the two glued into one word by the live text; or lean on a space
    /// another member's delete of the next word takes with it (as members type and delete words:
    /// ` word`), leaving `#word` glued.
    ///
    /// A deletion of words is slid alike (`X ` to ` X`), so that an insertion beside the deleted
    /// word on the other side (` Y` after it) is beside the deletion, not inside it.
    /// Each never slides past the hunk before it (the words between are the same on both sides).
    private static func attachedToWhatIsBefore(_ hunks: [Hunk], base: [Int32], theirs: [Int32], separators: Set<Int32>) -> [Hunk] {
        guard !separators.isEmpty else { return hunks }
        var out: [Hunk] = []
        for hunk in hunks {
            let floor = (a: out.last?.a.upperBound ?? 0, b: out.last?.b.upperBound ?? 0)
            if hunk.b.isEmpty, !hunk.a.isEmpty, !separators.contains(base[hunk.a.lowerBound]) {
                var (i, k, j) = (hunk.a.lowerBound, hunk.a.upperBound, hunk.b.lowerBound)
                while i > floor.a, j > floor.b, base[i - 1] == base[k - 1], !separators.contains(base[i]) {
                    i -= 1; k -= 1; j -= 1
                }
                out.append(separators.contains(base[i]) ? Hunk(a: i..<k, b: j..<j) : hunk)
                continue
            }
            guard hunk.a.isEmpty, !hunk.b.isEmpty, !separators.contains(theirs[hunk.b.lowerBound]) else {
                out.append(hunk)
                continue
            }
            var (i, j, k) = (hunk.a.lowerBound, hunk.b.lowerBound, hunk.b.upperBound)
            while i > floor.a, j > floor.b, base[i - 1] == theirs[k - 1], !separators.contains(theirs[j]) {
                i -= 1; j -= 1; k -= 1
            }
            out.append(separators.contains(theirs[j]) ? Hunk(a: i..<i, b: j..<k) : hunk)
        }
        return out
    }

    /// Whether two changes of base's words touch the same words: their ranges overlap, or one is
    /// an insertion at the other's place or strictly inside it.
    private static func clash(_ a: Range<Int>, _ b: Range<Int>) -> Bool {
        if a.isEmpty && b.isEmpty { return a.lowerBound == b.lowerBound }
        if a.isEmpty { return a.lowerBound > b.lowerBound && a.lowerBound < b.upperBound }
        if b.isEmpty { return b.lowerBound > a.lowerBound && b.lowerBound < a.upperBound }
        return a.lowerBound < b.upperBound && b.lowerBound < a.upperBound
    }
}

/// A text cut into words (runs of letters and digits) and single other characters, numbered
/// alike across the texts of one merge, with where each starts in UTF-16.
private struct Tokens {
    var pieces: [Substring] = []
    var numbers: [Int32] = []
    /// UTF-16 offsets: where each piece starts, then the text's length.
    var starts: [Int] = [0]

    init(_ text: String, table: inout [Substring: Int32]) {
        var start = text.startIndex
        var offset = 0
        while start < text.endIndex {
            var end = text.index(after: start)
            if Self.isWord(text[start]) {
                while end < text.endIndex, Self.isWord(text[end]) { end = text.index(after: end) }
            }
            let piece = text[start..<end]
            pieces.append(piece)
            if let number = table[piece] {
                numbers.append(number)
            } else {
                let number = Int32(table.count)
                table[piece] = number
                numbers.append(number)
            }
            offset += piece.utf16.count
            starts.append(offset)
            start = end
        }
    }

    private static func isWord(_ character: Character) -> Bool { character.isLetter || character.isNumber }

    /// The UTF-16 offset where piece `index` starts (the text's length past the last).
    func offset(_ index: Int) -> Int { starts[index] }

    func text(_ range: Range<Int>) -> String { pieces[range].joined() }

    /// `text` to go in before piece `index`, with a space where it would glue a word of its own
    /// to a word beside it (two insertions at one place, each without a space between), or, on a
    /// side `spaced` says its own text had a space, to anything but a space.
    func apart(_ text: String, at index: Int, spaced: (before: Bool, after: Bool) = (false, false)) -> String {
        var text = text
        if index > 0, let left = pieces[index - 1].last, let first = text.first, !left.isWhitespace, !first.isWhitespace,
           spaced.before || (Self.isWord(left) && Self.isWord(first)) {
            text = " " + text
        }
        if index < pieces.count, let right = pieces[index].first, let last = text.last, !right.isWhitespace, !last.isWhitespace,
           spaced.after || (Self.isWord(right) && Self.isWord(last)) {
            text += " "
        }
        return text
    }

    /// Whether piece `index` is a space or a line's end (false past either end).
    func isSpace(_ index: Int) -> Bool {
        index >= 0 && index < pieces.count && pieces[index].allSatisfy(\.isWhitespace)
    }
}
