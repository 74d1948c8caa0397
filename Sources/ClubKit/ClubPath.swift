import Foundation

/// A path on a club as a user types it on the command line, in rclone's form.
///
/// `NAME:PATH` names a remote of config.toml; anything else is a path on the remote in use. A
/// path that starts with `/` is from the remote's root; any other is inside the club's folder,
/// the one the app shows (`/byteclub` unless the remote's `folder` says otherwise), so
/// `byteclub ls` lists the notes and `byteclub cat "Trip plan"` finds the note the app shows.
public struct ClubPath: Equatable, Sendable {
    /// The remote named before the colon, when there was one.
    public var remote: String?
    /// What came after it (or the whole text).
    public var text: String

    /// Splits `NAME:` off `typed` when NAME is one of `remotes`. A text starting with `/`, `./`
    /// or `../` is never split, and neither is one whose part before the colon names no remote:
    /// a note titled "Plan: June" stays a note.
    public init(parsing typed: String, remotes: some Collection<String>) {
        if !typed.hasPrefix("/"), !typed.hasPrefix("./"), !typed.hasPrefix("../"), let colon = typed.firstIndex(of: ":"),
           remotes.contains(String(typed[..<colon])) {
            remote = String(typed[..<colon])
            text = String(typed[typed.index(after: colon)...])
        } else {
            remote = nil
            text = typed
        }
    }

    /// Splits `typed` as ``init(parsing:remotes:)`` does, and refuses a `NAME:` in front that
    /// reads as a remote's name but names none of `remotes` (`put -r notes club:` where config.toml
    /// has no remote `club` would otherwise make a folder literally named `club:`). A name reads
    /// as a remote's when it is a letter, then letters, digits, `_`, `-` or `.`, with no blank
    /// after the colon; so "Plan: June" and "10:30 standup" stay notes. `folder` is the club's
    /// folder, for the refusal's way to name such a file anyway (its whole path).
    public init(checking typed: String, remotes: some Collection<String>, folder: String) throws(UnknownRemote) {
        self.init(parsing: typed, remotes: remotes)
        guard remote == nil, let name = Self.remoteLike(typed) else { return }
        throw UnknownRemote(name: name, typed: typed, remotes: remotes.sorted(), folder: folder)
    }

    /// The `NAME` of `typed` when it starts with one that reads as a remote's name (see
    /// ``init(checking:remotes:folder:)``), whether config.toml has it or not; nil otherwise.
    public static func remoteLike(_ typed: String) -> String? {
        guard let colon = typed.firstIndex(of: ":") else { return nil }
        let name = typed[..<colon]
        guard let first = name.unicodeScalars.first, isLetter(first), name.unicodeScalars.allSatisfy(isNameScalar) else { return nil }
        let after = typed[typed.index(after: colon)...]
        if let next = after.unicodeScalars.first, next.properties.isWhitespace { return nil }
        return String(name)
    }

    private static func isLetter(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar {
        case "a"..."z", "A"..."Z": return true
        default: return false
        }
    }

    private static func isNameScalar(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar {
        case "a"..."z", "A"..."Z", "0"..."9", "_", "-", ".": return true
        default: return false
        }
    }

    /// The absolute path on the store (`""` is the root): relative text is inside `folder`.
    /// `.` and `..` are left to the server, which refuses them as Dropbox does: a path is a
    /// name on the club, not a walk.
    public func resolved(in folder: String) -> String {
        Self.resolve(text, in: folder)
    }

    /// The absolute path on the store for `text` typed with no remote in front.
    public static func resolve(_ text: String, in folder: String) -> String {
        let typed = text.trimmingCharacters(in: .whitespaces)
        let whole = typed.hasPrefix("/") ? typed : folder + "/" + typed
        let parts = whole.split(separator: "/", omittingEmptySubsequences: true)
        return parts.isEmpty ? "" : "/" + parts.joined(separator: "/")
    }
}

/// A `NAME:` on the command line that names no remote of config.toml: refused, with the
/// remotes there are and the way to name a file or folder that really has such a name.
public struct UnknownRemote: Error, Equatable, Sendable, CustomStringConvertible {
    /// The name before the colon.
    public var name: String
    /// The whole path as typed.
    public var typed: String
    /// config.toml's remotes, sorted.
    public var remotes: [String]
    /// The club's folder.
    public var folder: String

    public init(name: String, typed: String, remotes: [String], folder: String) {
        self.name = name
        self.typed = typed
        self.remotes = remotes
        self.folder = folder
    }

    public var description: String {
        let known = remotes.isEmpty ? "it has none" : "it has " + remotes.joined(separator: ", ")
        let whole = ClubPath.resolve(typed, in: folder)
        return "\(name): names no remote of config.toml (\(known)); for a file or folder named so in the club, give its whole path: \(whole)"
    }
}
