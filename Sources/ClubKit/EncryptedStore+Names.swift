import Foundation
import Remote

/// Names that differ only in case. The club server, as Dropbox, takes `PLAN.md` for `Plan.md`;
/// but each hides to another server name, so the server cannot tell, and a second file would
/// be written beside the first, whose reads then fail (both sign the same lower-case path, and
/// the older reads as a rollback). A write asks here first, from the folder's listing.
extension EncryptedStore {
    /// How long a folder's listing answers for the names in it; this store's own writes are
    /// added as they land, so a `put -r` lists each folder about once per interval.
    static let namesKeptFor: TimeInterval = 2

    /// The path of a file or folder already at `path` in another case, or nil.
    func caseTwin(of path: String) async throws(RemoteError) -> String? {
        let parent = (path as NSString).deletingLastPathComponent
        let key = parent.lowercased(), lower = path.lowercased()
        let now = clock()
        var names = folderNames.withLock { kept -> [String: String]? in
            guard let listed = kept[key], now.timeIntervalSince(listed.at) < Self.namesKeptFor else { return nil }
            return listed.names
        }
        if names == nil {
            do {
                let listed = try await list(parent)
                var found: [String: String] = [:]
                for entry in listed { found[entry.pathLower] = entry.path }
                names = found
                folderNames.withLock { $0[key] = (now, found) }
            } catch .notFound {
                // A folder not made yet holds no name.
                return nil
            }
        }
        guard let there = names?[lower], there != path else { return nil }
        return there
    }

    /// A write landed at `path`: the names kept for its folder have it now.
    func noteName(_ path: String) {
        let key = (path as NSString).deletingLastPathComponent.lowercased()
        folderNames.withLock { kept in
            kept[key]?.names[path.lowercased()] = path
        }
    }

    /// A file went from `path`.
    func forgetName(_ path: String) {
        let key = (path as NSString).deletingLastPathComponent.lowercased()
        folderNames.withLock { kept in
            _ = kept[key]?.names.removeValue(forKey: path.lowercased())
        }
    }
}
