import Foundation
import Remote
import SearchIndex

/// What this machine keeps for a club, by the club's ``Backend/key``: the one place the command
/// line and the app find the drafts, the outbox, the offline cache and the search index of the
/// club they are connected to. None of them is ever another club's.
extension Backend {
    /// This club's drafts (`$XDG_STATE_HOME/byteclub/drafts/KEY`): what is shown as `✎`, restored
    /// and saved in this club. Another club's are in another folder, never read here.
    public var drafts: DraftStore { DraftStore(directory: Paths.drafts(PlantedBug.otherClubsDraft.isPlanted ? "planted-every-club" : key)) }

    /// Drafts from a byteclub that kept every club's drafts in one folder, that no club has
    /// taken yet (``adoptOlderDrafts()``): shown in no club and sent to none, but kept, and listed
    /// by `byteclub outbox`, which takes one into a club when asked (`--take-draft`).
    public static var draftsKeptAside: DraftStore { DraftStore(directory: Paths.olderDrafts) }

    /// What waits to be sent to this club (`$XDG_STATE_HOME/byteclub/outbox/KEY`).
    public var outbox: Outbox { Outbox(directory: Paths.outbox(key)) }

    /// The one write path of both shells for the writes made at once (moves, deletes, folders,
    /// restores, tags): in order with this club's outbox, the queue following a move, no delete
    /// under queued text (``OutboxSender/Direct``), as the app's writes are.
    public var writes: OutboxSender.Direct { OutboxSender.Direct(store: store, outbox: outbox) }

    /// Sends what waits in this club's outbox, in order (the one sender the app runs too,
    /// ``OutboxSender``), each item's result told to `report`.
    public func sendOutbox(report: @Sendable (OutboxReport) async -> Void = { _ in }) async -> OutboxRun {
        await OutboxSender(store: store, outbox: outbox, drafts: drafts).sendAll(report: report)
    }

    /// The club's listings and notes as last seen, for offline starts (`$XDG_CACHE_HOME/byteclub/KEY`).
    public var cache: ClubCache { ClubCache(directory: Paths.cache(key)) }

    /// The club's search index, beside its cache; a failure to open it says why.
    public func searchIndex() throws(RemoteError) -> SearchIndex {
        do {
            return try SearchIndex(directory: Paths.cache(key))
        } catch {
            throw RemoteError.local(error.description)
        }
    }
}

extension Backend {
    /// Takes into this club's drafts each draft of the older shared folder (``draftsKeptAside``)
    /// that is known to be this club's, and leaves every other one where it is. A draft is known
    /// to be this club's when this club's outbox has an item made from it (its `draftID`), or
    /// when it edits a note at a rev this club's cache has for that note: in the cached list, or
    /// as the cached text. A rev names one version of one file on one server (a club server's
    /// comes from the file's inode and times; Dropbox's revs and WebDAV's ETags likewise), so
    /// another club's note of the same name does not have the draft's. A draft of a new note
    /// with nothing queued, or of a note changed since, is known to be no club's: it stays aside,
    /// shown in none and sent to none, until the user takes it into a club (`byteclub outbox
    /// --take-draft`). Nothing is replaced: where this club has a draft of the same id already,
    /// that one stays, and so does the older one, aside.
    /// - Returns: how many drafts were taken.
    @discardableResult
    public func adoptOlderDrafts() -> Int {
        let older = Self.draftsKeptAside
        let aside = older.all()
        guard !aside.isEmpty else { return 0 }
        let queued = Set(outbox.all().compactMap(\.draftID))
        let cache = self.cache
        var listed: [String: String] = [:]
        for entry in cache.listing(.notes)?.entries ?? [] {
            if let rev = entry.rev { listed[entry.pathLower] = rev }
        }
        let mine = drafts
        var taken = 0
        for draft in aside where Self.isKnown(draft, queued: queued, listed: listed, cache: cache) {
            if older.move(draft.id, to: mine) { taken += 1 }
        }
        return taken
    }

    /// Whether `draft` is known to be the club whose outbox items name `queued` drafts, and
    /// whose cache is `cache` (its notes list: `listed`, each lowercased path's rev).
    static func isKnown(_ draft: Draft, queued: Set<String>, listed: [String: String], cache: ClubCache) -> Bool {
        if queued.contains(draft.id) { return true }
        guard let path = draft.path, let rev = draft.baseRev, !rev.isEmpty else { return false }
        if listed[path.lowercased()] == rev { return true }
        return cache.note(path)?.rev == rev
    }
}
