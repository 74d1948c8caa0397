import Remote

/// The club's own folder (`/byteclub`, or a named remote's `folder`) is there from the start, as
/// the app's Notes tab shows it: a new club whose first member has just joined, or a WebDAV
/// folder byteclub never wrote to, has no such folder on the server until something is put in
/// it, and listing it then is an empty list, not "not found". Any other missing folder is not
/// found (exit 3).
extension Backend {
    /// Whether `path` is this club's own folder, in any case.
    public func isClubFolder(_ path: String) -> Bool {
        path.lowercased() == folder.lowercased()
    }

    /// ``RemoteStore/forEachPage(of:_:)``, with the club's own folder listed empty when the
    /// server has none yet.
    public func forEachPage(of path: String, _ each: (_ page: [RemoteEntry]) async -> Void) async throws(RemoteError) {
        do {
            try await store.forEachPage(of: path, each)
        } catch .notFound where isClubFolder(path) {
            return
        }
    }
}
