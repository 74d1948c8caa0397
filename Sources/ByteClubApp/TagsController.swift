import Foundation
import Remote
import TerminalUI

/// Tags and pins of the notes: `#` edits the selected note's tags, `*` pins or unpins it; the
/// tags of the whole list are asked for after each load, and a note's again whenever the
/// change journal hands it back (another member tagged it: the same rev, so no change to the
/// list itself).
///
/// A store that keeps no tags (``TaggingStore`` missing, or a WebDAV server that refuses dead
/// properties) is said once, when a key asks, and the list shows no tags.
@MainActor
final class TagsController {
    let context: AppContext
    /// Which fetch of the whole list is the latest; an older one that answers late is dropped.
    private var generation = 0
    private var cacheScheduled = false

    init(context: AppContext) {
        self.context = context
    }

    private var tagging: (any TaggingStore)? { context.store as? any TaggingStore }

    // MARK: Loading

    /// Shows the tags kept with the cached list (an offline start).
    func restoreCached() {
        guard let cached = context.configuration.cache?.tags() else { return }
        context.update { $0.tags.apply(cached, asked: [], replacingAll: true) }
    }

    /// After a load of the notes: the tags of every note, in one go.
    func loadFinished(_ tab: Tab) {
        let listing = context.state.notes
        guard tab == .notes, tagging != nil, context.state.tags.unavailable == nil, listing.error == nil, listing.cachedAt == nil else { return }
        let paths = listing.entries.map(\.path)
        generation += 1
        fetch(paths, replacingAll: true, generation: generation)
    }

    /// A change page: the notes it names are asked for their tags again; a deleted or renamed
    /// note's tags go (the journal names the new path too, which is asked for).
    func changesArrived(_ tab: Tab, _ changes: [RemoteChange]) {
        guard tab == .notes, tagging != nil, context.state.tags.unavailable == nil else { return }
        var asked: [String] = []
        for change in changes {
            switch change {
            case .updated(let entry) where entry.kind == .file: asked.append(entry.path)
            case .updated: continue
            case .deleted(_, _, let pathLower):
                context.update { $0.tags.move(from: pathLower, to: nil) }
            }
        }
        guard !asked.isEmpty else { return }
        fetch(asked, replacingAll: false, generation: nil)
    }

    private func fetch(_ paths: [String], replacingAll: Bool, generation: Int?) {
        guard let tagging else { return }
        context.perform({ () async throws(RemoteError) in try await tagging.tags(of: paths) }) { [weak self] result in
            guard let self else { return }
            if let generation, generation != self.generation { return }
            switch result {
            case .success(let found):
                self.updateKeepingSelection { $0.tags.apply(found, asked: paths, replacingAll: replacingAll) }
                self.scheduleCache()
            case .failure(.notSupported(let what)):
                self.context.update { $0.tags.unavailable = what }
            case .failure(let error):
                // The list is there without its tags; the next load or change asks again.
                self.context.logger.warning("could not read tags: \(error.message)")
            }
        }
    }

    // MARK: Keys

    private var selectedNote: RemoteEntry? {
        guard case .note(let entry, _)? = context.state.selectedNoteItem(in: context.model.noteListing) else { return nil }
        return entry
    }

    /// `#`: a one-line input holding the tags ("trip boat"); Enter applies the difference.
    func editSelected() {
        guard let entry = selectedNote else { return context.say(StatusMessage("Select a note to tag (a draft is tagged once saved)")) }
        guard checkAvailable() else { return }
        let current = context.state.tags.of(entry)
        let title = TerminalSafe.escape(ClubLayout.title(of: entry.name))
        let prompt = PromptLayer(
            title: "Tags", body: ["Tags of \"\(title)\", separated by spaces (letters, digits and _). In the list, /#tag shows the notes with a tag."],
            text: current.visible.joined(separator: " "), placeholder: "e.g. trip boat", hint: "Enter save · Esc cancel",
            validate: { text in Self.parse(text).problem }
        ) { [weak self] text in
            guard let self, let text, let desired = Self.parse(text).tags else { return }
            // The pin is kept as it is: `*` changes it, not this line.
            var change = TagChange.difference(from: current.visible, to: desired)
            change.removed.removeAll { $0 == ItemTags.pinTag }
            change.added.removeAll { $0 == ItemTags.pinTag }
            guard !change.isEmpty else { return }
            self.apply(change, to: entry, done: "Tags of \"\(title)\" saved")
        }
        context.present(prompt)
    }

    /// `*`: pins or unpins the selected note.
    func togglePinSelected() {
        guard let entry = selectedNote else { return context.say(StatusMessage("Select a note to pin")) }
        guard checkAvailable() else { return }
        let title = TerminalSafe.escape(ClubLayout.title(of: entry.name))
        if context.state.tags.of(entry).isPinned {
            apply(TagChange(removed: [ItemTags.pinTag]), to: entry, done: "Unpinned \"\(title)\"")
        } else {
            apply(TagChange(added: [ItemTags.pinTag]), to: entry, done: "Pinned \"\(title)\"")
        }
    }

    /// The words of the input as tags, or the first bad one's problem (the dialog stays open
    /// with the text as typed). `pinned` is reserved for `*`.
    static func parse(_ text: String) -> (tags: [String]?, problem: String?) {
        var tags: [String] = []
        for word in text.split(whereSeparator: { $0 == " " || $0 == "," }) {
            let raw = word.hasPrefix("#") ? String(word.dropFirst()) : String(word)
            let (tag, problem) = ItemTags.normalised(raw)
            guard let tag else { return (nil, problem) }
            if tag == ItemTags.pinTag { return (nil, "'\(ItemTags.pinTag)' is kept for pins: * pins a note") }
            if !tags.contains(tag) { tags.append(tag) }
        }
        if tags.count > ItemTags.maximumPerItem - 1 { return (nil, "at most \(ItemTags.maximumPerItem - 1) tags (and the pin)") }
        return (tags, nil)
    }

    private func checkAvailable() -> Bool {
        if tagging == nil {
            context.say(.error("This remote keeps no tags"))
            return false
        }
        if let reason = context.state.tags.unavailable {
            context.say(.error("Tags are not kept here: \(reason)"))
            return false
        }
        return true
    }

    private func apply(_ change: TagChange, to entry: RemoteEntry, done: String) {
        guard let tagging else { return }
        context.update {
            $0.beginRequest()
            $0.message = StatusMessage("Saving tags…")
        }
        let path = entry.path
        context.perform({ () async throws(RemoteError) in try await tagging.changeTags(of: path, change) }) { [weak self] result in
            guard let self else { return }
            self.context.update { $0.endRequest() }
            switch result {
            case .success(let tags):
                self.updateKeepingSelection {
                    $0.tags.apply([entry.pathLower: tags], asked: [entry.pathLower])
                    $0.message = StatusMessage(done)
                }
                self.scheduleCache()
            case .failure(.notSupported(let what)):
                self.context.update {
                    $0.tags.unavailable = what
                    $0.message = .error("Tags are not kept here: \(what)")
                }
            case .failure(let error) where error.isUnreachable:
                self.context.say(.error("Offline: tags can be changed once the server is back"))
            case .failure(let error):
                self.context.say(.error("Could not change the tags: \(error.message)"))
            }
        }
    }

    /// Changes the tags with the selection kept on its note: a pin moves a row to the top.
    private func updateKeepingSelection(_ change: (inout AppState) -> Void) {
        let keep = context.state.selectedPath(.notes, notes: context.model.noteListing)
        context.update(change)
        guard let keep else { return }
        let listing = context.model.noteListing
        context.update { $0.reselect(.notes, path: keep, notes: listing) }
    }

    // MARK: The cache

    private func scheduleCache() {
        guard context.configuration.cache != nil, !cacheScheduled else { return }
        cacheScheduled = true
        context.effects.after(Refresher.cacheDelay) { [weak self] in self?.writeCache() }
    }

    private func writeCache() {
        cacheScheduled = false
        guard let cache = context.configuration.cache else { return }
        let tags = context.state.tags.byPath.mapValues(\.all)
        let logger = context.logger
        context.effects.perform({ () async throws(RemoteError) in
            do { try cache.saveTags(tags) } catch { logger.error("cannot write the cached tags: \(error)") }
        }) { _ in }
    }
}
