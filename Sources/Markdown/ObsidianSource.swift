/// Obsidian's syntax that CommonMark has no node for, rewritten into what cmark-gfm does parse
/// before the rendered view lays a note out (the note's own text is never changed):
///
/// - comments `%%…%%`, on one line or over several, are left out (their lines stay, empty);
/// - block math (`$$` lines, or `$$x$$` alone on a line) becomes a fenced block of info `math`,
///   drawn in a box as its source; inline math `$x$` becomes a code span;
/// - highlights `==x==` become `<mark>x</mark>`, which the layout draws highlighted;
/// - a block id `^id` at the end of a line (what `[[Note#^id]]` points at) is not shown.
///
/// None of it is looked for in code (fenced, indented, spans) or HTML blocks: the links'
/// walker (``LinkWalker``) says where code is. Lines may be added (a one-line `$$x$$` becomes
/// three), so ``lineMap`` gives the note's line of each line of ``text``.
struct ObsidianSource {
    /// What cmark parses.
    var text: String
    /// The note's line (from 0) of each line of ``text``.
    var lineMap: [Int]

    /// The rewritten text, or nil when `bytes` holds nothing to rewrite (then it is parsed as it is).
    static func prepare(_ bytes: UnsafeBufferPointer<UInt8>) -> ObsidianSource? {
        guard mayHaveSyntax(bytes) else { return nil }
        var lineStarts = [0]
        for i in 0..<bytes.count where bytes[i] == 0x0A { lineStarts.append(i + 1) }
        var walker = LinkWalker(lineCount: lineStarts.count)
        MarkdownParser.withDocument(ofUTF8: bytes) { walker.walk($0) }
        let bodyLine = NoteFrontMatter.fence(in: bytes)?.bodyLine ?? 0
        var rewriter = Rewriter()
        for line in lineStarts.indices {
            let end = line + 1 < lineStarts.count ? lineStarts[line + 1] - 1 : bytes.count
            let content = Array(bytes[lineStarts[line]..<end])
            if line < bodyLine || (walker.codeLines.contains(line) && !rewriter.inComment && !rewriter.inMath) {
                rewriter.emit(content, from: line)
            } else {
                rewriter.line(content, number: line, codeSpans: walker.codeSpans[line] ?? [])
            }
        }
        if rewriter.inMath { rewriter.emit(rewriter.mathPrefix + Array("~~~~".utf8), from: lineStarts.count - 1) }
        return ObsidianSource(text: String(decoding: rewriter.out, as: UTF8.self), lineMap: rewriter.lineMap)
    }

    /// Whether `bytes` holds `%%`, `$`, `==` or ` ^`: without any, there is nothing to rewrite.
    private static func mayHaveSyntax(_ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
        var previous: UInt8 = 0
        for byte in bytes {
            switch byte {
            case UInt8(ascii: "$"): return true
            case UInt8(ascii: "%"), UInt8(ascii: "="): if previous == byte { return true }
            case UInt8(ascii: "^"): if previous == UInt8(ascii: " ") { return true }
            default: break
            }
            previous = byte
        }
        return false
    }
}

/// Rewrites a note line by line (``ObsidianSource``).
private struct Rewriter {
    var out: [UInt8] = []
    var lineMap: [Int] = []
    /// Inside a `%%` comment that goes on past its line.
    var inComment = false
    /// Inside `$$` block math, and the quote or indent its opening line had.
    var inMath = false
    var mathPrefix: [UInt8] = []

    static let dollar = UInt8(ascii: "$"), percent = UInt8(ascii: "%"), equals = UInt8(ascii: "="), backtick = UInt8(ascii: "`")
    static let space = UInt8(ascii: " ")

    mutating func emit(_ line: [UInt8], from number: Int) {
        if !lineMap.isEmpty { out.append(0x0A) }
        out += line
        lineMap.append(number)
    }

    mutating func line(_ line: [UInt8], number: Int, codeSpans: [Range<Int>]) {
        let uncommented = inComment || line.contains(Self.percent) ? removeComments(line, codeSpans: codeSpans) : line
        // Comments may have shifted the line: code spans are found again on what is left.
        let spans = uncommented.count == line.count ? codeSpans : []
        if math(uncommented, number: number) { return }
        emit(inline(blockIDRemoved(uncommented), codeSpans: spans), from: number)
    }

    /// The line without its comments (their text and `%%`s), the state carried to the next line.
    private mutating func removeComments(_ line: [UInt8], codeSpans: [Range<Int>]) -> [UInt8] {
        var kept: [UInt8] = []
        var i = 0
        while i < line.count {
            let isMark = i + 1 < line.count && line[i] == Self.percent && line[i + 1] == Self.percent
            if isMark, inComment || !codeSpans.contains(where: { $0.contains(i) }) {
                inComment.toggle()
                i += 2
                continue
            }
            if !inComment { kept.append(line[i]) }
            i += 1
        }
        return kept
    }

    /// `$$` lines: block math as a fence (`~~~~math`) the layout boxes. True if the line was one.
    private mutating func math(_ line: [UInt8], number: Int) -> Bool {
        let prefixEnd = line.firstIndex { $0 != Self.space && $0 != UInt8(ascii: ">") && $0 != 0x09 } ?? line.count
        let prefix = Array(line[..<prefixEnd])
        let rest = Array(line[prefixEnd...])
        let opens = rest.count >= 2 && rest[0] == Self.dollar && rest[1] == Self.dollar
        if inMath {
            guard let close = Self.find([Self.dollar, Self.dollar], in: line, from: 0) else {
                emit(line, from: number)
                return true
            }
            let before = Array(line[..<close])
            if before.contains(where: { $0 != Self.space && $0 != UInt8(ascii: ">") }) { emit(before, from: number) }
            emit(mathPrefix + Array("~~~~".utf8), from: number)
            inMath = false
            return true
        }
        guard opens else { return false }
        let inner = Array(rest.dropFirst(2))
        mathPrefix = prefix
        emit(prefix + Array("~~~~math".utf8), from: number)
        if let close = Self.find([Self.dollar, Self.dollar], in: inner, from: 0) {
            emit(prefix + Array(inner[..<close]), from: number)
            emit(prefix + Array("~~~~".utf8), from: number)
        } else {
            if !inner.allSatisfy({ $0 == Self.space }) { emit(prefix + inner, from: number) }
            inMath = true
        }
        return true
    }

    /// A trailing ` ^id` (letters, digits, `-`; ``NoteAnchors/trailingID(_:)``) taken off.
    private func blockIDRemoved(_ line: [UInt8]) -> [UInt8] {
        guard NoteAnchors.trailingID(line) != nil, let caret = line.lastIndex(of: UInt8(ascii: "^")) else { return line }
        var cut = caret
        while cut > 0, line[cut - 1] == Self.space || line[cut - 1] == 0x09 { cut -= 1 }
        return Array(line[..<cut])
    }

    /// Inline math as code spans and highlights as `<mark>`, outside code spans.
    private func inline(_ line: [UInt8], codeSpans: [Range<Int>]) -> [UInt8] {
        guard line.contains(Self.dollar) || line.contains(Self.equals) else { return line }
        var result: [UInt8] = []
        var i = 0
        var highlightOpen = false
        var unclosed: Set<Int> = []
        while i < line.count {
            if codeSpans.contains(where: { $0.contains(i) }) || line[i] == Self.backtick {
                // A code span here (or one the comments moved): copied whole, backticks and all.
                let end = Self.codeSpanEnd(line, at: i, unclosed: &unclosed)
                result += line[i..<end]
                i = end
                continue
            }
            if line[i] == UInt8(ascii: "\\"), i + 1 < line.count {
                result += line[i...(i + 1)]
                i += 2
                continue
            }
            if line[i] == Self.dollar, let close = Self.inlineMathEnd(line, open: i) {
                let inner = Array(line[(i + 1)..<close])
                var run = 0, longest = 0
                for byte in inner { run = byte == Self.backtick ? run + 1 : 0; longest = max(longest, run) }
                let fence = [UInt8](repeating: Self.backtick, count: longest + 1)
                let pad: [UInt8] = inner.first == Self.backtick || inner.last == Self.backtick ? [Self.space] : []
                result += fence + pad + inner + pad + fence
                i = close + 1
                continue
            }
            if line[i] == Self.equals, i + 1 < line.count, line[i + 1] == Self.equals {
                let next = i + 2 < line.count ? line[i + 2] : Self.space
                let previous = i > 0 ? line[i - 1] : Self.space
                if !highlightOpen, next != Self.space, next != Self.equals, previous != Self.equals,
                   Self.find([Self.equals, Self.equals], in: line, from: i + 3) != nil {
                    result += Array("<mark>".utf8)
                    highlightOpen = true
                    i += 2
                    continue
                }
                if highlightOpen, previous != Self.space, next != Self.equals {
                    result += Array("</mark>".utf8)
                    highlightOpen = false
                    i += 2
                    continue
                }
            }
            result.append(line[i])
            i += 1
        }
        if highlightOpen { result += Array("</mark>".utf8) }
        return result
    }

    /// Where the code span opened by the backticks at `i` ends (past its closing run), or past
    /// the run itself when it is never closed. `unclosed` holds the run lengths found to have no
    /// closing run further on (none will after a later one either), so a line of unmatched runs
    /// is not scanned again for each.
    static func codeSpanEnd(_ line: [UInt8], at i: Int, unclosed: inout Set<Int>) -> Int {
        var open = i
        while open < line.count, line[open] == backtick { open += 1 }
        let length = open - i
        guard length > 0 else { return i + 1 }
        guard !unclosed.contains(length) else { return open }
        var j = open
        while j < line.count {
            if line[j] == backtick {
                var k = j
                while k < line.count, line[k] == backtick { k += 1 }
                if k - j == length { return k }
                j = k
            } else {
                j += 1
            }
        }
        unclosed.insert(length)
        return open
    }

    /// The closing `$` of inline math opened at `open`, by Obsidian's rule: no space just inside
    /// either `$`, and no digit just after the closing one (`$5 and $10` is money).
    static func inlineMathEnd(_ line: [UInt8], open: Int) -> Int? {
        guard open + 1 < line.count, line[open + 1] != space, line[open + 1] != dollar else { return nil }
        var j = open + 1
        while j < line.count {
            if line[j] == UInt8(ascii: "\\") { j += 2; continue }
            if line[j] == dollar {
                let after = j + 1 < line.count ? line[j + 1] : space
                if line[j - 1] != space, !(after >= 0x30 && after <= 0x39) { return j }
                return nil
            }
            j += 1
        }
        return nil
    }

    static func find(_ needle: [UInt8], in line: [UInt8], from start: Int) -> Int? {
        guard needle.count <= line.count, start <= line.count - needle.count else { return nil }
        for i in start...(line.count - needle.count) where line[i] == needle[0] && Array(line[i..<(i + needle.count)]) == needle {
            return i
        }
        return nil
    }
}
