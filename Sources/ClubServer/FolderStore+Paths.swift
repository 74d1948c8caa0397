import DropboxWire
import Foundation

/// Dropbox paths to host paths: case-insensitive matching, confined to the root.
extension FolderStore {
    /// Where a Dropbox path lives on disk, and its on-disk spelling.
    struct Resolved: Sendable {
        var host: String
        var path: DropboxPath
        var exists: Bool
        var isDirectory: Bool
        /// Reached through a symlink (inside the root): followed when asked for by name, never
        /// entered by a walk.
        var isLink = false
    }

    /// Maps a Dropbox path to the host, component by component, matching names
    /// case-insensitively. Symlinks are followed only if they stay inside the root.
    func resolve(_ path: DropboxPath) throws(APIError) -> Resolved {
        var host = root
        var display: [String] = []
        for (index, component) in path.components.enumerated() {
            let isLast = index == path.components.count - 1
            guard let name = matchingName(in: host, for: component) else {
                // Missing: the rest of the path keeps the client's spelling.
                display.append(contentsOf: path.components[index...])
                let rest = path.components[index...].joined(separator: "/")
                return Resolved(host: host + "/" + rest, path: DropboxPath(components: display), exists: false, isDirectory: false)
            }
            let (entry, _) = try existingEntry(named: name, in: host, parent: DropboxPath(components: display))
            if !isLast && !entry.isDirectory { throw .notFolder }
            if isLast { return entry }
            host = entry.host
            display.append(name)
        }
        return Resolved(host: root, path: .root, exists: true, isDirectory: true)
    }

    /// An entry that exists in `directory` under exactly `name`, with its `stat` (links followed).
    /// A symlink is followed only if its real target stays inside the root.
    func existingEntry(named name: String, in directory: String, parent: DropboxPath) throws(APIError) -> (Resolved, stat) {
        let candidate = directory + "/" + name
        var info = stat()
        guard lstat(candidate, &info) == 0 else { throw .notFound }
        let isLink = (info.st_mode & S_IFMT) == S_IFLNK
        if isLink {
            guard let target = realpath(candidate, nil) else { throw .notFound }
            let resolved = String(cString: target)
            free(target)
            guard resolved == root || resolved.hasPrefix(root + "/"), resolved != metaDirectory, !resolved.hasPrefix(metaDirectory + "/") else {
                // A link out of the club folder (or into the server's own): refuse, never follow.
                throw .malformedPath()
            }
            guard stat(candidate, &info) == 0 else { throw .notFound }
        }
        let isDirectory = (info.st_mode & S_IFMT) == S_IFDIR
        return (Resolved(host: candidate, path: parent.appending(name), exists: true, isDirectory: isDirectory, isLink: isLink), info)
    }

    private func matchingName(in directory: String, for component: String) -> String? {
        var info = stat()
        if lstat(directory + "/" + component, &info) == 0 { return component }
        let lower = component.lowercased()
        guard let names = try? FileManager.default.contentsOfDirectory(atPath: directory) else { return nil }
        return names.first { $0.lowercased() == lower && !(directory == root && $0.lowercased() == DropboxPath.reservedName) }
    }
}
