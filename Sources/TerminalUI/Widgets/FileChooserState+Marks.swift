import Foundation

/// Marking several files, and offering a whole folder: what lets one `Enter` upload a day's
/// photos instead of one.
extension FileChooserState {
    /// Whether the file `name` in the folder shown is marked.
    public func isMarked(_ name: String) -> Bool {
        marked.contains(url(of: name))
    }

    /// The absolute URL of `name` in the folder shown.
    private func url(of name: String) -> URL {
        URL(fileURLWithPath: Self.normalize(directory.appendingPathComponent(name).path))
    }

    /// Whether `entry` may be uploaded: a readable file, an image unless all files are shown.
    private func isMarkable(_ entry: FileEntry) -> Bool {
        !entry.isDirectory && entry.isReadable && (showsAll || isImage(entry.name))
    }

    /// Space: marks or unmarks the file under the cursor, then moves down, so a run of Spaces
    /// marks a run of files. A folder or a file that cannot be chosen says why.
    mutating func toggleMark() {
        guard let entry = selectedEntry else { return }
        if entry.isDirectory {
            error = "Only files are marked; Ctrl-F offers a whole folder"
            return
        }
        guard isMarkable(entry) else {
            error = entry.isReadable ? "Not an image file: \(entry.name) (Ctrl-A shows all files)" : "Cannot read \(entry.name): permission denied"
            return
        }
        let file = url(of: entry.name)
        if let index = marked.firstIndex(of: file) {
            marked.remove(at: index)
        } else {
            marked.append(file)
        }
        moveSelection(to: list.selected + 1)
    }

    /// `*`: marks every image file in the folder shown; when all of them are marked already,
    /// unmarks them.
    mutating func markAllImages() {
        let files = entries.filter { isMarkable($0) && isImage($0.name) }.map { url(of: $0.name) }
        guard !files.isEmpty else {
            error = "No images in this folder"
            return
        }
        if files.allSatisfy(marked.contains) {
            marked.removeAll { files.contains($0) }
        } else {
            for file in files where !marked.contains(file) { marked.append(file) }
        }
    }

    /// Unmarks everything.
    public mutating func clearMarks() {
        marked.removeAll()
    }

    /// Ctrl-F: the folder under the cursor (or, on a file or `..`, the folder shown) with the
    /// readable images directly in it, sorted by name; an error when it has none.
    mutating func offerFolder() -> FileChooserOutcome {
        var folder = directory
        if let entry = selectedEntry, entry.isDirectory, entry != Self.parentEntry {
            folder = URL(fileURLWithPath: Self.normalize(directory.appendingPathComponent(entry.name).path))
        }
        let listed: [FileEntry]
        do {
            listed = try lister(folder)
        } catch {
            self.error = "Cannot open \(display(folder.path)): \(Self.describe(error))"
            return .updated
        }
        let images: [FileEntry] = listed.filter { entry in !entry.isHidden && !entry.isDirectory && entry.isReadable && isImage(entry.name) }
        let names: [String] = images.map(\.name).sorted { (a: String, b: String) -> Bool in
            let (x, y) = (a.lowercased(), b.lowercased())
            return x == y ? a < b : x < y
        }
        guard !names.isEmpty else {
            error = "No images in \(display(folder.path))"
            return .updated
        }
        return .folder(folder, files: names.map { URL(fileURLWithPath: Self.normalize(folder.appendingPathComponent($0).path)) })
    }
}
