import Foundation
import Remote
import SearchIndex

/// One club's search index kept current the one way the app and the command line (`byteclub
/// search`, `links`) both keep it. They share the file (`$XDG_CACHE_HOME/byteclub/<club>/
/// search.sqlite`), so they must agree on what it holds: a sync forgets every note its listing
/// does not name, and `byteclub search` once listed only the top folder (a WebDAV club's index
/// then held its 4 top-level notes, and the app's `Ctrl-F` found nothing in a subfolder until it
/// restarted). Here is the one rule for both: the notes of the Notes tab, at any depth
/// (``ClubLayout/fetch(_:from:partial:)``: not `photos/`, not hidden folders), synced by
/// ``IndexSync`` with the same fetches.
public enum ClubIndexSync {
    /// How many notes a sync downloads at once: enough to keep a loopback or LAN server busy,
    /// few enough not to crowd out the lists' own requests.
    public static let concurrentFetches = 8

    /// The notes an index of the club holds: every note the Notes tab lists, in any folder
    /// under the club's folder (a recursive listing: WebDAV by folder, a club server and
    /// Dropbox in pages), files only. The app's notes list holds the same.
    public static func notes(in layout: ClubLayout, from store: any RemoteStore) async throws(RemoteError) -> EntryTable {
        try await layout.fetchListing(.notes, from: store).entries
    }

    /// A listed note as ``IndexSync`` takes it.
    public static func entry(_ entry: RemoteEntry) -> IndexSync.Entry {
        IndexSync.Entry(path: entry.path, name: entry.name, rev: entry.rev, modified: entry.modified, modifiedBy: entry.modifiedBy,
                        size: entry.size)
    }

    /// Makes `index` hold exactly the notes of `entries` (the club's notes, as ``notes(in:from:)``
    /// lists them, or the app's notes list): fetches those whose revision it does not have,
    /// through `fetchBatch` first when given, and forgets the rest.
    public static func run(_ index: SearchIndex, entries: some Collection<RemoteEntry>, fetch: @escaping IndexSync.Fetch,
                           fetchBatch: IndexSync.FetchBatch?, progress: IndexSync.Progress? = nil) async throws -> IndexSync.Report {
        try await IndexSync(index: index, maxConcurrentFetches: concurrentFetches)
            .run(listing: entries.lazy.map(Self.entry), fetch: fetch, fetchBatch: fetchBatch, progress: progress)
    }

    /// Takes in a change page's notes (``IndexSync/apply(changed:removed:fetch:fetchBatch:progress:)``):
    /// `changed` fetched where the index lacks their revision, `removed` (lowercased paths) forgotten.
    public static func apply(_ index: SearchIndex, changed: [RemoteEntry], removed: [String], fetch: @escaping IndexSync.Fetch,
                             fetchBatch: IndexSync.FetchBatch?, progress: IndexSync.Progress? = nil) async throws -> IndexSync.Report {
        try await IndexSync(index: index, maxConcurrentFetches: concurrentFetches)
            .apply(changed: changed.map(Self.entry), removed: removed, fetch: fetch, fetchBatch: fetchBatch, progress: progress)
    }

    /// Lists the club's notes (``notes(in:from:)``) and brings `index` current against them,
    /// fetching from `store`: what the command line does before it answers from the index.
    /// - Throws: the listing's ``RemoteError`` (`isUnreachable` when offline: the index is as it was).
    public static func bringCurrent(_ index: SearchIndex, layout: ClubLayout, store: any RemoteStore,
                                    progress: IndexSync.Progress? = nil) async throws -> IndexSync.Report {
        let notes = try await notes(in: layout, from: store)
        return try await run(index, entries: notes, fetch: fetchText(from: store), fetchBatch: IndexSync.batchFetch(from: store),
                             progress: progress)
    }

    /// One note's text from `store`; a note that is not UTF-8 is indexed as far as it decodes.
    public static func fetchText(from store: any RemoteStore) -> IndexSync.Fetch {
        { entry in
            let data = try await store.read(entry.path).data
            return String(decoding: data, as: UTF8.self)
        }
    }
}

extension IndexSync {
    /// The club server gives many notes an answer (a first sync of 100,000 notes is 200
    /// requests, not 100,000): the store's batch read as the index's batch fetch, each note's
    /// text as far as it decodes as UTF-8 (as a single fetch reads it), with the metadata of
    /// what was read. Nil for other stores, which fetch a note a request, a few at a time.
    public static func batchFetch(from store: any RemoteStore) -> FetchBatch? {
        guard let batches = store as? any BatchReadingStore, batches.readsInBatches else { return nil }
        return { entries in
            try await batches.readBatch(entries.map(\.path)).map { read -> Fetched? in
                guard case .file(let entry, let data) = read else { return nil }
                return Fetched(entry: ClubIndexSync.entry(entry), text: String(decoding: data, as: UTF8.self))
            }
        }
    }
}
