// The editor's key tables: the keys drive both what the editor does and what help lists.
// Chosen with micro and nano in mind: Ctrl-C/X/V and Ctrl-F as micro has them, Ctrl-\ and
// Alt-R for replace and Alt-G for go to line as nano has them, readline's deletes.

extension NoteEditorState {
    /// Keys that work whatever has focus.
    public static let bindings = KeyBindings<Action>(group: "Editor", [
        .init([.ctrl("s")], .save, "Save the note"),
        .init([.escape], .close, "Close the editor"),
        .init([.ctrl("t")], .focusTitle, "Edit the title"),
        .init([.ctrl("f")], .find, "Find in the note (Ctrl-F again: every note)"),
        .init([.ctrl("\\"), .alt("r")], .replace, "Replace in the note"),
        .init([.ctrl("g"), .alt("g")], .goToLine, "Go to line"),
    ])

    /// Keys in the Title field, besides those of ``TextInputState``.
    public static let titleBindings = KeyBindings<Action>(group: "Editor", [
        .init([.enter, .tab, .down], .focusBody, "Title: go to the body"),
    ])

    /// The move keys Shift selects with.
    static let selectKeys: [Key] = [
        .left, .right, .up, .down, .home, .end, .documentStart, .documentEnd, .pageUp, .pageDown, .wordLeft, .wordRight,
    ].map { .shifted($0) }

    /// Keys in the body (any other printable character is typed).
    public static let bodyBindings = KeyBindings<Action>(group: "Editor", [
        .init([.left], .left, "Move left"),
        .init([.right], .right, "Move right"),
        .init([.up], .up, "Move up a row"),
        .init([.down], .down, "Move down a row"),
        .init([.home, .ctrl("a")], .lineStart, "Start of the line"),
        .init([.end, .ctrl("e")], .lineEnd, "End of the line"),
        .init([.documentStart], .documentStart, "Start of the note"),
        .init([.documentEnd], .documentEnd, "End of the note"),
        .init([.pageUp], .pageUp, "Page up"),
        .init([.pageDown], .pageDown, "Page down"),
        .init([.wordLeft, .alt("b")], .wordLeft, "Word left", keyLabel: "Ctrl-← / Alt-←"),
        .init([.wordRight, .alt("f")], .wordRight, "Word right", keyLabel: "Ctrl-→ / Alt-→"),
        .init(selectKeys, .select, "Select (Shift with any move key; or drag the mouse)", keyLabel: "Shift-←→↑↓ / Shift-Home…"),
        .init([.ctrl("c")], .copy, "Copy the selection, or the line"),
        .init([.ctrl("x")], .cut, "Cut the selection, or the line"),
        .init([.ctrl("v")], .paste, "Paste"),
        .init([.alt("s")], .selectAll, "Select all (typing or Ctrl-X then replaces it)"),
        .init([.enter], .newline, "New line (continues a list)"),
        .init([.backspace], .deleteBackward, "Delete before the cursor"),
        .init([.delete, .ctrl("d")], .deleteForward, "Delete at the cursor"),
        .init([.ctrl("w"), .altBackspace], .deleteWordBackward, "Delete the word before"),
        .init([.alt("d")], .deleteWordForward, "Delete the word after"),
        .init([.ctrl("u")], .deleteToLineStart, "Delete to the start of the line"),
        .init([.ctrl("k")], .killLine, "Delete to the end of the line"),
        .init([.tab], .indent, "Indent a list item (else four spaces)"),
        .init([.backTab], .outdent, "Outdent a list item"),
        .init([.alt("x")], .toggleTask, "Toggle the task box [ ] / [x]"),
        .init([.ctrl("n")], .findNext, "Next match of the last find"),
        .init([.ctrl("p")], .findPrevious, "Previous match of the last find"),
        .init([.ctrl("z")], .undo, "Undo"),
        .init([.ctrl("y")], .redo, "Redo"),
    ])

    /// Every editor key, for help.
    public static var commands: [Command] {
        bindings.commands + titleBindings.commands + bodyBindings.commands
    }

    /// The editor's keys as they work where the cursor is, for help: a key listed with what it
    /// does here. In the Title, Tab and Enter go to the body (and the clipboard keys take the
    /// whole title); in the body they indent and start a line. Shift-Tab is listed only on a
    /// list item it can outdent: elsewhere the editor leaves it to the screen (the other tab).
    public var commandsHere: [Command] {
        switch focus {
        case .title:
            let clipboard = Self.bodyBindings.bindings.filter { [.copy, .cut, .paste].contains($0.action) }
            return Self.bindings.commands + Self.titleBindings.commands + KeyBindings(group: "Editor", clipboard).commands
        case .body:
            let body = body.canOutdentListItem ? Self.bodyBindings.bindings : Self.bodyBindings.bindings.filter { $0.action != .outdent }
            return Self.bindings.commands + KeyBindings(group: "Editor", body).commands
        }
    }

    /// The editor's keys in a few words, for the status bar while typing.
    public static let hint = "Ctrl-S save · Ctrl-F find · Ctrl-C/X/V copy/cut/paste · Ctrl-Z undo · Esc close"
}
