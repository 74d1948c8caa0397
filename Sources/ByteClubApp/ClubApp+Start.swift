import Foundation
import TerminalUI

/// At start: both tabs load, what was kept from last time is said; the clock's tick and the live updates' seams.
extension ClubApp {
    /// Loads both tabs (the screen is on the compositor from the start: ClubApp+Layers.swift).
    /// Without `indexing`, the search index is opened and brought current only at
    /// ``startIndexing()``: the terminal app draws its first frame from the cache first, so
    /// that the index's look at a 100,000-note list does not take a core from it.
    public func start(indexing: Bool = true) {
        update { $0.message = StatusMessage("Loading…") }
        clockTick?.cancel()
        clockTick = effects.repeating(every: Self.clockTickInterval) { [weak self] in self?.clockTicked() }
        // What an editor wrote before a byteclub that ran it was killed goes into its draft.
        configuration.drafts?.adoptEditorFiles()
        refresher.reloadDrafts()
        refresher.reloadPausedDownloads()
        background.start()
        joinQuestions.start()
        sayWhatWasKept()
        offline.start()
        if indexing { noteIndex.start() }
        // The lists as the server last gave them, at once; the server's answer replaces them.
        let cursors = refresher.restoreCached()
        tagsSync.restoreCached()
        if configuration.liveUpdates {
            // Each tab takes a change cursor first, then loads (LiveUpdates); a tab cached
            // with its cursor asks only for what changed since.
            live.start(cached: cursors)
        } else {
            for tab in Tab.allCases { refresher.refresh(tab) }
        }
    }

    /// Opens the search index and brings it current, after ``start(indexing:)`` without it.
    public func startIndexing() { noteIndex.start() }

    /// Says how many drafts were kept from last time, and how many from an older byteclub were
    /// kept aside. A draft whose text waits in the outbox is saved as far as the user is
    /// concerned (the status bar counts it as waiting): only the others are unsaved.
    func sayWhatWasKept() {
        let queued = Set(configuration.outbox?.all().compactMap(\.draftID) ?? [])
        let unsaved = state.drafts.filter { !queued.contains($0.id) }.count
        var kept: [String] = []
        if unsaved > 0 { kept.append("\(unsaved) unsaved draft\(unsaved == 1 ? "" : "s") kept from last time, marked ✎ in Notes") }
        let aside = configuration.draftsKeptAside
        if aside > 0 {
            kept.append("\(aside) draft\(aside == 1 ? "" : "s") from an older byteclub kept aside, not known to be this club's: byteclub outbox lists \(aside == 1 ? "it" : "them")")
        }
        if !kept.isEmpty {
            let said = kept.joined(separator: " · ")
            update { $0.message = StatusMessage(said) }
        }
    }

    /// Asks for a frame when a relative time on screen ("just now") would read otherwise.
    func clockTicked() {
        if model.state.relativeTimes.isDue(now: configuration.format.now()) { compositor.setNeedsRedraw() }
    }

    /// Stops the live updates (the longpolls in flight are cancelled); quitting does it too.
    public func stopLiveUpdates() { live.stop() }
    /// Failures in a row of `tab`'s live updates (each schedules the next try in the same turn).
    public func liveFailuresInARow(_ tab: Tab) -> Int { live.failuresInARow(tab) }
}
