import Foundation

/// The folder `byteclub serve --root DIR` shares, checked before the server touches it.
///
/// - A `DIR` that does not exist is refused unless the caller asks for a new club (`--create`):
///   a mistyped `--root` would otherwise make a new folder, a new club, a new token and a new
///   TLS key, and the members' pins and invites would all fail against it.
/// - A `DIR` that is a file is refused.
/// - Members see `DIR/byteclub/` (the app's club folder, Dropbox path `/byteclub`). A `DIR`
///   holding notes at its top but no `byteclub/` folder is served as it is, with one line saying
///   where members look and how to move the notes there (``strayNotesAdvice(root:)``): serving
///   `DIR` itself as the club folder would make Dropbox paths mean one thing on this server
///   and another on every other.
public enum ServedRoot {
    /// The club's folder inside the served root: what the app and the commands show.
    public static let clubFolderName = "byteclub"

    /// Why a root cannot be served, each a sentence for `byteclub: …`.
    public enum Problem: Error, Equatable, CustomStringConvertible {
        /// No such folder, and no `--create`.
        case missing(String)
        /// Something that is not a folder is there.
        case notAFolder(String)
        /// `--create` was given and making the folder failed.
        case cannotCreate(String, reason: String)

        public var description: String {
            switch self {
            case .missing(let path):
                return "\(path) does not exist; check --root, or add --create to start a new club there"
            case .notAFolder(let path):
                return "\(path) is a file, not a folder; --root takes the folder to share"
            case .cannotCreate(let path, let reason):
                return "cannot create \(path): \(reason)"
            }
        }
    }

    /// Checks `path` (absolute) as a root to serve: an existing folder; else, with `create`,
    /// makes it (and its parents). A symlink to a folder is a folder.
    public static func prepare(_ path: String, create: Bool) throws(Problem) {
        var isDirectory: ObjCBool = false
        if FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) {
            guard isDirectory.boolValue else { throw .notAFolder(path) }
            return
        }
        guard create else { throw .missing(path) }
        do {
            try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        } catch {
            throw .cannotCreate(path, reason: (error as NSError).localizedDescription)
        }
    }

    /// The notes (`.md`, `.txt`, any case) at the top of `root` when it has no `byteclub`
    /// folder (in any case, as the server matches names), sorted; empty otherwise, or when
    /// `root` cannot be read. Hidden files are left out.
    public static func strayNotes(in root: String) -> [String] {
        guard let names = try? FileManager.default.contentsOfDirectory(atPath: root) else { return [] }
        var isDirectory: ObjCBool = false
        let hasClubFolder = names.contains { name in
            name.lowercased() == clubFolderName
                && FileManager.default.fileExists(atPath: root + "/" + name, isDirectory: &isDirectory) && isDirectory.boolValue
        }
        guard !hasClubFolder else { return [] }
        return names.filter { name in
            guard !name.hasPrefix("."), ["md", "txt"].contains((name as NSString).pathExtension.lowercased()) else { return false }
            var folder: ObjCBool = false
            return FileManager.default.fileExists(atPath: root + "/" + name, isDirectory: &folder) && !folder.boolValue
        }.sorted()
    }

    /// One line for `byteclub serve`'s stderr when `root` holds notes at its top but no
    /// `byteclub/` folder, or nil: where members look, and the commands that move the notes
    /// there. The paths are the user's own, quoted for a shell.
    public static func strayNotesAdvice(root: String) -> String? {
        let notes = strayNotes(in: root)
        guard let first = notes.first else { return nil }
        let shown = notes.count == 1 ? "1 note (\(first))" : "\(notes.count) notes (\(first), …)"
        let quoted = shellQuoted(root)
        // One glob per extension as spelled on disk (`*.md`, `*.TXT`), so the command moves them all.
        let globs = Array(Set(notes.map { (($0 as NSString).pathExtension) })).sorted().map { "\(quoted)/*.\($0)" }
        let target = "\(quoted)/\(clubFolderName)/"
        return "\(root) holds \(shown) at its top but no \(clubFolderName)/ folder: members see only "
            + "\(root)/\(clubFolderName)/, so they see none of them; to share them, "
            + "mkdir \(target) && mv \(globs.joined(separator: " ")) \(target)"
    }

    /// `path` as a shell word: as it is when it holds only characters a shell leaves alone,
    /// else in single quotes.
    static func shellQuoted(_ path: String) -> String {
        let plain = path.unicodeScalars.allSatisfy { scalar in
            CharacterSet.alphanumerics.contains(scalar) && scalar.isASCII || "/._-+,@%=:~".unicodeScalars.contains(scalar)
        }
        if plain, !path.isEmpty { return path }
        return "'" + path.replacingOccurrences(of: "'", with: #"'\''"#) + "'"
    }
}
