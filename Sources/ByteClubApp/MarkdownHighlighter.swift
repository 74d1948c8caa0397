import ClubKit
import Dispatch
import Markdown
import TerminalUI

/// Markdown highlighting for the note editor: parses the open note with cmark-gfm
/// (``MarkdownParser``) and hands the editor each visible line's styles.
///
/// A small note is parsed when it is drawn, so what is on screen always matches the text. A big
/// one (more than ``synchronousLineLimit`` lines) is parsed on a queue of its own, never on the
/// UI queue (a 1 MiB note takes tens of milliseconds to parse, longer than a frame), once typing
/// settles (``settleDelay``), so a burst of keys costs one parse, not one per key. Until the
/// new parse is in, the previous one is used line by line: a line is styled only when its text
/// is the one that was parsed, found at the same index or shifted by the lines added or removed
/// since; any other line (the one being typed in) is drawn plain. So a stale parse can never
/// put a style on the wrong text.
@MainActor
final class MarkdownHighlighter {
    /// Notes up to this many lines are parsed while drawing.
    static let synchronousLineLimit = 2_000
    /// How long a big note's parse waits after a keystroke for the next one: a burst of typing
    /// makes one parse at its end, not one per key on a core the UI queue may need.
    static let settleDelay: Duration = .milliseconds(120)

    /// Called when a parse made off the UI queue is ready (the app asks for a frame).
    var onReady: @MainActor () -> Void = {}
    /// The open note's text as it is now, taken when a background parse starts rather than at
    /// every frame: a snapshot held between keys would make each key's edit copy the note's
    /// array of lines.
    var source: @MainActor () -> (key: Key, lines: LineStore)? = { nil }

    /// Which text a parse is of: the note's draft and its edit count.
    struct Key: Equatable, Sendable {
        var draftID: String
        var version: Int
        var lineCount: Int
    }

    private struct Parsed: Sendable {
        var key: Key
        var lines: LineStore
        var highlights: MarkdownHighlights
    }

    private var parsed: Parsed?
    /// The newest text asked for while a parse runs or typing settles; parsed when they end.
    private var pending: Key?
    private var requested: Key?
    private var inFlight = false
    private var settling = false
    /// Settle delays waited in a row; after ``maxSettles`` the parse starts anyway, so a long
    /// burst of typing still sees its new lines styled about once a second.
    private var settles = 0
    static let maxSettles = 8
    /// Where parses run (and old ones are freed), giving way to the UI: one thread for the
    /// process, every highlighter's.
    private static let queue = YieldingThread(name: "byteclub.markdown")
    /// How a parse made on ``queue``, and the settling wait, reach the UI queue.
    private let hop: UIHop

    init(hop: UIHop = .main) {
        self.hop = hop
    }

    /// Whether a note with this file name is Markdown (`.txt` notes stay plain text).
    static func isMarkdown(_ fileName: String) -> Bool {
        ClubLayout.hasExtension(fileName, in: ["md"])
    }

    /// The parse key of `session`'s text.
    static func key(of session: NoteSession) -> Key {
        Key(draftID: session.draftID, version: session.version, lineCount: session.editor.body.lineCount)
    }

    /// The editor's styling hook for the open note, or nil for a plain-text note.
    func lineStyles(for session: NoteSession, syntax: SyntaxStyles) -> (@MainActor @Sendable (Int, [Character]) -> [LineStyle])? {
        guard Self.isMarkdown(session.fileName) else {
            parsed = nil
            return nil
        }
        let body = session.editor.body
        let key = Self.key(of: session)
        if parsed?.key != key, requested != key {
            requested = key
            if body.lineCount <= Self.synchronousLineLimit {
                let lines = body.lineClusters
                parsed = Parsed(key: key, lines: lines, highlights: Self.parse(lines))
            } else {
                pending = key
                startParse()
            }
        }
        guard let parsed else { return nil }
        let shift = body.lineCount - parsed.lines.count
        return { line, characters in
            Self.styles(of: line, characters, in: parsed, shift: shift, syntax: syntax)
        }
    }

    nonisolated private static func parse(_ lines: LineStore) -> MarkdownHighlights {
        TextBuffer.utf8(of: lines).withUnsafeBufferPointer { MarkdownParser.highlights(ofUTF8: $0) }
    }

    private func startParse() {
        guard !inFlight, !settling, pending != nil else { return }
        settling = true
        let asked = pending
        hop(after: Self.settleDelay) {
            self.settling = false
            // Still typing: wait for the burst to end (the previous parse styles the rest).
            if self.pending != asked, self.settles < Self.maxSettles {
                self.settles += 1
                self.startParse()
            } else {
                self.settles = 0
                self.launchParse()
            }
        }
    }

    private func launchParse() {
        guard !inFlight, pending != nil else { return }
        pending = nil
        // The note as it is now (newer than what was asked, if keys came since).
        guard let (key, lines) = source(), key.draftID == requested?.draftID else { return }
        inFlight = true
        Self.queue.async { [hop] in
            let highlights = Self.parse(lines)
            hop { self.finish(Parsed(key: key, lines: lines, highlights: highlights)) }
        }
    }

    private func finish(_ result: Parsed) {
        inFlight = false
        // A note closed or switched meanwhile: only the one still asked for is kept.
        if requested?.draftID == result.key.draftID {
            // The old parse goes on the parse queue: freeing a big note's spans line by line
            // takes a few milliseconds the UI queue should not spend.
            let old = parsed
            parsed = result
            Self.queue.async { withExtendedLifetime(old) {} }
        }
        startParse()
        onReady()
    }

    /// Line `line`'s styles from `parsed`, when its text is the one parsed (see the type's doc).
    private static func styles(of line: Int, _ characters: [Character], in parsed: Parsed, shift: Int, syntax: SyntaxStyles) -> [LineStyle] {
        var index = line
        if !(index < parsed.lines.count && parsed.lines[index] == characters) {
            index = line - shift
            guard shift != 0, index >= 0, index < parsed.lines.count, parsed.lines[index] == characters else { return [] }
        }
        let spans = parsed.highlights.spans(ofLine: index)
        guard !spans.isEmpty else { return [] }
        // cmark counts UTF-8 bytes; the editor counts clusters.
        var clusterAt: [Int] = []
        clusterAt.reserveCapacity(characters.count * 2)
        for (i, c) in characters.enumerated() {
            for _ in 0..<c.utf8.count { clusterAt.append(i) }
        }
        clusterAt.append(characters.count)
        return spans.map { span in
            let from = clusterAt[min(span.bytes.lowerBound, clusterAt.count - 1)]
            let to = span.bytes.upperBound >= clusterAt.count ? characters.count : clusterAt[span.bytes.upperBound]
            return LineStyle(from..<max(from, to), style(of: span.element, in: syntax))
        }
    }

    static func style(of element: MarkdownElement, in syntax: SyntaxStyles) -> Style {
        switch element {
        case .heading: syntax.heading
        case .emphasis: syntax.emphasis
        case .strong: syntax.strong
        case .strikethrough: syntax.strikethrough
        case .code: syntax.code
        case .codeBlock: syntax.codeBlock
        case .link: syntax.link
        case .listMarker: syntax.listMarker
        case .taskBox: syntax.taskBox
        case .blockQuote: syntax.blockQuote
        case .table: syntax.table
        case .tableHeader: syntax.tableHeader
        // Front matter is said about the note rather than part of it: dimmed, as a rule is.
        case .thematicBreak, .frontMatter: syntax.thematicBreak
        }
    }
}
