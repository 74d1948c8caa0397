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
