/// The tags written in a note's text, as Obsidian reads them: `#trip` and `#project/alpha`.
///
/// A tag is a `#` at a line's start or after a space or tab, followed by letters, digits, `_`,
/// `-` and `/` (a nested tag's parts), with at least one that is no digit (`#1` and `#2026`
/// are no tags). So a heading's `# ` (a space follows), `##`, a web address's `/#part`, a
/// link's `[[#Heading]]` and `[x](#part)` are none. Code (spans, fenced and indented blocks),
/// HTML blocks, `%%comments%%` and the front matter are not looked in (the front matter's
/// `tags:` are ``NoteFrontMatter/tags``).
public enum InlineTags {
    /// The tags of `text` without their `#`, as written (case kept, a trailing `/` dropped),
    /// each once (compared without case), in the order they first appear.
    public static func scan(_ text: String) -> [String] {
        guard text.utf8.contains(UInt8(ascii: "#")) else { return [] }
        var text = text
        return text.withUTF8 { scan(utf8: $0) }
    }

    public static func scan(utf8 bytes: UnsafeBufferPointer<UInt8>) -> [String] {
        var lineStarts = [0]
        for i in 0..<bytes.count where bytes[i] == 0x0A { lineStarts.append(i + 1) }
        var walker = LinkWalker(lineCount: lineStarts.count)
        MarkdownParser.withDocument(ofUTF8: bytes) { walker.walk($0) }
        let bodyLine = NoteFrontMatter.fence(in: bytes)?.bodyLine ?? 0
        var found: [String] = []
        var seen: Set<String> = []
        var inComment = false
        for line in lineStarts.indices where line >= bodyLine && !walker.codeLines.contains(line) {
            let start = lineStarts[line]
            let end = line + 1 < lineStarts.count ? lineStarts[line + 1] - 1 : bytes.count
            let spans = walker.codeSpans[line] ?? []
            var i = start
            while i < end {
                let column = i - start
                let byte = bytes[i]
                if byte == UInt8(ascii: "%"), i + 1 < end, bytes[i + 1] == UInt8(ascii: "%"), inComment || !spans.contains(where: { $0.contains(column) }) {
                    inComment.toggle()
                    i += 2
                    continue
                }
                guard !inComment, byte == UInt8(ascii: "#"), i == start || bytes[i - 1] == 0x20 || bytes[i - 1] == 0x09,
                      !spans.contains(where: { $0.contains(column) }) else {
                    i += 1
                    continue
                }
                var j = i + 1
                var allDigits = true
                while j < end {
                    let length = characterLength(bytes, at: j, end: end)
                    let character = String(decoding: UnsafeBufferPointer(rebasing: bytes[j..<(j + length)]), as: UTF8.self)
                    guard let scalar = character.unicodeScalars.first, isTagCharacter(scalar) else { break }
                    if !(scalar.value >= 0x30 && scalar.value <= 0x39) && scalar != "/" { allDigits = false }
                    j += length
                }
                var tag = String(decoding: UnsafeBufferPointer(rebasing: bytes[(i + 1)..<j]), as: UTF8.self)
                while tag.hasSuffix("/") { tag.removeLast() }
                while tag.hasPrefix("/") { tag.removeFirst() }
                if !tag.isEmpty, !allDigits, seen.insert(tag.lowercased()).inserted { found.append(tag) }
                i = max(j, i + 1)
            }
        }
        return found
    }

    /// Where the tag that the `#` at `hash` opens in `text` ends (its trailing `/`s left out),
    /// or nil when it opens none (nothing after it, digits only, a `/` first). Whether what
    /// comes before the `#` lets it open a tag is the caller's to say.
    public static func tagEnd(in text: String, hash: String.Index) -> String.Index? {
        var end = text.index(after: hash)
        var lastKept = end
        var allDigits = true
        guard end < text.endIndex, text[end] != "/" else { return nil }
        while end < text.endIndex, let scalar = text[end].unicodeScalars.first, isTagCharacter(scalar) {
            if scalar != "/" {
                if !(scalar.value >= 0x30 && scalar.value <= 0x39) { allDigits = false }
                lastKept = text.index(after: end)
            }
            end = text.index(after: end)
        }
        return lastKept > text.index(after: hash) && !allDigits ? lastKept : nil
    }

    /// Letters and digits of any script, `_`, `-` and `/`.
    static func isTagCharacter(_ scalar: Unicode.Scalar) -> Bool {
        if scalar == "_" || scalar == "-" || scalar == "/" { return true }
        switch scalar.properties.generalCategory {
        case .uppercaseLetter, .lowercaseLetter, .titlecaseLetter, .modifierLetter, .otherLetter, .decimalNumber, .nonspacingMark,
             .spacingMark:
            return true
        default:
            return false
        }
    }

    /// The bytes of the UTF-8 sequence at `i` (1 for a stray byte), never past `end`.
    private static func characterLength(_ bytes: UnsafeBufferPointer<UInt8>, at i: Int, end: Int) -> Int {
        let lead = bytes[i]
        let length = lead < 0x80 ? 1 : lead >= 0xF0 ? 4 : lead >= 0xE0 ? 3 : lead >= 0xC0 ? 2 : 1
        return min(length, end - i)
    }
}
