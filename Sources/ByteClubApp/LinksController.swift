import Foundation
import Markdown
import Remote
import TerminalUI

/// Links between notes in the editor: "Follow the link" under the cursor, "Back" through the
/// notes links left, and the "Backlinks" panel (LinksController+Backlinks.swift); renames that
/// offer to update every `[[old title]]` (LinksController+Rename.swift).
///
/// ``follow(_:)`` is also the entry point for a link followed anywhere else (the rendered
/// view): it opens the note and remembers the one it left. A link to a note that does not exist
/// offers to create it. The note the editor leaves must have no unsaved edits: the link never
/// closes work away (its draft would survive, but the user would not see where it went).
@MainActor
final class LinksController {
    enum Action: Hashable, Sendable { case follow, back, backlinks }

    /// Keys free in the editor's tables: Ctrl-] is vim's "follow the tag", Ctrl-O its jump back.
    static let bindings = KeyBindings<Action>(group: "Links", [
        .init([.ctrl("]")], .follow, "Follow the link under the cursor ([[Title]], [x](Note.md))"),
        .init([.ctrl("o")], .back, "Back to the note the last followed link left"),
        .init([.alt("l")], .backlinks, "Backlinks: the notes that link to this one"),
    ])

    /// The mouse's way to follow, for help (a click has no key to match).
    static let mouseCommands = [
        Command(keys: [], description: "Follow the link clicked", group: "Links", keyLabel: "Ctrl-click a link"),
    ]

    let context: AppContext
    /// Opens the linked notes, and goes back.
    let navigator: Navigator
    /// The search index backlinks come from.
    let noteIndex: NoteIndex
    /// Which backlinks query is the latest; an older answer is dropped.
    var backlinksGeneration = 0
    /// ``AppState/indexChanges`` as the backlinks panel last asked the index.


    init(context: AppContext, navigator: Navigator, noteIndex: NoteIndex) {
        self.context = context
        self.navigator = navigator
        self.noteIndex = noteIndex
    }

    var state: AppState { context.state }
    var folder: String { context.configuration.layout.folder }

    /// A key in the open editor; returns whether it was one of the links' keys.
    func handleEditorKey(_ key: Key) -> Bool {
        if case .pointer(let event) = key, event.action == .press(.left), event.modifiers == .ctrl {
            return followClick(at: event)
        }
        guard let action = Self.bindings.action(for: key), let note = state.note,
              note.stage != .loading, note.merge == nil, note.editor.bar == nil else { return false }
        switch action {
        case .follow: followLinkUnderCursor()
        case .back: navigator.back()
        case .backlinks: toggleBacklinks()
        }
        return true
    }

    // MARK: Following

    /// The link under the editor's cursor, if there is one.
    func linkUnderCursor() -> NoteLink? {
        guard let editor = state.note?.editor, editor.focus == .body else { return nil }
        let cursor = editor.body.cursor
        let byte = String(editor.body.line(cursor.line).prefix(cursor.offset)).utf8.count
        let onLine = NoteLinks.scan(editor.body.text).filter { $0.line == cursor.line }
        // On the link, or just after its last bracket (where typing `]]` leaves the cursor).
        return onLine.first { $0.bytes.contains(byte) } ?? onLine.first { $0.bytes.upperBound == byte }
    }

    /// Ctrl-click, as in Obsidian and VS Code: the cursor goes where a plain click would put it,
    /// then the link there is followed. A click outside the editor is not the links'.
    private func followClick(at event: MouseEvent) -> Bool {
        guard let note = state.note, note.stage != .loading, note.merge == nil, note.editor.bar == nil else { return false }
        var outcome: NoteEditorOutcome?
        context.model.updateQuietly { outcome = $0.note?.editor.handle(.mouse(x: event.x, y: event.y)) }
        guard let outcome, outcome != .ignored else { return false }
        followLinkUnderCursor()
        return true
    }

    func followLinkUnderCursor() {
        guard let link = linkUnderCursor() else {
            context.say(.error("No link under the cursor: put it on a [[link]] first"))
            return
        }
        let at = state.note?.entry.map { ($0.path as NSString).deletingLastPathComponent } ?? folder
        navigator.follow(link.target(inFolder: at), fragment: link.fragment)
    }


}
