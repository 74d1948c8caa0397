import Foundation
import Remote
import TerminalUI

/// Tags and pins of the notes: `#` edits the selected note's tags, `*` pins or unpins it. The
/// tags of the list itself are ``TagsSync``'s.
///
/// A store that keeps no tags (``TaggingStore`` missing, or a WebDAV server that refuses dead
/// properties) is said once, when a key asks, and the list shows no tags.
@MainActor
final class TagsController {
    let context: AppContext
    private let sync: TagsSync

    init(context: AppContext, sync: TagsSync) {
        self.context = context
        self.sync = sync
    }

    private var tagging: (any TaggingStore)? { context.store as? any TaggingStore }

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
        context.ask { PromptLayer(
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
        } }
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
        guard tagging != nil else { return }
        context.update {
            $0.beginRequest()
            $0.message = StatusMessage("Saving tags…")
        }
        let path = entry.path, writes = context.writes
        context.perform({ () async throws(RemoteError) in try await writes.changeTags(of: path, change) }) { [weak self] result in
            guard let self else { return }
            self.context.update { $0.endRequest() }
            switch result {
            case .success(let tags):
                self.sync.updateKeepingSelection {
                    $0.tags.apply([entry.pathLower: tags], asked: [entry.pathLower])
                    $0.message = StatusMessage(done)
                }
                self.sync.scheduleCache()
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
}
