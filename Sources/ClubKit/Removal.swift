import Foundation
import Remote

/// What deleting a path takes with it, and the rule `rm` keeps (as `rm` and rclone's `purge`
/// do): a folder that holds files goes only when asked for with `-r`, and where the server keeps
/// no history (WebDAV) the deletion is said to be for good before it is made.
///
/// A file, an empty folder, or a folder holding only empty folders goes as asked.
public struct Removal: Equatable, Sendable {
    /// The path as the store spells it.
    public var path: String
    public var isFolder: Bool
    /// The files at any depth under a folder (0 for a file).
    public var files: Int
    /// Whether the server keeps what is deleted (``RemoteStore/keepsHistory``).
    public var keepsHistory: Bool

    public init(path: String, isFolder: Bool, files: Int, keepsHistory: Bool) {
        self.path = path
        self.isFolder = isFolder
        self.files = files
        self.keepsHistory = keepsHistory
    }

    /// What deleting `path` on `store` would take: for a folder, its files counted at any depth.
    public static func of(_ path: String, on store: any RemoteStore) async throws(RemoteError) -> Removal {
        let entry = try await store.metadata(path)
        guard entry.kind == .folder else {
            return Removal(path: entry.path, isFolder: false, files: 0, keepsHistory: store.keepsHistory)
        }
        let under = try await store.listRecursively(entry.path)
        var files = 0
        for item in under where item.kind == .file { files += 1 }
        return Removal(path: entry.path, isFolder: true, files: files, keepsHistory: store.keepsHistory)
    }

    /// "3 files", "1 file".
    public static func count(_ files: Int, _ noun: String = "file") -> String {
        "\(files) \(noun)\(files == 1 ? "" : "s")"
    }

    /// Whether the deletion needs `-r`: a folder that holds files.
    public var needsRecursive: Bool { isFolder && files > 0 }

    /// Why `rm` without `-r` refuses this (nil: it may go as asked), as one sentence.
    public func refusal(recursive: Bool) -> String? {
        guard needsRecursive, !recursive else { return nil }
        let gone = keepsHistory ? "" : " (this server keeps no history: they could not be restored)"
        return "\(path) is a folder with \(Self.count(files)); use rm -r to delete it and everything in it\(gone)"
    }

    /// The line said before a folder's files are deleted where the server keeps no history:
    /// they go for good. Nil where the server keeps them (or there are none).
    public var warning: String? {
        guard needsRecursive, !keepsHistory else { return nil }
        return "deleting \(path) and the \(Self.count(files)) in it: this server keeps no history, so this cannot be undone"
    }
}
