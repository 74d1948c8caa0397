import DropboxWire
import Foundation

/// A store that keeps tags on files: Dropbox's `files/tags/*` (DropboxStore+Tags.swift) or a
/// WebDAV dead property (WebDAVStore+Tags.swift).
///
/// A pin is not a Dropbox idea; it is kept as the reserved tag ``ItemTags/pinTag``, so it
/// travels through every store the same way and every member sees it. Tag texts are checked
/// with ``TagText`` before anything is sent, so a bad name never reaches the server.
public protocol TaggingStore: RemoteStore {
    /// The tags of each path (normalised, in the order the server keeps them), by `path_lower`.
    /// A path that is gone is left out, not an error: a listing can be a moment old.
    func tags(of paths: [String]) async throws(RemoteError) -> [String: [String]]
    /// Adds one tag (any case: it is lowered); one the file has already changes nothing.
    func addTag(_ tag: String, to path: String) async throws(RemoteError)
    /// Removes one tag; one the file does not have changes nothing.
    func removeTag(_ tag: String, from path: String) async throws(RemoteError)
    /// How many paths one ``tags(of:)`` call should carry when a whole list's tags are asked:
    /// Dropbox's API takes 100 a request (the default); nil for a store that reads the tags of
    /// a whole folder at once (WebDAV's PROPFIND), where one call for every path is the cheapest
    /// and a call per 100 paths would read a 100,000-note folder a thousand times.
    var tagPathsPerCall: Int? { get }
    /// Adds each entry's tags to its file (one the file has already changes nothing), many files
    /// at once where the store can (a club server's `tags/add_batch`: one write of the club's
    /// tags for a thousand notes). The answer has one element per entry, at its position: nil
    /// when its tags were added, or why not (the file is gone, it would pass its limit); the
    /// others are added all the same. Throws what stops them all (the network, a refusal).
    func addTags(_ entries: [TagAddition]) async throws(RemoteError) -> [RemoteError?]
}

/// Tags to add to one file (``TaggingStore/addTags(_:)``).
public struct TagAddition: Sendable, Hashable {
    public var path: String
    public var tags: [String]

    public init(path: String, tags: [String]) {
        self.path = path
        self.tags = tags
    }
}

extension TaggingStore {
    public var tagPathsPerCall: Int? { 100 }

    /// A store with no call for many files: ``addTagsOneAtATime(_:)``.
    public func addTags(_ entries: [TagAddition]) async throws(RemoteError) -> [RemoteError?] {
        try await addTagsOneAtATime(entries)
    }

    /// One ``addTag(_:to:)`` a tag. A failure about the file (gone, or a server's 409 such as
    /// its limit) is that entry's; any other stops them.
    public func addTagsOneAtATime(_ entries: [TagAddition]) async throws(RemoteError) -> [RemoteError?] {
        var failures: [RemoteError?] = []
        failures.reserveCapacity(entries.count)
        for entry in entries {
            do throws(RemoteError) {
                for tag in entry.tags { try await addTag(tag, to: entry.path) }
                failures.append(nil)
            } catch {
                switch error {
                case .notFound, .server(409, _): failures.append(error)
                default: throw error
                }
            }
        }
        return failures
    }
}

extension TaggingStore {
    /// Applies a change (`+a -b`): removals first, so a file at its limit can swap a tag.
    /// Answers the file's tags afterwards.
    @discardableResult
    /// A change that would leave more than ``TagText/maximumPerItem`` tags is refused before
    /// anything is sent, so it never stops half-way at the server's limit.
    public func changeTags(of path: String, _ change: TagChange) async throws(RemoteError) -> [String] {
        if !change.added.isEmpty {
            let current = try await tags(of: [path])[path.lowercased()] ?? []
            let after = Set(current).subtracting(change.removed).union(change.added)
            guard after.count <= TagText.maximumPerItem else {
                throw .local("\(path) would have \(after.count) tags; a file keeps at most \(TagText.maximumPerItem) (the pin counts as one); nothing was changed")
            }
        }
        for tag in change.removed { try await removeTag(tag, from: path) }
        for tag in change.added { try await addTag(tag, to: path) }
        return try await tags(of: [path])[path.lowercased()] ?? []
    }
}

/// Tags to add and to remove, already checked and normalised.
public struct TagChange: Sendable, Hashable {
    public var added: [String]
    public var removed: [String]

    public init(added: [String] = [], removed: [String] = []) {
        self.added = added
        self.removed = removed
    }

    public var isEmpty: Bool { added.isEmpty && removed.isEmpty }

    /// From words like `+trip -boat` (a bare word adds). Throws the first bad name's refusal.
    public static func parse(_ words: [String]) throws(TagText.Refusal) -> TagChange {
        var change = TagChange()
        for word in words {
            if word.hasPrefix("-") {
                let tag = try TagText.normalised(String(word.dropFirst()))
                change.added.removeAll { $0 == tag }
                if !change.removed.contains(tag) { change.removed.append(tag) }
            } else {
                let tag = try TagText.normalised(word.hasPrefix("+") ? String(word.dropFirst()) : word)
                change.removed.removeAll { $0 == tag }
                if !change.added.contains(tag) { change.added.append(tag) }
            }
        }
        return change
    }

    /// What turns `current` into `desired` (both lists of tags).
    public static func difference(from current: [String], to desired: [String]) -> TagChange {
        TagChange(added: desired.filter { !current.contains($0) }, removed: current.filter { !desired.contains($0) })
    }
}

/// A file's tags as people see them: the pin apart from the rest.
public struct ItemTags: Sendable, Hashable, Codable {
    /// The reserved tag a pin is kept as.
    public static let pinTag = "pinned"

    public var all: [String]

    public init(_ all: [String]) { self.all = all }

    public var isPinned: Bool { all.contains(Self.pinTag) }
    /// The tags shown as tags (the pin is shown as a mark).
    public var visible: [String] { all.filter { $0 != Self.pinTag } }
}

extension ItemTags {
    /// Tags a file can have (Dropbox's limit), the pin included.
    public static let maximumPerItem = TagText.maximumPerItem

    /// The stored form of a tag a person typed (lower case), or why it cannot be a tag, in a
    /// few words (short enough for a dialog's line: "'-' is not allowed (letters, digits, _)").
    public static func normalised(_ text: String) -> (tag: String?, problem: String?) {
        switch Result(catching: { () throws(TagText.Refusal) in try TagText.normalised(text) }) {
        case .success(let tag): return (tag, nil)
        case .failure(let refusal): return (nil, refusal.reason)
        }
    }

    /// Whether `text` is a tag as stored (valid and lower case): what a cache may hand back.
    public static func isStored(_ text: String) -> Bool { TagText.isNormalised(text) }
}
