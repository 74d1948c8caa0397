/// How far a listing that comes in pages has got: the entries of its first page (in the first
/// report only: later ones would copy a growing list across threads) and how many so far.
public struct ListingProgress: Sendable {
    public var firstPage: [RemoteEntry]?
    public var count: Int

    public init(firstPage: [RemoteEntry]?, count: Int) {
        self.firstPage = firstPage
        self.count = count
    }
}

/// A store that lists a folder's whole tree its own way (one that wraps another store and maps
/// what its inner store lists).
public protocol RecursiveListingStore: RemoteStore {
    func listRecursivelyItself(_ folder: String, partial: (@Sendable (ListingProgress) -> Void)?) async throws(RemoteError) -> [RemoteEntry]
}

/// Everything under a folder, subfolders included, in one list.
extension RemoteStore {
    /// A club server and Dropbox answer a recursive listing themselves, WebDAV by `Depth`; any
    /// other store is walked a folder at a time. `partial`, when given, hears how far a listing
    /// that comes in pages (the club server's, Dropbox's) or arrives a response at a time
    /// (WebDAV's) has got: after its first page, then at most every second until the last.
    public func listRecursively(_ folder: String, partial: (@Sendable (ListingProgress) -> Void)? = nil) async throws(RemoteError) -> [RemoteEntry] {
        if let wrapper = self as? any RecursiveListingStore { return try await wrapper.listRecursivelyItself(folder, partial: partial) }
        if let dropbox = self as? DropboxStore { return try await dropbox.listAll(folder, recursive: true, partial: partial) }
        if let webdav = self as? WebDAVStore { return try await webdav.listAll(folder, recursive: true, partial: partial) }
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
