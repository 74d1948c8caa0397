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
    /// ``RemoteStore/listRecursively(_:into:partial:)`` its own way.
    func listRecursivelyItself(_ folder: String, into pages: inout some ListingPages,
                               partial: (@Sendable (ListingProgress) -> Void)?) async throws(RemoteError)
}

/// Where a listing that comes in pages goes as it comes (``RemoteStore/listRecursively(_:into:partial:)``):
/// a 100,000-note listing is kept the way its taker keeps it (the app's table of bytes), never
/// as one array of every entry beside it (issue 56).
public protocol ListingPages {
    /// The next page's entries, in the listing's order.
    mutating func take(_ page: [RemoteEntry])
    /// The listing started over (a cursor reset part-way): every page taken so far is dropped.
    mutating func restart()
}

/// The pages gathered into one array: what ``RemoteStore/listRecursively(_:partial:)`` answers.
public struct ListingArray: ListingPages {
    public var entries: [RemoteEntry] = []
    public init() {}
    public mutating func take(_ page: [RemoteEntry]) { entries += page }
    public mutating func restart() { entries = [] }
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

    /// ``listRecursively(_:partial:)``, each page handed to `pages` as it arrives: the club
    /// server's and Dropbox's pages of 2,000 entries as they are decoded; a store listed folder
    /// by folder (WebDAV) or by another store's pages in one go at the end.
    public func listRecursively(_ folder: String, into pages: inout some ListingPages,
                                partial: (@Sendable (ListingProgress) -> Void)? = nil) async throws(RemoteError) {
        if let wrapper = self as? any RecursiveListingStore {
            try await wrapper.listRecursivelyItself(folder, into: &pages, partial: partial)
        } else if let dropbox = self as? DropboxStore {
            try await dropbox.listAll(folder, into: &pages, partial: partial)
        } else {
            pages.take(try await listRecursively(folder, partial: partial))
        }
    }
}
