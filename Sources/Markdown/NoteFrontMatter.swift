import Yams

/// A note's YAML front matter, as Obsidian, zk and nb write it: a `---` line at the very top,
/// YAML, and a closing `---` (or `...`) line; LF or CRLF. The YAML is read by Yams, never by hand.
///
/// A value with no I/O. A block that opens but never closes is no front matter (the whole text is
/// the body), as in Obsidian. A block whose YAML does not parse, or is not a mapping (a list, a
/// lone scalar), is still front matter: ``error`` says why, the properties are empty, and callers
/// show the block as it is, so it is never lost.
public struct NoteFrontMatter: Sendable, Equatable {
    /// One `key: value`, both as display text: a list's items joined by ", ", a nested mapping in
    /// braces, line breaks as spaces, cut at ``displayLimit`` characters.
    public struct Property: Sendable, Hashable {
        public var key: String
        public var value: String

        public init(key: String, value: String) {
            self.key = key
            self.value = value
        }
    }

    /// The properties in the order written.
    public let properties: [Property]
    /// `tags:` as a list (`[a, b]` or `- a` lines) or a string (`a b`, `a, b`); a leading `#` dropped.
    public let tags: [String]
    /// `pinned:` is YAML true (`true`, `yes`, `on`).
    public let pinned: Bool
    /// `aliases:` as a list, or a string (one alias): other titles the note answers to in `[[links]]`.
    public let aliases: [String]
    /// Why the YAML was not read, one line (nil when it was).
    public let error: String?
    /// The text between the fences, as written.
    public let yaml: String
    /// The first line of the body, from 0 (the line after the closing fence).
    public let bodyLine: Int
    /// Where the body starts, in UTF-8 bytes from the start of the text.
    public let bodyOffset: Int

    /// What the one-line warning over front matter that does not parse starts with (then ``error``).
    public static let warning = "Front matter does not parse: "

    /// Front matter bigger than this is not parsed (``error`` says so); its text is kept.
    public static let maximumBytes = 256 * 1024
    /// The longest display text of one property's key or value, in characters.
    public static let displayLimit = 400

    /// The front matter at the top of `text`, or nil when it has none.
    public init?(_ text: String) {
        var text = text
        guard let found = text.withUTF8({ Self.init(utf8: $0) }) else { return nil }
        self = found
    }

    /// The front matter at the top of a note's UTF-8 bytes, or nil when it has none.
    public init?(utf8 bytes: UnsafeBufferPointer<UInt8>) {
        guard let fence = Self.fence(in: bytes) else { return nil }
        let yaml = String(decoding: UnsafeBufferPointer(rebasing: bytes[fence.yaml]), as: UTF8.self)
        self.yaml = yaml
        bodyLine = fence.bodyLine
        bodyOffset = fence.bodyOffset
        var read = Reading()
        if fence.yaml.count > Self.maximumBytes {
            read.error = "it is over \(Self.maximumBytes / 1024) KiB"
        } else {
            read.read(yaml)
        }
        properties = read.properties
        tags = read.tags
        pinned = read.pinned
        aliases = read.aliases
        error = read.error
    }

    /// The value of `key` as display text, nil when it is not there.
    public func value(_ key: String) -> String? {
        properties.first { $0.key == key }?.value
    }

    /// The text after the front matter (all of `text` when it has none).
    public static func body(of text: String) -> Substring {
        guard let matter = NoteFrontMatter(text) else { return Substring(text) }
        let utf8 = text.utf8
        return Substring(utf8[utf8.index(utf8.startIndex, offsetBy: matter.bodyOffset)...])
    }

    /// The fences: the YAML's bytes, and where the body starts (byte, line). Nil when the text
    /// does not open with a `---` line or the block never closes.
    public static func fence(in bytes: UnsafeBufferPointer<UInt8>) -> (yaml: Range<Int>, bodyOffset: Int, bodyLine: Int)? {
        guard let first = lineEnd(bytes, from: 0), isFence(bytes, 0..<first.content, opening: true) else { return nil }
        var start = first.next
        var line = 1
        while start < bytes.count, let end = lineEnd(bytes, from: start) {
            if isFence(bytes, start..<end.content, opening: false) {
                return (first.next..<start, end.next, line + 1)
            }
            start = end.next
            line += 1
        }
        return nil
    }

    /// The line from `start`: where its text ends (before `\r\n` or `\n`) and the next begins.
    private static func lineEnd(_ bytes: UnsafeBufferPointer<UInt8>, from start: Int) -> (content: Int, next: Int)? {
        guard start < bytes.count else { return nil }
        var index = start
        while index < bytes.count, bytes[index] != 0x0A { index += 1 }
        let next = index < bytes.count ? index + 1 : index
        let content = index > start && bytes[index - 1] == 0x0D ? index - 1 : index
        return (content, next)
    }

    /// `---` (or, closing, `...`), then only spaces or tabs.
    private static func isFence(_ bytes: UnsafeBufferPointer<UInt8>, _ line: Range<Int>, opening: Bool) -> Bool {
        guard line.count >= 3 else { return false }
        let mark = bytes[line.lowerBound]
        guard mark == 0x2D || (!opening && mark == 0x2E) else { return false }
        guard bytes[line.lowerBound + 1] == mark, bytes[line.lowerBound + 2] == mark else { return false }
        return bytes[(line.lowerBound + 3)..<line.upperBound].allSatisfy { $0 == 0x20 || $0 == 0x09 }
    }
}

/// What Yams made of the YAML, turned into display text and the three keys byteclub reads.
private struct Reading {
    var properties: [NoteFrontMatter.Property] = []
    var tags: [String] = []
    var pinned = false
    var aliases: [String] = []
    var error: String?

    mutating func read(_ yaml: String) {
        let root: Node?
        do {
            root = try Yams.compose(yaml: yaml)
        } catch {
            self.error = Self.message(error)
            return
        }
        guard let root else { return }
        guard case .mapping(let mapping) = root else {
            error = "it is \(Self.kind(root)), not `key: value` lines"
            return
        }
        for (key, value) in mapping {
            let name = Self.display(key)
            properties.append(NoteFrontMatter.Property(key: name, value: Self.display(value)))
            switch name {
            case "tags": tags = Self.words(value, split: true).map { $0.hasPrefix("#") ? String($0.dropFirst()) : $0 }.filter { !$0.isEmpty }
            case "aliases": aliases = Self.words(value, split: false)
            case "pinned": pinned = value.bool ?? false
            default: break
            }
        }
    }

    /// A list's scalar items, or a string's words (split on commas and spaces when `split`).
    static func words(_ node: Node, split: Bool) -> [String] {
        switch node {
        case .sequence(let sequence):
            return sequence.compactMap { $0.scalar?.string.trimmed }.filter { !$0.isEmpty }
        case .scalar(let scalar):
            guard !scalar.string.isEmpty, node.null == nil else { return [] }
            guard split else { return [scalar.string.trimmed].filter { !$0.isEmpty } }
            return scalar.string.split(whereSeparator: { $0 == "," || $0 == " " || $0 == "\t" }).map(String.init)
        default:
            return []
        }
    }

    static func kind(_ node: Node) -> String {
        switch node {
        case .sequence: "a list"
        case .mapping: "a mapping"
        case .scalar: "a single value"
        case .alias: "an alias"
        }
    }

    /// A node as one line of text, at most ``NoteFrontMatter/displayLimit`` characters; aliases
    /// expanded within that budget (so a billion laughs costs no more than a line).
    static func display(_ node: Node) -> String {
        var budget = NoteFrontMatter.displayLimit
        var text = ""
        append(node, to: &text, budget: &budget, nested: false)
        if budget < 0 || text.count > NoteFrontMatter.displayLimit { text = String(text.prefix(NoteFrontMatter.displayLimit - 1)) + "…" }
        return text
    }

    /// Every piece written counts against `budget`, brackets and commas too, so no shape of
    /// aliases (empty items nested deep) writes more than the limit.
    private static func append(_ node: Node, to text: inout String, budget: inout Int, nested: Bool) {
        func put(_ piece: String) {
            text += piece.prefix(max(0, budget + 1))
            budget -= max(1, piece.count)
        }
        guard budget > 0 else { return }
        switch node {
        case .scalar(let scalar):
            let line = node.null != nil && scalar.style == .plain ? "" : scalar.string
            put(line.split(whereSeparator: \.isNewline).joined(separator: " "))
        case .sequence(let sequence):
            if nested { put("[") }
            for (index, item) in sequence.enumerated() {
                guard budget > 0 else { break }
                if index > 0 { put(", ") }
                append(item, to: &text, budget: &budget, nested: true)
            }
            if nested { put("]") }
        case .mapping(let mapping):
            if nested { put("{") }
            for (index, pair) in mapping.enumerated() {
                guard budget > 0 else { break }
                if index > 0 { put(", ") }
                append(pair.key, to: &text, budget: &budget, nested: true)
                put(": ")
                append(pair.value, to: &text, budget: &budget, nested: true)
            }
            if nested { put("}") }
        case .alias(let alias):
            put("*" + alias.anchor.rawValue)
        }
    }

    /// Yams's error as one line, its line counted in the note (the opening fence is line 1).
    static func message(_ error: any Error) -> String {
        guard let yaml = error as? YamlError else { return "\(error)".split(whereSeparator: \.isNewline).first.map(String.init) ?? "" }
        switch yaml {
        case .scanner(let context, let problem, let mark, _), .parser(let context, let problem, let mark, _),
             .composer(let context, let problem, let mark, _):
            let what = ((context.map { $0.text + " " } ?? "") + problem).trimmed
            return "\(what) (line \(mark.line + 1), column \(mark.column))"
        case .reader(let problem, _, _, _):
            return problem
        case .duplicatedKeysInMapping(let duplicates, _):
            return "a key given twice: " + duplicates.sorted().joined(separator: ", ")
        default:
            return "\(yaml)".split(whereSeparator: \.isNewline).first.map(String.init) ?? ""
        }
    }
}

private extension String {
    var trimmed: String {
        var text = Substring(self)
        while let first = text.first, first.isWhitespace { text.removeFirst() }
        while let last = text.last, last.isWhitespace { text.removeLast() }
        return String(text)
    }
}
