/// What a key did in the note editor.
///
/// The editor edits and moves by itself; saving, closing, the clipboard and the club search
/// involve the terminal, the network and dialogs, so it hands those back to its owner.
public enum NoteEditorOutcome: Hashable, Sendable {
    /// Not an editor key: offer it to someone else.
    case ignored
    /// The title or the body changed.
    case edited
    /// Only the cursor, the selection, the scroll position, the find bar or the focus changed
    /// (or a key had nothing to do, such as Backspace at the start of the text).
    case moved
    /// Ctrl-S: the owner saves (and then calls ``NoteEditorState/markSaved()``). A read-only
    /// note returns ``readOnly`` instead.
    case save
    /// Esc: the owner closes the editor, asking first if ``NoteEditorState/isModified``.
    case close
    /// An editing key in a read-only note; nothing changed.
    case readOnly
    /// Ctrl-C: this text was copied; the owner puts it on the terminal's clipboard (OSC 52)
    /// and keeps it for paste (``NoteEditorState/register``).
    case copied(String)
    /// Ctrl-X: this text was cut (the body changed, as for ``edited``); as ``copied`` otherwise.
    case cut(String)
    /// Ctrl-F in the find bar: the owner opens the club-wide search for this text.
    case searchEveryNote(String)

    public var eventResult: EventResult { self == .ignored ? .ignored : .consumed }
}

/// The note editor's state: the Title field, the body, which of them has focus, the find bar,
/// and whether edits are allowed. A value the app keeps between frames; ``NoteEditor`` draws it.
///
/// The keys are in the tables of NoteEditorState+Keys.swift (help lists them from there):
/// moves, Shift + a move to select, the clipboard (Ctrl-C, Ctrl-X, Ctrl-V), readline's deletes,
/// list editing (Enter, Tab, Shift-Tab, Alt-X), and the find bar (NoteEditorState+Find.swift).
///
/// A read-only note (one whose bytes are not valid UTF-8) opens in the body; moves, selection,
/// copy and find work, and keys that would change the title or body, and `Ctrl-S`, return
/// ``NoteEditorOutcome/readOnly``.
public struct NoteEditorState: Sendable, Equatable {
    /// Which part takes typed keys.
    public enum Focus: Hashable, Sendable { case title, body }

    /// What the editor's keys do.
    public enum Action: Hashable, Sendable {
        case save, close, focusTitle, focusBody
        case left, right, up, down, lineStart, lineEnd, documentStart, documentEnd
        case pageUp, pageDown, wordLeft, wordRight
        /// Shift with a move key: the move, extending the selection.
        case select
        case newline, deleteBackward, deleteForward, killLine, indent, outdent, undo, redo
        case deleteWordBackward, deleteWordForward, deleteToLineStart
        case copy, cut, paste, toggleTask, selectAll
        case find, replace, goToLine, findNext, findPrevious
    }

    /// The Title field.
    public var title: TextInputState
    /// The body text, with its cursor, selection, scroll position and undo history.
    public var body: TextBuffer
    public var focus: Focus
    /// Refuses edits (the note's bytes are not valid UTF-8 and must not be re-saved damaged).
    public var isReadOnly: Bool
    /// The title at the last ``markSaved()``, for ``isModified``.
    public private(set) var savedTitle: String
    /// What Ctrl-V pastes: the owner keeps one register for every note and sets it here.
    public var register = ""
    /// The find, replace or go-to-line bar, while it is open.
    public var bar: FindBar?
    /// The last text looked for, which Ctrl-N and Ctrl-P find again after the bar closed.
    public var lastQuery = ""
    /// Where the last frame drew the whole editor, the Title field and the body; clicks and
    /// the wheel are hit-tested against them (NoteEditorState+Mouse.swift).
    public internal(set) var frames = Frames()
    /// Where a drag with the left button began, in the text.
    var dragStart: TextBuffer.Position?

    /// An editor for a note: focus starts in the title for a new note and in the body otherwise
    /// (always in the body when read-only).
    public init(title: String = "", body: String = "", isNew: Bool, isReadOnly: Bool = false) {
        self.title = TextInputState(text: title)
        self.body = TextBuffer(text: body)
        self.focus = isNew && !isReadOnly ? .title : .body
        self.isReadOnly = isReadOnly
        self.savedTitle = title
    }

    /// Whether the title or body differ from what was opened or last saved (undoing back to
    /// the saved text counts as unmodified).
    public var isModified: Bool { body.isModified || title.text != savedTitle }

    /// Takes the current title and body as saved (after the server confirmed the save).
    public mutating func markSaved() {
        savedTitle = title.text
        body.markSaved()
    }

    /// Handles a key; see ``NoteEditorOutcome`` for what the owner does with the result.
    public mutating func handle(_ key: Key) -> NoteEditorOutcome {
        if key.isMouse { return handleMouse(key) }
        if bar != nil {
            if Self.bindings.action(for: key) == .save { return isReadOnly ? .readOnly : .save }
            return handleBar(key)
        }
        if let action = Self.bindings.action(for: key) {
            switch action {
            case .save: return isReadOnly ? .readOnly : .save
            case .close: return .close
            case .find, .replace, .goToLine:
                focus = .body
                openBar(action)
                return .moved
            default:
                focus = .title
                return .moved
            }
        }
        switch focus {
        case .title: return handleInTitle(key)
        case .body: return handleInBody(key)
        }
    }

    private mutating func handleInTitle(_ key: Key) -> NoteEditorOutcome {
        if Self.titleBindings.action(for: key) != nil {
            focus = .body
            return .moved
        }
        // The clipboard keys work on the whole title.
        switch Self.bodyBindings.action(for: key) {
        case .copy?: return .copied(title.text)
        case .cut?:
            if isReadOnly { return .readOnly }
            let text = title.text
            title = TextInputState()
            return .cut(text)
        case .paste?: return handleInTitle(.paste(register))
        default: break
        }
        var field = title
        switch field.handle(key) {
        case .ignored: return .ignored
        case .edited:
            if isReadOnly { return .readOnly }
            title = field
            return .edited
        case .moved:
            title = field
            return .moved
        case .submitted:
            focus = .body
            return .moved
        case .cancelled:
            return .close
        }
    }

    private mutating func handleInBody(_ key: Key) -> NoteEditorOutcome {
        let inserted: String?
        switch key {
        case .char(let c): inserted = String(c)
        case .paste(let text): inserted = text
        default: inserted = nil
        }
        if let inserted {
            if isReadOnly { return .readOnly }
            typeText(inserted)
            return .edited
        }
        guard let action = Self.bodyBindings.action(for: key) else { return .ignored }
        switch action {
        case .select:
            guard case .shifted(let move) = key, let moveAction = Self.bodyBindings.action(for: move) else { return .ignored }
            body.extendSelection { $0.move(moveAction) }
        case .left, .right, .up, .down, .lineStart, .lineEnd, .documentStart, .documentEnd, .pageUp, .pageDown, .wordLeft, .wordRight:
            // With a selection, ← and → go to its start and end (as micro does).
            if let selection = body.selection, action == .left || action == .right {
                body.moveCursor(to: action == .left ? selection.lowerBound : selection.upperBound)
            } else {
                body.move(action)
            }
        case .copy: return .copied(body.copiedText)
        case .selectAll:
            body.selectAll()
        case .findNext, .findPrevious:
            findAgain(forward: action == .findNext)
        case .outdent:
            // Not on a list item: Shift-Tab is the shell's again (the other tab).
            if isReadOnly { return .readOnly }
            return body.outdentListItem() ? .edited : .ignored
        case .cut:
            if isReadOnly { return .readOnly }
            return .cut(body.cut())
        default:
            if isReadOnly { return .readOnly }
            return edit(action) ? .edited : .moved
        }
        return .moved
    }

    /// Typed or pasted text: it replaces the selection, if any.
    private mutating func typeText(_ text: String) {
        if let selection = body.selection {
            body.replace(selection, with: text)
        } else {
            body.insert(text)
        }
    }

    /// Carries out an editing action on the body; returns whether the text changed.
    private mutating func edit(_ action: Action) -> Bool {
        switch action {
        case .newline:
            if !body.insertNewlineInList() { typeText("\n") }
        case .indent:
            if body.selection != nil || !body.indentListItem() { typeText(String(repeating: " ", count: TextBuffer.tabWidth)) }
        case .paste:
            guard !register.isEmpty else { return false }
            typeText(register)
        case .deleteBackward: return body.deleteSelection() || body.deleteBackward()
        case .deleteForward: return body.deleteSelection() || body.deleteForward()
        case .deleteWordBackward: return body.deleteWordBackward()
        case .deleteWordForward: return body.deleteWordForward()
        case .deleteToLineStart: return body.deleteToLineStart()
        case .killLine: return body.deleteSelection() || body.killToEndOfLine()
        case .toggleTask: return body.toggleTask()
        case .undo: return body.undo()
        case .redo: return body.redo()
        default: return false
        }
        return true
    }
}

extension TextBuffer {
    /// Carries out one of the editor's move actions (anything else does nothing).
    mutating func move(_ action: NoteEditorState.Action) {
        switch action {
        case .left: moveLeft()
        case .right: moveRight()
        case .up: moveUp()
        case .down: moveDown()
        case .lineStart: moveToLineStart()
        case .lineEnd: moveToLineEnd()
        case .documentStart: moveToDocumentStart()
        case .documentEnd: moveToDocumentEnd()
        case .pageUp: pageUp()
        case .pageDown: pageDown()
        case .wordLeft: moveWordLeft()
        case .wordRight: moveWordRight()
        default: break
        }
    }
}
