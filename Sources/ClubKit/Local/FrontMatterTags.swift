import Foundation
import Markdown
import Remote

/// The one rule that keeps a note's front matter and its club tags agreeing (issue 53 §6).
///
/// Every path that makes or changes a note calls it once the note's text is in the club: the
/// app's saves and `new`, `edit`, `today` (all through ``OutboxSender``; a template's front
/// matter comes with the note made from it), the app's Overwrite, Save as copy and merged saves,
/// `put` (and `put -r`), `cp`, `restore`, `import`; an encrypted club keeps the club tags sealed
/// (``TaggingStore`` on the encrypted store), so the rule holds there too. Export asks it what
/// to write (``exported(own:ownPinned:club:)``).
///
/// Each way it only adds, so a tag is never lost between the two:
/// - after a note is written, every inline `#tag` of its text (``InlineTags``) and every tag its front matter names (`tags:` as ``NoteFrontMatter``
///   reads it, a leading `#` dropped, in the stored form ``ItemTags/normalised(_:)`` gives) and
///   `pinned: true` (the reserved tag ``ItemTags/pinTag``) that the club lacks becomes a club tag
///   (``adopt(_:at:store:)``);
/// - export writes the union of the note's own and the club's into the front matter, never
///   dropping one the note has.
///
/// Front matter whose YAML does not parse is left alone both ways: nothing can be known of it.
public enum FrontMatterTags {
    /// What a note's front matter asks the club for.
    public struct Wanted: Sendable, Equatable {
        /// The stored forms, in the order written, each once; the pin last when `pinned: true`.
        public var tags: [String] = []
        /// Tags written that cannot be club tags, each a line for people (`tag "a-b" left out: …`).
        public var refused: [String] = []
        /// Why the YAML did not parse (then nothing else is known).
        public var unreadable: String?

        public init(tags: [String] = [], refused: [String] = [], unreadable: String? = nil) {
            self.tags = tags
            self.refused = refused
            self.unreadable = unreadable
        }
    }

    /// What adopting a note's front matter did.
    public struct Adopted: Sendable, Equatable {
        /// The tags the club did not have and has now.
        public var added: [String] = []
        /// Lines for people, each naming the note: tags that cannot be club tags, tags past the
        /// club's limit, or front matter that does not parse.
        public var refused: [String] = []

        public init(added: [String] = [], refused: [String] = []) {
            self.added = added
            self.refused = refused
        }
    }

    /// Whether a file of this name is a note (`.md`, `.txt`), whose front matter counts.
    public static func isNote(_ name: String) -> Bool { ClubLayout.hasExtension(name, in: ClubLayout.noteExtensions) }

    /// A note larger than this is not read again to find its front matter (``adoptWritten(_:store:)``).
    public static let largestNoteRead: Int64 = 4 << 20

    /// What `text` asks for: the tags of the front matter at its top and the inline `#tags` of
    /// its text (``InlineTags``, `#project/alpha` a nested tag); nil when it has neither.
    public static func wanted(in text: String) -> Wanted? {
        let matter = NoteFrontMatter(text)
        let inline = InlineTags.scan(text)
        guard matter != nil || !inline.isEmpty else { return nil }
        if let error = matter?.error {
            // The inline tags are known even when the YAML is not; its own are not.
            var found = Wanted(unreadable: error)
            add(inline, to: &found, inline: true)
            return found
        }
        var found = Wanted()
        add(matter?.tags ?? [], to: &found, inline: false)
        add(inline, to: &found, inline: true)
        if matter?.pinned == true, !found.tags.contains(ItemTags.pinTag) { found.tags.append(ItemTags.pinTag) }
        return found
    }

    /// The stored forms of the inline `#tags` of `text` that can be club tags: what export
    /// leaves out of the front matter it writes, as the note's text already says them.
    public static func inlineTags(in text: String) -> [String] {
        var found: [String] = []
        for written in InlineTags.scan(text) {
            if let tag = ItemTags.normalised(written).tag, tag != ItemTags.pinTag, !found.contains(tag) { found.append(tag) }
        }
        return found
    }

    private static func add(_ written: [String], to found: inout Wanted, inline: Bool) {
        for written in written {
            let (tag, problem) = ItemTags.normalised(written)
            if let tag {
                if !found.tags.contains(tag) { found.tags.append(tag) }
            } else {
                found.refused.append("tag \"\(inline ? "#" : "")\(written)\" left out: \(problem ?? "it is not a tag name")")
            }
        }
    }

    /// After `text` was written at `path`: every tag its front matter asks for that the club
    /// lacks is added there (``TaggingStore``), up to the club's limit a file. Never removes one.
    ///
    /// Nothing is asked of the server for a text without front matter, or whose front matter
    /// asks for no tag, or for a store that keeps no tags. Throws what the store throws
    /// (`.notSupported` from a WebDAV server that keeps no dead properties); callers whose write
    /// stands whatever the tags do (a save) take it as a tag to adopt at the next write.
    @discardableResult
    public static func adopt(_ text: String, at path: String, store: any RemoteStore) async throws(RemoteError) -> Adopted {
        guard let asked = Self.wanted(in: text) else { return Adopted() }
        var adopted = Adopted(refused: asked.refused.map { "\(path): \($0)" })
        if let error = asked.unreadable {
            adopted.refused.append("\(path): front matter does not parse (\(error)); its tags and pin were left out")
            if asked.tags.isEmpty { return adopted }
        }
        guard !asked.tags.isEmpty, let tagging = store as? any TaggingStore else { return adopted }
        let current = try await tagging.tags(of: [path])[path.lowercased()] ?? []
        var count = current.count
        for tag in asked.tags where !current.contains(tag) {
            guard count < ItemTags.maximumPerItem else {
                adopted.refused.append("\(path): tag \"\(tag)\" left out: a file keeps at most \(ItemTags.maximumPerItem) tags (the pin counts as one)")
                continue
            }
            try await tagging.addTag(tag, to: path)
            adopted.added.append(tag)
            count += 1
        }
        return adopted
    }

    /// ``adopt(_:at:store:)`` for many notes at once (an import's, a `put -r`'s): their club
    /// tags read a hundred paths a call, and what each lacks added in one call for all
    /// (``TaggingStore/addTags(_:)``), not a call a tag. The answer for each note at its
    /// position; a note whose tags the store would not add (gone meanwhile, past its limit)
    /// says so among its refusals, the others' are added all the same.
    public static func adoptAll(_ notes: [(text: String, path: String)], store: any RemoteStore) async throws(RemoteError) -> [Adopted] {
        var adopted = [Adopted](repeating: Adopted(), count: notes.count)
        var asking: [(position: Int, tags: [String])] = []
        for (position, note) in notes.enumerated() {
            guard let asked = Self.wanted(in: note.text) else { continue }
            adopted[position].refused = asked.refused.map { "\(note.path): \($0)" }
            if let error = asked.unreadable {
                adopted[position].refused.append("\(note.path): front matter does not parse (\(error)); its tags and pin were left out")
            }
            if !asked.tags.isEmpty { asking.append((position, asked.tags)) }
        }
        guard !asking.isEmpty, let tagging = store as? any TaggingStore else { return adopted }
        let current = try await tagging.tags(of: asking.map { notes[$0.position].path })
        var additions: [TagAddition] = []
        var added: [Int] = []
        for (position, tags) in asking {
            let path = notes[position].path
            let has = current[path.lowercased()] ?? []
            var count = has.count
            var fresh: [String] = []
            for tag in tags where !has.contains(tag) {
                guard count < ItemTags.maximumPerItem else {
                    adopted[position].refused.append("\(path): tag \"\(tag)\" left out: a file keeps at most \(ItemTags.maximumPerItem) tags (the pin counts as one)")
                    continue
                }
                fresh.append(tag)
                count += 1
            }
            guard !fresh.isEmpty else { continue }
            additions.append(TagAddition(path: path, tags: fresh))
            added.append(position)
        }
        guard !additions.isEmpty else { return adopted }
        let failures = try await tagging.addTags(additions)
        for (index, position) in added.enumerated() {
            if let failure = failures[index] {
                adopted[position].refused.append("\(notes[position].path): its tags could not be added: \(failure.message)")
            } else {
                adopted[position].added = additions[index].tags
            }
        }
        return adopted
    }

    /// ``adopt(_:at:store:)`` for a note already in the club whose text is not at hand (a copy
    /// made on the server, a revision restored): read first. Nothing for a file that is no note,
    /// or one larger than ``largestNoteRead``.
    @discardableResult
    public static func adoptWritten(_ entry: RemoteEntry, store: any RemoteStore) async throws(RemoteError) -> Adopted {
        guard entry.kind == .file, isNote(entry.name), entry.size <= largestNoteRead, store is any TaggingStore else { return Adopted() }
        let (data, _) = try await store.read(entry.path)
        return try await adopt(String(decoding: data, as: UTF8.self), at: entry.path, store: store)
    }

    /// What export writes in a note's own front matter.
    public struct Exported: Sendable, Equatable {
        /// The stored forms of the union, sorted (the pin is ``pinned``, not among them).
        public var tags: [String]
        /// The note's own tags that cannot be club tags, as written: kept after the others.
        public var unrecognised: [String]
        public var pinned: Bool
    }

    /// What export writes for a note whose own front matter names `own` tags (as written) and
    /// `ownPinned`, when the club has `club` (stored forms, the pin among them): the union of
    /// both, or nil when the front matter names every one already (it is then kept byte for
    /// byte). None of the note's own is dropped: one the club has not (removed in the club
    /// since the note was last written, or no tag name at all) stays.
    public static func exported(own: [String], ownPinned: Bool, club: [String]) -> Exported? {
        var stored: [String] = []
        var unrecognised: [String] = []
        for written in own {
            if let tag = ItemTags.normalised(written).tag {
                if tag == ItemTags.pinTag { continue }
                if !stored.contains(tag) { stored.append(tag) }
            } else if !unrecognised.contains(written) {
                unrecognised.append(written)
            }
        }
        let clubVisible = club.filter { $0 != ItemTags.pinTag }
        let union = Set(stored).union(clubVisible)
        let pinned = ownPinned || club.contains(ItemTags.pinTag) || own.contains { ItemTags.normalised($0).tag == ItemTags.pinTag }
        guard union != Set(stored) || pinned != ownPinned else { return nil }
        return Exported(tags: union.sorted(), unrecognised: unrecognised, pinned: pinned)
    }
}
