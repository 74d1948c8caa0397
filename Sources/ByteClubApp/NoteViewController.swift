import Foundation
import Markdown
import Remote
import TerminalUI

/// Opens and closes the rendered view of a note (``NoteViewLayer``) and does what its links
/// ask: a web address opens in the browser after asking, a club photo opens in the viewer, a
/// note link is followed (``Navigator``), and the notes that link here come from the index.
///
/// Three seams are closures a test may put (``ClubApp``'s `onFollowNoteLink`, `backlinks`,
/// `noteExists`); unset, the helpers answer.
@MainActor
final class NoteViewController {
    let context: AppContext
    let navigator: Navigator
    let noteIndex: NoteIndex
    let edits: NoteEdits
    let transfers: PhotoTransfers
    /// The club photos drawn in notes: the same cache (memory and disk) as the Photos tab's
    /// previews, so a photo seen there is not fetched again.
    let pictures: Thumbnails
    var graphics: TerminalGraphics? { context.configuration.graphics }
    /// The width and height of pictures drawn in notes so far, by path in lower case: their
    /// aspect ratios outlive the thumbnails' cache, so a picture sized by its width alone keeps
    /// its rows when its thumbnail is dropped.
    var pictureRatios: [String: (width: Int, height: Int)] = [:]
    /// The folder of the open note, which its relative links and pictures are read from.
    var folder: String { context.state.note?.saveFolder(root: context.configuration.layout.folder) ?? context.configuration.layout.folder }

    /// Follows a link to a note (`.note(title:)` or `.path`); nil: the navigator follows it.
    var onFollowNoteLink: (@MainActor (NoteLinkTarget) -> Void)?
    /// The notes that link to the note at a path; nil: the search index's.
    var backlinks: (@MainActor (_ path: String, _ deliver: @escaping @MainActor ([LinkingNote]) -> Void) -> Void)?
    /// Whether a linked note exists; nil: the notes list says.
    var noteExists: (@MainActor (NoteLinkTarget) -> Bool)?
    /// Texts of embedded notes fetched for the view, by lower-case path, with the rev the notes
    /// list named when they were asked for (NoteViewController+Embeds.swift); and the paths and
    /// revs asked for, each once.
    var embedTexts: [String: (rev: String?, text: String)] = [:]
    var embedFetches: Set<String> = []
    /// Counts texts that came in for embeds: part of the layout's key, so they are drawn.
    var embedsVersion = 0
    /// The embeds of the open note as last found, and what they were found for.
    var embedsMemo: (key: String, notes: [String: EmbeddedNote])?
    /// Opens a web address: `xdg-open` where there is one (``WebOpener``).
    var openWeb: @MainActor (String) -> WebOpener.Outcome = { WebOpener.open($0) }

    init(context: AppContext, navigator: Navigator, noteIndex: NoteIndex, edits: NoteEdits, transfers: PhotoTransfers) {
        self.context = context
        self.navigator = navigator
        self.noteIndex = noteIndex
        self.edits = edits
        self.transfers = transfers
        pictures = Thumbnails(store: context.store, directory: context.configuration.thumbnailsDirectory, size: .w1024h768,
                              effects: context.effects)
        pictures.capacity = 12
        pictures.maxConcurrentFetches = 2
        pictures.onChange = { [compositor = context.compositor] in compositor.setNeedsRedraw() }
    }

    // MARK: Opening and closing

    /// `v` in the Notes list: the selected note, rendered (it loads as the editor's does).
    func openSelected() {
        if context.state.note == nil { navigator.openSelected() }
        guard context.state.note != nil else { return }
        show(fromList: true)
    }

    /// `Alt-V` in the editor: the note being edited, rendered, at the part the cursor is in.
    func openFromEditor() {
        guard let session = context.state.note, session.stage != .loading, session.merge == nil else { return }
        show(fromList: false)
        // The view opens at the part the cursor is in (laid out at the first frame).
        context.update { $0.noteView?.startAtSourceLine = session.editor.body.cursor.line }
    }

    private func show(fromList: Bool) {
        // The status bar names the view now (MainScreen); what was said of the editor or the
        // list ("Editing … · Ctrl-S saves") is not true of it.
        context.update {
            $0.noteView = NoteViewState(openedFromList: fromList)
            $0.message = nil
        }
    }

    /// Leaves the view: back to the editor, or (opened from the list, and not `toEditor`)
    /// closes the note too.
    func close(toEditor: Bool) {
        let fromList = context.state.noteView?.openedFromList ?? false
        context.update { $0.noteView = nil }
        // Opened from the list, the note closes too, as `Esc` closes it in the editor (asking
        // first about unsaved changes: the notes controller's question).
        if fromList, !toEditor { context.send(.closeNoteAfterView) }
    }

    /// After every change of the state: the layer is shown while ``AppState/noteView`` is set
    /// and a note is open. (A note opened to a place is put there by whoever opened it:
    /// ``AppState/arriveAtPlace()``.) Whoever closes a note for another only clears the state.
    func stateChanged() {
        // The view (NoteViewLayer) is on screen while the state holds it and a note is open;
        // the view of a note that closed goes with it.
        if context.state.noteView != nil, context.state.note == nil { context.model.updateQuietly { $0.noteView = nil } }
    }

    /// Ctrl-O in the view.
    func back() { navigator.back() }

    /// The editor's key for the view; true if taken.
    func handleEditorKey(_ key: Key) -> Bool {
        guard let action = Self.editorBindings.action(for: key) else { return false }
        guard let session = context.state.note, session.stage != .loading, session.merge == nil else { return false }
        switch action {
        case .render: openFromEditor()
        case .insertPhoto, .uploadPhoto:
            if session.isReadOnly {
                context.say(.error("This note is read-only: it is not valid UTF-8 text"))
            } else if action == .insertPhoto {
                choosePhotoToInsert()
            } else {
                uploadPhotoToInsert()
            }
        }
        return true
    }

    /// When the open note's list of linking notes may have changed: the view came on screen, the
    /// index took in changes, the notes list changed (``AppEvent``).
    func refreshBacklinks() {
        guard context.state.noteView != nil, let path = context.state.note?.entry?.path else { return }
        let ask = backlinks ?? { [noteIndex] in noteIndex.backlinks(to: $0, $1) }
        ask(path) { [weak self] list in
            // The answer may come after the view closed or moved to another note.
            guard let self, self.context.state.noteView != nil, self.context.state.note?.entry?.path == path,
                  list != self.context.state.noteView?.backlinks else { return }
            self.context.update { $0.noteView?.backlinks = list }
        }
    }


    // MARK: Links

    func exists(_ target: NoteLinkTarget) -> Bool {
        switch target {
        case .note, .path: return noteExists?(target) ?? navigator.noteExists(target)
        case .here: return true
        case .photo(let path): return photoEntry(path) != nil || !context.state.photos.hasLoaded
        case .web, .elsewhere: return true
        }
    }

    /// The photo at a club path, from the Photos list; else, as Obsidian finds a picture by its
    /// name anywhere (`![[x.png]]` of a picture an import put in an album), the one photo of
    /// that name, if only one has it; else a picture kept beside the notes (a vault's SVG icon,
    /// which import leaves at its vault path as an attachment), as the core's resolver finds it
    /// for `links` too (``NoteResolver/resolvePicture(at:from:)``).
    func photoEntry(_ path: String) -> RemoteEntry? {
        let lower = path.lowercased()
        let entries = context.state.photos.entries
        if let exact = entries.first(where: { $0.pathLower == lower }) { return exact }
        let name = "/" + (lower.split(separator: "/").last.map(String.init) ?? lower)
        let named = entries.filter { $0.pathLower.hasSuffix(name) }
        if named.count == 1 { return named[0] }
        guard named.isEmpty else { return nil }
        switch navigator.resolver.resolvePicture(at: path, from: context.state.note?.entry?.path) {
        case .one(let entry): return entry
        case .several(let entries): return entries.first
        case .none: return nil
        }
    }

    /// Enter or a click on a link.
    func follow(_ link: RenderedLink) {
        switch link.target {
        case .note, .path, .here:
            if let onFollowNoteLink { onFollowNoteLink(link.target) } else { navigator.follow(link.target, fragment: link.link.fragment) }
        case .photo(let path):
            if let entry = photoEntry(path) {
                // The full-screen viewer is on screen while the state holds it.
                if context.state.viewer == nil { context.update { $0.viewer = PhotoViewer(pathLower: entry.pathLower) } }
            } else {
                context.say(.error("No photo \(TerminalSafe.escape(path)) in the club"))
            }
        case .web(let address):
            askToOpen(address.lowercased().hasPrefix("www.") ? "https://" + address : address)
        case .elsewhere(let address):
            context.say(StatusMessage("Not opened (not a web address or a note): \(TerminalSafe.escape(address))"))
        }
    }

    /// A web address opens only after a yes: a note is written by others, and a link can say
    /// one thing and lead to another. Cancel is the default.
    private func askToOpen(_ address: String) {
        let shown = TerminalSafe.escape(address)
        let modal = Modal(title: "Open in the browser?", body: [shown], buttons: ["Open", "Cancel"])
        context.ask { DialogLayer(modal, selected: 1) { [weak self] choice in
            guard let self, choice == 0 else { return }
            switch self.openWeb(address) {
            case .opened: self.context.say(StatusMessage("Opened \(shown)"))
            case .noOpener:
                self.context.configuration.clipboard?(address)
                self.context.say(StatusMessage("No xdg-open here; the address (copied): \(shown)"))
            case .failed(let why): self.context.say(.error("Could not open \(shown): \(why)"))
            }
        } }
    }

    // MARK: Keys

    enum EditorAction: Hashable, Sendable { case render, insertPhoto, uploadPhoto }

    /// The editor's key for the view (the Notes list's `v` is in ``MainScreen/notesBindings``).
    static let editorBindings = KeyBindings<EditorAction>(group: "Editor", [
        .init([.alt("v")], .render, "Rendered view (Alt-V again: back to editing)"),
        .init([.alt("i")], .insertPhoto, "Insert a photo from the club's photos"),
        .init([.alt("u")], .uploadPhoto, "Upload a photo and insert it"),
    ])
}

/// Opens web addresses with the desktop's opener.
enum WebOpener {
    enum Outcome: Equatable {
        case opened
        /// No `xdg-open` on the PATH (a server, a container): the address is shown instead.
        case noOpener
        case failed(String)
    }

    /// Hands the address to the system's opener (``SystemOpener``: `$BYTECLUB_OPEN`, else
    /// `xdg-open`), as a file is.
    static func open(_ address: String, environment: [String: String] = ProcessInfo.processInfo.environment) -> Outcome {
        switch SystemOpener.open(address, environment: environment) {
        case .opened: return .opened
        case .noOpener: return .noOpener
        case .failed(let why): return .failed(why)
        }
    }
}
