import Foundation

/// One item of a directory listing, as the file chooser needs it.
public struct FileEntry: Hashable, Sendable {
    public var name: String
    /// A folder, or a symbolic link to one.
    public var isDirectory: Bool
    /// The size in bytes; `nil` for folders or when it could not be read.
    public var size: Int64?
    /// Whether the process may read it; choosing an unreadable file shows an error.
    public var isReadable: Bool

    public init(name: String, isDirectory: Bool, size: Int64? = nil, isReadable: Bool = true) {
        self.name = name
        self.isDirectory = isDirectory
        self.size = size
        self.isReadable = isReadable
    }

    /// Hidden by the usual convention: the name starts with a dot.
    public var isHidden: Bool { name.hasPrefix(".") }
}

/// What a key did to a file chooser.
public enum FileChooserOutcome: Hashable, Sendable {
    /// Not a chooser key.
    case ignored
    /// The selection, folder, path field, filter or error line changed.
    case updated
    /// A readable file was chosen (an absolute file URL).
    case chosen(URL)
    /// Enter with files marked: the marked files, in the order they were marked.
    case chosenMany([URL])
    /// Ctrl-F: a folder and the images in it (not in its subfolders), for the owner to offer.
    case folder(URL, files: [URL])
    /// Esc.
    case cancelled

    public var eventResult: EventResult { self == .ignored ? .ignored : .consumed }
}

/// The state of the "pick a file to upload" dialog: the folder shown, its entries, the
/// selection, the path field and the error line.
///
/// Directory listings come from an injected function, so tests run it on a fake file system;
/// the default, ``listDirectory(_:)``, reads the real one. Keys go to ``handle(_:)``:
/// - ↑ ↓ PgUp PgDn Home End move the selection;
/// - Enter opens the selected folder or chooses the selected file; with a path typed in the
///   field it opens or chooses that path instead (relative to the folder shown, `~` is home);
/// - Backspace with an empty field goes to the parent folder;
/// - Ctrl-A shows all files instead of only those with an image extension;
/// - Space marks or unmarks the file under the cursor (and moves down), `*` marks every image
///   in the folder (or unmarks them when all are marked), while the path field is empty; Enter
///   then chooses the marked files, unless the cursor is on a subfolder, which it opens
///   (FileChooserState+Marks.swift);
/// - Ctrl-F offers the folder under the cursor (or the one shown) with the images in it;
/// - Esc cancels; anything printable goes into the path field.
///
/// Problems (a folder that cannot be read, a typed path that does not exist, a file that is not
/// an image or cannot be read) set ``error``, which the dialog shows in red until the next key.
public struct FileChooserState: Sendable {
    /// Lists a folder: every entry, hidden ones included (the chooser hides them).
    public typealias Lister = @Sendable (URL) throws -> [FileEntry]

    /// The folder shown (a standardized absolute file URL).
    public private(set) var directory: URL
    /// The rows shown: ".." (except at `/`), then folders, then files, each sorted by name
    /// ignoring case, hidden entries left out and files filtered by extension unless
    /// ``showsAll``.
    public private(set) var entries: [FileEntry] = []
    /// Selection and scroll position among ``entries``.
    public var list = ListState()
    /// The path field.
    public var input = TextInputState()
    /// Whether every file is listed and may be chosen, not only images.
    public private(set) var showsAll: Bool
    /// The message for the error line, cleared by the next key.
    public internal(set) var error: String?
    /// The files marked with Space or `*`, in the order they were marked (absolute file URLs;
    /// they stay marked when another folder is shown).
    public internal(set) var marked: [URL] = []
    /// The extensions that count as images, lowercased and without the dot.
    public let extensions: [String]
    /// What `~` means in a typed path, and what the folder line abbreviates.
    public let homeDirectory: URL

    let lister: Lister
    /// The current folder's full listing, hidden entries included, for typed names.
    private var listing: [FileEntry] = []

    /// A chooser showing `directory`.
    ///
    /// - Parameters:
    ///   - extensions: file extensions listed and accepted unless all files are shown.
    ///   - lister: lists a folder; the default reads the file system.
    public init(
        directory: URL,
        extensions: [String] = ["jpg", "jpeg"],
        showsAll: Bool = false,
        homeDirectory: URL = URL(fileURLWithPath: NSHomeDirectory()),
        lister: @escaping Lister = FileChooserState.listDirectory
    ) {
        self.directory = URL(fileURLWithPath: Self.normalize(directory.path))
        self.extensions = extensions.map { $0.lowercased() }
        self.showsAll = showsAll
        self.homeDirectory = homeDirectory
        self.lister = lister
        if let message = load(self.directory) { error = message }
    }

    /// The ".." entry leading to the parent folder.
    public static let parentEntry = FileEntry(name: "..", isDirectory: true)

    /// What the chooser's keys do (printable characters go to the path field).
    public enum Action: Hashable, Sendable {
        case up, down, pageUp, pageDown, first, last, open, parent, toggleAll, cancel, mark, markAll, folder
    }

    /// The chooser's keys, for dispatch and help. No plain letters: those are typed into the path.
    public static let bindings = KeyBindings<Action>(group: "File chooser", [
        .init([.up], .up, "Move up"),
        .init([.down], .down, "Move down"),
        .init([.pageUp], .pageUp, "Page up"),
        .init([.pageDown], .pageDown, "Page down"),
        .init([.home], .first, "First entry"),
        .init([.end], .last, "Last entry"),
        .init([.enter], .open, "Open the folder or choose the file (or the typed path)"),
        .init([.backspace], .parent, "Parent folder (when the path field is empty)"),
        .init([.ctrl("a")], .toggleAll, "Show all files / only images"),
        .init([.char(" ")], .mark, "Mark or unmark the file (Enter uploads the marked ones)"),
        .init([.char("*")], .markAll, "Mark every image in the folder"),
        .init([.ctrl("f")], .folder, "Upload every image in the folder (asks first)"),
        .init([.escape], .cancel, "Cancel"),
    ])

    /// The path field's editing keys (Home, End, Enter and Esc belong to the chooser).
    public static let fieldBindings = KeyBindings<TextInputState.Action>(group: "Path field", [
        .init([.left], .left, "Move left"),
        .init([.right], .right, "Move right"),
        .init([.ctrl("e")], .end, "End of the path"),
        .init([.backspace], .deleteBackward, "Delete before the cursor"),
        .init([.delete, .ctrl("d")], .deleteForward, "Delete at the cursor"),
        .init([.ctrl("u")], .deleteToStart, "Delete to the start"),
        .init([.ctrl("k")], .deleteToEnd, "Delete to the end"),
        .init([.ctrl("w")], .deleteWord, "Delete the word before the cursor"),
    ])

    /// The selected entry, if there is one.
    public var selectedEntry: FileEntry? {
        entries.indices.contains(list.selected) ? entries[list.selected] : nil
    }

    /// The folder as the dialog shows it, with the home folder written `~`.
    public var directoryDisplay: String { display(directory.path) }

    /// Applies a key.
    @discardableResult
    public mutating func handle(_ key: Key) -> FileChooserOutcome {
        let action = Self.bindings.action(for: key)
        if action == .parent || action == .mark || action == .markAll, !input.text.isEmpty {
            return editField(key)
        }
        guard let action else { return editField(key) }
        switch action {
        case .up: moveSelection(to: list.selected - 1)
        case .down: moveSelection(to: list.selected + 1)
        case .pageUp: moveSelection(to: list.selected - max(1, list.pageSize))
        case .pageDown: moveSelection(to: list.selected + max(1, list.pageSize))
        case .first: moveSelection(to: 0)
        case .last: moveSelection(to: entries.count - 1)
        case .parent:
            error = nil
            goUp()
        case .toggleAll:
            error = nil
            showsAll.toggle()
            let selected = selectedEntry?.name
            rebuildEntries()
            select(name: selected)
        case .cancel:
            return .cancelled
        case .open:
            error = nil
            // With files marked, Enter uploads them; only a subfolder under the cursor still opens.
            let onSubfolder = selectedEntry.map { $0.isDirectory && $0 != Self.parentEntry } ?? false
            if input.text.isEmpty, !marked.isEmpty, !onSubfolder { return .chosenMany(marked) }
            return input.text.isEmpty ? openSelected() : openTyped()
        case .mark:
            error = nil
            toggleMark()
        case .markAll:
            error = nil
            markAllImages()
        case .folder:
            error = nil
            return offerFolder()
        }
        return .updated
    }

    /// Opens `url` as the folder shown; on failure keeps the current one and sets ``error``.
    public mutating func open(_ url: URL) {
        let target = URL(fileURLWithPath: Self.normalize(url.path))
        if let message = load(target) { error = message } else { error = nil }
    }

    /// Lists the folder shown again (after a change on disk, say), keeping the selection.
    public mutating func reload() {
        let selected = selectedEntry?.name
        if let message = load(directory) { error = message }
        select(name: selected)
    }

    // MARK: Keys

    private mutating func editField(_ key: Key) -> FileChooserOutcome {
        let outcome = input.handle(key, bindings: Self.fieldBindings)
        switch outcome {
        case .ignored, .submitted, .cancelled:
            return .ignored
        case .moved:
            return .updated
        case .edited:
            error = nil
            // A name typed without a slash selects the first entry it starts, as a quick jump.
            let typed = input.text.lowercased()
            if !typed.isEmpty, !typed.contains("/"),
               let index = entries.firstIndex(where: { $0.name.lowercased().hasPrefix(typed) }) {
                list.selected = index
            }
            return .updated
        }
    }

    mutating func moveSelection(to position: Int) {
        list.selected = entries.isEmpty ? 0 : min(max(0, position), entries.count - 1)
    }

    private mutating func goUp() {
        guard directory.path != "/" else { return }
        let child = directory.lastPathComponent
        let parent = directory.deletingLastPathComponent()
        if let message = load(parent) {
            error = message
        } else {
            select(name: child)
        }
    }

    private mutating func openSelected() -> FileChooserOutcome {
        guard let entry = selectedEntry else { return .updated }
        if entry == Self.parentEntry {
            goUp()
            return .updated
        }
        let url = directory.appendingPathComponent(entry.name, isDirectory: entry.isDirectory)
        return choose(entry, at: url)
    }

    private mutating func openTyped() -> FileChooserOutcome {
        let path = resolve(input.text)
        if path == "/" { return choose(FileEntry(name: "/", isDirectory: true), at: URL(fileURLWithPath: "/")) }
        let url = URL(fileURLWithPath: path)
        let parent = url.deletingLastPathComponent()
        let siblings: [FileEntry]
        do {
            siblings = try parent.path == directory.path ? listing : lister(parent)
        } catch {
            self.error = "Cannot read \(display(parent.path)): \(Self.describe(error))"
            return .updated
        }
        guard let entry = siblings.first(where: { $0.name == url.lastPathComponent }) else {
            error = "Not found: \(display(path))"
            return .updated
        }
        let outcome = choose(entry, at: url)
        if error == nil, outcome == .updated { input = TextInputState() }
        return outcome
    }

    /// Opens a folder, or chooses a file that passes the checks.
    private mutating func choose(_ entry: FileEntry, at url: URL) -> FileChooserOutcome {
        if entry.isDirectory {
            if let message = load(url) { error = message }
            return .updated
        }
        guard showsAll || isImage(entry.name) else {
            error = "Not an image file: \(entry.name) (Ctrl-A shows all files)"
            return .updated
        }
        guard entry.isReadable else {
            error = "Cannot read \(entry.name): permission denied"
            return .updated
        }
        return .chosen(URL(fileURLWithPath: Self.normalize(url.path)))
    }

    // MARK: Listing

    /// Lists `url` and makes it the folder shown; returns an error message instead on failure.
    mutating func load(_ url: URL) -> String? {
        do {
            let listed = try lister(url)
            directory = url
            listing = listed
            let pageSize = list.pageSize
            list = ListState()
            list.pageSize = pageSize
            rebuildEntries()
            return nil
        } catch {
            if entries.isEmpty, url.path != "/" {
                // Nothing shown yet (the first folder failed): still offer a way up.
                entries = [Self.parentEntry]
            }
            return "Cannot open \(display(url.path)): \(Self.describe(error))"
        }
    }

    private mutating func rebuildEntries() {
        let visible = listing.filter { !$0.isHidden && ($0.isDirectory || showsAll || isImage($0.name)) }
        func byName(_ a: FileEntry, _ b: FileEntry) -> Bool {
            let (x, y) = (a.name.lowercased(), b.name.lowercased())
            return x == y ? a.name < b.name : x < y
        }
        let folders = visible.filter(\.isDirectory).sorted(by: byName)
        let files = visible.filter { !$0.isDirectory }.sorted(by: byName)
        entries = (directory.path == "/" ? [] : [Self.parentEntry]) + folders + files
        moveSelection(to: list.selected)
    }

    private mutating func select(name: String?) {
        if let name, let index = entries.firstIndex(where: { $0.name == name }) { list.selected = index }
    }

    func isImage(_ name: String) -> Bool {
        let ext = (name as NSString).pathExtension.lowercased()
        return !ext.isEmpty && extensions.contains(ext)
    }
}
