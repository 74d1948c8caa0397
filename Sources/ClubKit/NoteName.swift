import Foundation
import Remote

/// A note named the way the app shows it: its path, or its title (the name without `.md` or
/// `.txt`), with or without the extension, in any case.
///
/// Every command that takes a note asks here, so `cat`, `links` and `log` of one name find
/// the same note.
public enum NoteName {
    /// What a name matched.
    public enum Match: Equatable, Sendable {
        /// The one file it names.
        case path(String)
        /// More than one note answers to the title: the caller names them and lets the user pick.
        case ambiguous([String])
    }

    /// The note's extensions, in the order a bare title tries them.
    public static let extensions = ["md", "txt"]

    /// The file `path` names on `store`: itself when it exists; else the notes in its folder
    /// whose title is its last component (with or without an extension). When nothing answers,
    /// or the store cannot be asked (offline), `path` itself, so the command's own error (or
    /// its offline answer) stands.
    public static func find(_ path: String, in store: any RemoteStore) async -> Match {
        guard !path.isEmpty else { return .path(path) }
        do {
            return .path(try await store.metadata(path).path)
        } catch .notFound {
            // Looked for by title below.
        } catch {
            return .path(path)
        }
        let folder = (path as NSString).deletingLastPathComponent
        let last = (path as NSString).lastPathComponent
        guard let entries = try? await store.list(folder == "/" ? "" : folder) else { return .path(path) }
        let found = entries.filter { $0.kind == .file && answers(to: last, name: $0.name) }.map(\.path).sorted()
        switch found.count {
        case 0: return .path(path)
        case 1: return .path(found[0])
        default: return .ambiguous(found)
        }
    }

    /// Whether a file called `name` is the note `typed` names: the same name, or the same
    /// title (each without its note extension), in any case.
    public static func answers(to typed: String, name: String) -> Bool {
        let ext = (name as NSString).pathExtension.lowercased()
        guard extensions.contains(ext) else { return false }
        if name.lowercased() == typed.lowercased() { return true }
        return title(name).lowercased() == title(typed).lowercased()
    }

    /// A note's title: its name without a note extension.
    public static func title(_ name: String) -> String {
        extensions.contains((name as NSString).pathExtension.lowercased()) ? (name as NSString).deletingPathExtension : name
    }
}
