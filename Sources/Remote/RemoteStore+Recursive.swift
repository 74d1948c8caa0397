/// Everything under a folder, subfolders included, in one list.
extension RemoteStore {
    /// A club server and Dropbox answer a recursive listing themselves, WebDAV by `Depth`; any
    /// other store is walked a folder at a time.
    public func listRecursively(_ folder: String) async throws(RemoteError) -> [RemoteEntry] {
        if let dropbox = self as? DropboxStore { return try await dropbox.listAll(folder, recursive: true) }
        if let webdav = self as? WebDAVStore { return try await webdav.listAll(folder, recursive: true) }
        var all: [RemoteEntry] = []
        var pending = [folder]
        while let next = pending.popLast() {
            let entries = try await list(next)
            all += entries
            pending += entries.filter { $0.kind == .folder }.map(\.path)
        }
        return all
    }
}
