import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A folder on this machine that `byteclub import` brings into the club (an Obsidian, zk or nb
/// vault, or an export), walked once: every file in it, each a note, a picture or another file
/// (a PDF, an SVG icon, audio, JSON, a canvas); the hidden entries left out (the vault's own
/// settings, `.git`, `.DS_Store`); and what is in it but cannot be brought (a FIFO, a socket, a
/// symbolic link, a file that cannot be read), each with the reason, for import to name.
///
/// Nothing here opens anything but a regular file, so a FIFO in a vault never blocks an import.
public struct VaultFiles: Sendable, Equatable {
    /// What a file of the vault is to the club.
    public enum Kind: String, Sendable, Equatable, CaseIterable {
        /// `.md` or `.txt`: a note.
        case note
        /// A picture the club keeps under `photos/` (JPEG, PNG, GIF, HEIC, WebP).
        case picture
        /// Anything else: an attachment, kept beside the notes byte for byte.
        case other
    }

    /// One regular file of the vault.
    public struct File: Sendable, Equatable {
        /// Where it is on this machine.
        public var url: URL
        /// Its path in the vault, by component (`["Trips", "2026", "Day one.md"]`).
        public var components: [String]
        public var kind: Kind
        public var size: Int64

        /// Its path in the vault (`Trips/2026/Day one.md`).
        public var relative: String { components.joined(separator: "/") }
    }

    /// Something in the vault that import cannot bring, and why.
    public struct LeftOut: Sendable, Equatable {
        /// Its path in the vault.
        public var relative: String
        public var url: URL
        /// Why, in a few words: "a FIFO, not a file".
        public var reason: String
    }

    /// Notes' extensions (lower case).
    public static let noteExtensions: Set<String> = ["md", "txt"]
    /// Pictures' extensions (lower case): what import moves under the club's `photos/`.
    public static let pictureExtensions: Set<String> = ["jpg", "jpeg", "png", "gif", "heic", "webp"]
    /// The vault's own settings folders at its top, left out each with a line that says whose.
    public static let settingsFolders = [".obsidian": "Obsidian's settings", ".zk": "zk's settings", ".nb": "nb's settings"]

    /// The vault folder's own name (`Sailing`): the album of the pictures at its top.
    public var name: String
    /// Every regular file, sorted by its vault path.
    public var files: [File] = []
    /// The hidden files and folders (a name starting with `.`) left out, by vault path, a folder's
    /// with a `/` at its end; what is inside a hidden folder is not walked.
    public var hidden: [String] = []
    /// What cannot be brought, sorted by vault path.
    public var leftOut: [LeftOut] = []

    public init(name: String = "", files: [File] = [], hidden: [String] = [], leftOut: [LeftOut] = []) {
        self.name = name
        self.files = files
        self.hidden = hidden
        self.leftOut = leftOut
    }

    /// The kind of a file named `name`, by its extension.
    public static func kind(of name: String) -> Kind {
        let ext = (name as NSString).pathExtension.lowercased()
        if noteExtensions.contains(ext) { return .note }
        if pictureExtensions.contains(ext) { return .picture }
        return .other
    }

    /// Walks `folder` (a vault), lstat by lstat: symbolic links are never followed.
    public init(walking folder: URL) {
        let root = folder.standardizedFileURL
        name = root.lastPathComponent
        walk(root, components: [])
        files.sort { $0.relative < $1.relative }
        hidden.sort()
        leftOut.sort { $0.relative < $1.relative }
    }

    private mutating func walk(_ directory: URL, components: [String]) {
        let names: [String]
        do {
            names = try FileManager.default.contentsOfDirectory(atPath: directory.path)
        } catch {
            let relative = components.isEmpty ? "." : components.joined(separator: "/") + "/"
            leftOut.append(LeftOut(relative: relative, url: directory, reason: "a folder that cannot be read (\(Self.reason(error)))"))
            return
        }
        for name in names.sorted() {
            let url = directory.appendingPathComponent(name)
            let path = components + [name]
            let relative = path.joined(separator: "/")
            var info = stat()
            guard lstat(url.path, &info) == 0 else {
                leftOut.append(LeftOut(relative: relative, url: url, reason: "cannot be read (\(String(cString: strerror(errno))))"))
                continue
            }
            let type = info.st_mode & S_IFMT
            if name.hasPrefix(".") {
                hidden.append(relative + (type == S_IFDIR ? "/" : ""))
                continue
            }
            switch type {
            case S_IFDIR:
                walk(url, components: path)
            case S_IFREG:
                let fd = open(url.path, O_RDONLY | O_NONBLOCK | O_CLOEXEC)
                guard fd >= 0 else {
                    leftOut.append(LeftOut(relative: relative, url: url, reason: "cannot be read (\(String(cString: strerror(errno))))"))
                    continue
                }
                close(fd)
                files.append(File(url: url, components: path, kind: Self.kind(of: name), size: Int64(info.st_size)))
            case S_IFLNK:
                leftOut.append(LeftOut(relative: relative, url: url, reason: "a symbolic link, not followed (bring what it points at itself)"))
            case S_IFIFO:
                leftOut.append(LeftOut(relative: relative, url: url, reason: "a FIFO, not a file"))
            case S_IFSOCK:
                leftOut.append(LeftOut(relative: relative, url: url, reason: "a socket, not a file"))
            default:
                leftOut.append(LeftOut(relative: relative, url: url, reason: "a device, not a file"))
            }
        }
    }

    private static func reason(_ error: any Error) -> String {
        (error as NSError).localizedDescription
    }

    /// The lines that say which hidden entries were left out: one for each settings folder at
    /// the top (`skipped .obsidian/ (Obsidian's settings, not notes)`), then one naming the
    /// others (`skipped .git/, .DS_Store (hidden)`), at most `shown` names and a count of the
    /// rest.
    public func skippedLines(shown: Int = 10) -> [String] {
        var lines: [String] = []
        var others: [String] = []
        for entry in hidden {
            let folder = entry.hasSuffix("/") ? String(entry.dropLast()) : nil
            if let folder, let what = Self.settingsFolders[folder] {
                lines.append("skipped \(folder)/ (\(what), not notes)")
            } else {
                others.append(entry)
            }
        }
        guard !others.isEmpty else { return lines }
        let named = others.prefix(shown).joined(separator: ", ")
        let more = others.count > shown ? " and \(others.count - shown) more" : ""
        lines.append("skipped \(named)\(more) (hidden)")
        return lines
    }

    /// "3 notes, 1 picture and 2 other files": what import and export say they brought.
    public static func summary(_ counts: [Kind: Int]) -> String {
        func counted(_ count: Int, _ one: String, _ many: String) -> String { "\(count) \(count == 1 ? one : many)" }
        return counted(counts[.note] ?? 0, "note", "notes") + ", " + counted(counts[.picture] ?? 0, "picture", "pictures")
            + " and " + counted(counts[.other] ?? 0, "other file", "other files")
    }

    /// Whether a path in the club (its components under the folder exported) is the club's own
    /// (`.byteclub/`, where import keeps its manifest; an encrypted club's `.clubkeys/`; a
    /// transfer's temporary `.byteclub-…` file), never a file of the club's members.
    public static func isClubsOwn(_ components: [String]) -> Bool {
        components.contains { component in
            let lower = component.lowercased()
            return lower.hasPrefix(".byteclub") || lower == ClubKeyFiles.folderName
        }
    }
}
