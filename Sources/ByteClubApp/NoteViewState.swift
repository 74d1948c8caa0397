import Markdown

/// The rendered view of the open note (``NoteViewLayer``): where it is scrolled to, the link
/// picked with Tab, and the notes that link here. The note itself is ``AppState/note``: the
/// view shows the editor's text as it is now, saved or not.
public struct NoteViewState: Sendable, Equatable {
    /// The first rendered row shown.
    public var scroll = 0
    /// How far wide tables are scrolled sideways, in cells.
    public var sideways = 0
    /// The link Tab picked (index into the layout's ``RenderedNote/links``); Enter opens it.
    public var selectedLink: Int?
    /// Opened from the Notes list (`v`): closing it closes the note too. Opened from the
    /// editor: closing it goes back to editing.
    public var openedFromList = false
    /// The notes that link to this one, listed under it (filled by ``NoteViewController/backlinks``).
    public var backlinks: [LinkingNote] = []
    /// A source line to scroll to at the next frame (the editor's cursor line when the view
    /// opens from the editor), a few rows down from the top.
    public var startAtSourceLine: Int?
    /// ``startAtSourceLine`` goes at the top row (a link's heading), not a few rows down.
    public var startAtTop = false

    public init(openedFromList: Bool = false) {
        self.openedFromList = openedFromList
    }
}

extension NoteSession {
    /// Whether the note is Markdown, as the editor's highlighting decides (a `.txt` note is
    /// shown as plain text, wrapped).
    var isMarkdown: Bool { ClubLayout.hasExtension(fileName, in: ["md"]) }
}
