import DropboxWire
import Foundation
import Markdown
import Remote

/// What `cat` prints of a note: its text as it is, made safe for a terminal, or laid out as the
/// app's rendered view lays it out; and the object `cat --json` prints.
public enum CatOutput {
    /// `text` laid out `width` cells wide as the app's rendered view does: a `.txt` note as plain
    /// text, its links followed from its folder (the club's when it has no path, from stdin), the
    /// notes it embeds drawn from `embeds` (``NoteEmbeds``).
    ///
    /// - Parameter cellWidth: how many terminal cells a piece of text takes.
    public static func rendered(_ text: String, path: String?, width: Int, embeds: [String: EmbeddedNote],
                                cellWidth: @escaping @Sendable (Unicode.Scalar) -> Int) -> RenderedNote {
        var options = RenderOptions(plain: path?.lowercased().hasSuffix(".txt") ?? false)
        options.cellWidth = cellWidth
        options.folder = path.map { ($0 as NSString).deletingLastPathComponent } ?? ClubLayout().folder
        options.path = path
        if !embeds.isEmpty { options.embeds = { embeds[$0.destination.lowercased()] } }
        return RenderedNote.layout(text, width: width, options: options)
    }

    /// The text as it is for a terminal: a note's escapes are shown, not obeyed (lines and tabs kept).
    public static func shownOnTerminal(_ text: String) -> String {
        text.split(separator: "\n", omittingEmptySubsequences: false)
            .map { $0.split(separator: "\t", omittingEmptySubsequences: false).map { TerminalSafe.escape(String($0)) }.joined(separator: "\t") }
            .joined(separator: "\n")
    }
}

/// `cat --json`: snake_case, as every --json.
public struct CatJSON: Encodable, Sendable {
    public var pathDisplay: String?
    public var name: String?
    public var rev: String?
    public var size: Int64?
    public var modified: Date?
    public var text: String
    /// The plain layout, with `--render`.
    public var rendered: String?

    public init(entry: RemoteEntry?, path: String?, text: String, rendered: String?) {
        pathDisplay = entry?.path ?? path
        name = entry?.name
        rev = entry?.shownRev
        size = entry?.size
        modified = entry?.modified
        self.text = text
        self.rendered = rendered
    }

    enum CodingKeys: String, CodingKey {
        case pathDisplay = "path_display", name, rev, size, modified, text, rendered
    }
}
