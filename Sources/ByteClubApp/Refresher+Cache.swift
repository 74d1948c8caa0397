import Foundation
import Remote

/// The lists kept on disk (``ClubCache``) so that a start without the server shows them at once:
/// read before the first frame, written after every load and change page the server gave,
/// never after an error.
extension Refresher {
    /// How long a list waits after a change before it is written (a burst of change pages is one write).
    static let cacheDelay: Duration = .milliseconds(500)
    /// A list longer than ``bigList`` is written at most once in ``bigListInterval`` seconds: a
    /// 100,000-note list is tens of megabytes, and another member's `put -r` sends change pages
    /// for as long as it runs. A crash loses only the cursor's progress: the changes since the
    /// cached cursor are asked for again.
    nonisolated static let bigList = 10_000
    static let bigListInterval = 10.0

    /// Shows the cached lists, marked with the time the server gave them, and returns the change
    /// cursors they are at (the live updates continue from there: only what changed since).
    func restoreCached() -> [Tab: RemoteCursor] {
        guard let cache = context.configuration.cache else { return [:] }
        var cursors: [Tab: RemoteCursor] = [:]
        for tab in Tab.allCases {
            guard let cached = cache.listing(tab) else { continue }
            let folder = context.configuration.layout.folder(of: tab)
            if let cursor = cached.cursor, cursor.folder.lowercased() == folder.lowercased() { cursors[tab] = cursor }
            // What waits in the outbox happened here already: a rename or a delete made offline
            // shows as made, not as the server last listed it.
            let pending = context.configuration.outbox?.all() ?? []
            // The Notes tab's attachments apart from its notes, as a load takes them.
            // The cache holds them in that order: the parts are read where they are, not copied.
            let table = cached.entries
            let parts = table.split(into: 3) { position in
                guard table.kind(at: position) == .file else { return 2 }
                return tab == .notes && !ClubLayout.hasExtension(ofNameAt: position, in: table, ClubLayout.noteExtensions) ? 1 : 0
            }
            let entries = pending.isEmpty ? parts[0] : EntryTable(OfflineState.applying(pending, to: Array(parts[0])))
            context.update {
                $0[tab].entries = entries
                $0[tab].files = Array(parts[1])
                $0[tab].folders = Array(parts[2])
                $0[tab].hasLoaded = true
                $0[tab].version += 1
                $0[tab].cachedAt = cached.saved
            }
        }
        context.logger.info("cached lists shown", metadata: ["notes": "\(state.notes.entries.count)", "photos": "\(state.photos.entries.count)"])
        return cursors
    }

    /// The server just gave `tab`'s list (a load, or a change page at `cursor`): it is written to
    /// the cache soon, off the UI queue. `emptyIsConfirmed`: the change journal removed the last
    /// entries one by one (an empty load alone never empties the cache).
    func cacheList(_ tab: Tab, cursor: RemoteCursor?, emptyIsConfirmed: Bool = false) {
        guard context.configuration.cache != nil else { return }
        if let cursor { cacheCursors[tab] = cursor }
        cacheConfirmedEmpty[tab] = emptyIsConfirmed
        context.update { $0[tab].cachedAt = nil }
        guard !cacheScheduled.contains(tab) else { return }
        cacheScheduled.insert(tab)
        var delay = Self.cacheDelay
        if state[tab].entries.count > Self.bigList, let last = cacheWrittenAt[tab] {
            let wait = last + Self.bigListInterval - context.effects.now()
            if wait > 0.5 { delay = .milliseconds(Int(wait * 1000)) }
        }
        context.effects.after(delay) { [weak self] in self?.writeCache(tab) }
    }

    private func writeCache(_ tab: Tab) {
        cacheScheduled.remove(tab)
        guard let cache = context.configuration.cache else { return }
        cacheWrittenAt[tab] = context.effects.now()
        // The three lists as they are, not joined: a 100,000-note list is not copied to be written.
        let parts = [state[tab].entries, EntryTable(state[tab].files), EntryTable(state[tab].folders)]
        let cursor = cacheCursors[tab], saved = context.configuration.format.now()
        let confirmed = cacheConfirmedEmpty[tab] ?? false
        let logger = context.logger
        context.effects.perform({ () async throws(RemoteError) -> Bool in
            do {
                if try cache.saveListing(tab, parts: parts, cursor: cursor, saved: saved, emptyIsConfirmed: confirmed) { return true }
                logger.warning("kept the cached \(tab.noun): the server listed none")
            } catch {
                logger.error("cannot write the cache of \(tab.noun): \(error)")
            }
            return false
        }) { [weak self] result in
            if case .success(let saved) = result { self?.onCacheWritten?(tab, saved) }
        }
    }

    private var state: AppState { context.state }
}
