import ClubCrypt
import Durable
import Foundation
import Remote
import Synchronization

/// An encrypted club, seen through any store: names are hidden a component at a time, every
/// file is an age file to the club's key signed by its writer, and what comes back is opened
/// and checked (the signer a member, the signature for this path, the version no older than one
/// seen) before the caller sees a byte. Callers see plain names and plaintext, as in a plain club.
///
/// The club's folder itself (`/byteclub`) keeps its name; everything under it is hidden, but for
/// the `.clubkeys` folder, which listings pass over.
public final class EncryptedStore: RemoteStore, Sendable {
    public let inner: any RemoteStore
    /// The keyring, and every generation of the club key as identities, taken anew when the
    /// roster changes (a member admitted or removed while this store is in use).
    let keys: Mutex<(keyring: ClubKeyring, identities: [any AgeIdentity])>
    public var keyring: ClubKeyring { keys.withLock { $0.keyring } }
    /// Every generation of the club key, for opening files.
    var identities: [any AgeIdentity] { keys.withLock { $0.identities } }
    /// The club's key for the local copies (``ClubKeyring/load(_:folder:key:me:)``).
    public let key: String
    /// Hidden names, from the names key (which no roster change changes).
    let names: NameCipher
    /// The club's folder, as the caller spells it.
    public let folder: String
    let folderLower: String
    let seen: SeenVersions
    /// Hidden components already revealed (a folder's name comes back with every entry in it).
    let revealed = Mutex<[String: String]>([:])
    /// The roster's revision last read before a write, and this member's removal once seen
    /// (``confirmMembership()``).
    let membership = Mutex<(rosterRev: String?, removed: String?)>((nil, nil))
    /// What a read answered with less than was asked, for the shells to say (``takeNotices()``).
    let notices = Mutex<[String]>([])
    /// The tag names read from the club's names file, by the hash the server keeps
    /// (EncryptedStore+Tags).
    let tagNames = Mutex<[String: String]>([:])
    /// Each folder's names as last listed, by lower-case path (EncryptedStore+Names).
    let folderNames = Mutex<[String: (at: Date, names: [String: String])]>([:])

    /// The time a folder's kept names are measured by (EncryptedStore+Names): the wall clock,
    /// or the simulation's, so a seed's history replays exactly.
    let clock: @Sendable () -> Date

    public init(inner: any RemoteStore, keyring: ClubKeyring, folder: String, key: String, clock: @escaping @Sendable () -> Date = { Date() }) {
        self.clock = clock
        self.inner = inner
        keys = Mutex((keyring, keyring.secrets.identities.map { $0 as any AgeIdentity }))
        names = keyring.names
        self.key = key
        self.folder = folder
        folderLower = folder.lowercased()
        seen = SeenVersions(file: ClubKeyring.localFolder(key).appendingPathComponent("seen.log"))
    }

    public var displayName: String { inner.displayName }
    public var keepsHistory: Bool { inner.keepsHistory }
    /// A move is a copy, signed for its new path, and a delete: the copy has an id of its own.
    public var keepsIDsThroughMoves: Bool { false }

    // MARK: Names

    /// The path inside the club (`/notes/a.md`), or nil for one outside it or the folder itself.
    func inside(_ path: String) -> Substring? {
        let lower = path.lowercased()
        guard lower.hasPrefix(folderLower + "/"), lower.count > folderLower.count + 1 else { return nil }
        return path.dropFirst(folder.count)
    }

    /// What the server calls `path`.
    func hide(_ path: String) throws(RemoteError) -> String {
        guard let rest = inside(path) else { return path }
        var out = String(path.prefix(folder.count))
        for component in rest.split(separator: "/") {
            guard let hidden = names.hide(String(component)) else {
                throw .malformedPath("\(component) is too long for an encrypted club (at most \(NameCipher.maxNameBytes) bytes)")
            }
            out += "/" + hidden
        }
        return out
    }

    /// What the caller calls a server path; nil for one no key of this club hid (the key folder).
    func reveal(path: String) -> String? {
        guard let rest = inside(path) else { return path }
        var out = folder
        for component in rest.split(separator: "/") {
            let hidden = String(component)
            if let known = revealed.withLock({ $0[hidden] }) {
                out += "/" + known
                continue
            }
            guard let name = names.reveal(hidden.lowercased()) else { return nil }
            revealed.withLock { $0[hidden] = name }
            out += "/" + name
        }
        return out
    }

    func reveal(_ entry: RemoteEntry) -> RemoteEntry? {
        guard let path = reveal(path: entry.path) else { return nil }
        var plain = entry
        plain.path = path
        plain.pathLower = path.lowercased()
        plain.name = (path as NSString).lastPathComponent
        // The server's hash is of the ciphertext, which no local file matches.
        plain.contentHash = nil
        return plain
    }

    func revealed(_ entry: RemoteEntry, asked path: String) throws(RemoteError) -> RemoteEntry {
        guard let plain = reveal(entry) else { throw .local("\(path): the server answered with a name this club's key did not hide") }
        return plain
    }

    /// The path a signature names: inside the club, in lower case.
    func signedPath(_ path: String) -> String { String(inside(path) ?? Substring(path)).lowercased() }

    /// An error of the inner store, with the hidden path it names put back in plain.
    func plain(_ error: RemoteError, _ path: String, _ hidden: String) -> RemoteError {
        switch error {
        case .notFound(let named) where named == hidden || named.lowercased() == hidden.lowercased(): .notFound(path)
        case .conflict(let named) where named == hidden || named.lowercased() == hidden.lowercased(): .conflict(path)
        case .malformedPath(let named) where named == hidden: .malformedPath(path)
        default: error
        }
    }

    // MARK: Listing

    public func listPage(_ folder: String, cursor: String?, limit: Int) async throws(RemoteError) -> (entries: [RemoteEntry], next: String?) {
        let hidden = try hide(folder)
        do {
            let page = try await inner.listPage(hidden, cursor: cursor, limit: limit)
            return (page.entries.compactMap(reveal), page.next)
        } catch {
            throw plain(error, folder, hidden)
        }
    }

    public func list(_ folder: String) async throws(RemoteError) -> [RemoteEntry] {
        let hidden = try hide(folder)
        do {
            return try await inner.list(hidden).compactMap(reveal)
        } catch {
            throw plain(error, folder, hidden)
        }
    }

    public func forEachPage(of folder: String, _ each: ([RemoteEntry]) async -> Void) async throws(RemoteError) {
        let hidden = try hide(folder)
        do {
            try await inner.forEachPage(of: hidden) { await each($0.compactMap(reveal)) }
        } catch {
            throw plain(error, folder, hidden)
        }
    }

    public func metadata(_ path: String) async throws(RemoteError) -> RemoteEntry {
        let hidden = try hide(path)
        do {
            return try revealed(try await inner.metadata(hidden), asked: path)
        } catch {
            throw plain(error, path, hidden)
        }
    }

    public func search(in folder: String, extensions: [String]) async throws(RemoteError) -> [RemoteEntry] {
        let wanted = Set(extensions.map { $0.lowercased().trimmingCharacters(in: CharacterSet(charactersIn: ".")) })
        return try await listRecursively(folder).filter { $0.kind == .file && wanted.contains(($0.name as NSString).pathExtension.lowercased()) }
    }

    public func createFolder(_ path: String) async throws(RemoteError) -> RemoteEntry {
        let hidden = try hide(path)
        do {
            return try revealed(try await inner.createFolder(hidden), asked: path)
        } catch {
            throw plain(error, path, hidden)
        }
    }

    public func delete(_ path: String) async throws(RemoteError) -> RemoteEntry {
        let hidden = try hide(path)
        let deleted: RemoteEntry
        do {
            deleted = try revealed(try await inner.delete(hidden), asked: path)
        } catch {
            throw plain(error, path, hidden)
        }
        forgetName(deleted.path)
        // A photo's sealed thumbnail goes with it.
        if Self.isPhoto(path) { _ = try? await inner.delete(thumbnailPath(of: path)) }
        return deleted
    }

    public func currentAccount() async throws(RemoteError) -> RemoteAccount { try await inner.currentAccount() }
    public func account(id: String) async throws(RemoteError) -> RemoteAccount { try await inner.account(id: id) }
}

extension EncryptedStore: RecursiveListingStore {
    public func listRecursivelyItself(_ folder: String, partial: (@Sendable (ListingProgress) -> Void)?) async throws(RemoteError) -> [RemoteEntry] {
        var pages = ListingArray()
        try await listRecursivelyItself(folder, into: &pages, partial: partial)
        return pages.entries
    }

    public func listRecursivelyItself(_ folder: String, into pages: inout some ListingPages,
                                      partial: (@Sendable (ListingProgress) -> Void)?) async throws(RemoteError) {
        let hidden = try hide(folder)
        let mapped = partial.map { Self.revealing($0, through: self) }
        var revealed = RevealedPages(inner: pages, store: self)
        defer { pages = revealed.inner }
        do {
            try await inner.listRecursively(hidden, into: &revealed, partial: mapped)
        } catch {
            throw plain(error, folder, hidden)
        }
    }
}

/// The pages of the sealed listing, their names revealed (the club's own files dropped) on the
/// way to `inner`.
private struct RevealedPages<Inner: ListingPages>: ListingPages {
    var inner: Inner
    let store: EncryptedStore
    mutating func take(_ page: [RemoteEntry]) { inner.take(page.compactMap(store.reveal)) }
    mutating func restart() { inner.restart() }
}

extension EncryptedStore {
    /// A listing's progress report, with the first page's names revealed.
    static func revealing(_ report: @escaping @Sendable (ListingProgress) -> Void, through store: EncryptedStore) -> @Sendable (ListingProgress) -> Void {
        { progress in report(ListingProgress(firstPage: progress.firstPage?.compactMap(store.reveal), count: progress.count)) }
    }
}

/// The newest version of each path this member has seen, so an older one served again is a
/// rollback. Kept as lines appended to a file (`VERSION⇥path`), read once at start.
final class SeenVersions: Sendable {
    let file: URL
    let versions: Mutex<[String: UInt64]>

    init(file: URL) {
        self.file = file
        var loaded: [String: UInt64] = [:]
        if let text = try? String(contentsOf: file, encoding: .utf8) {
            for line in text.split(separator: "\n") {
                let parts = line.split(separator: "\t", maxSplits: 1)
                if parts.count == 2, let version = UInt64(parts[0]) { loaded[String(parts[1])] = max(loaded[String(parts[1])] ?? 0, version) }
            }
        }
        versions = Mutex(loaded)
    }

    subscript(path: String) -> UInt64? { versions.withLock { $0[path] } }

    func saw(_ version: UInt64, at path: String) { saw([(version, path)]) }

    /// Records many at once: one append to the file.
    func saw(_ seen: [(UInt64, String)]) {
        let newer = versions.withLock { all -> [(UInt64, String)] in
            seen.filter { version, path in
                guard version > (all[path] ?? 0) else { return false }
                all[path] = version
                return true
            }
        }
        guard !newer.isEmpty else { return }
        let line = Data(newer.map { "\($0.0)\t\($0.1)\n" }.joined().utf8)
        // Private (``PrivateFiles``): which notes this member read, and when.
        var fd = PrivateFiles.open(file.path, O_WRONLY | O_CREAT | O_APPEND)
        if fd < 0, errno == ENOENT {
            try? PrivateFiles.folder(file.deletingLastPathComponent())
            fd = PrivateFiles.open(file.path, O_WRONLY | O_CREAT | O_APPEND)
        }
        guard fd >= 0 else { return }
        _ = DurableFile.writeAll(fd, Array(line))
        close(fd)
    }
}

extension EncryptedStore {
    /// Reads the roster and this member's keys again; true when the roster changed (then files
    /// signed by a member just admitted, or sealed to a key made since, open).
    @discardableResult
    public func refreshKeyring() async -> Bool {
        guard let fresh = try? await ClubKeyring.load(inner, folder: folder, key: key, me: keyring.me) else { return false }
        return adopt(fresh)
    }

    /// Takes `fresh` when its roster or secrets differ from those in use; true when it did.
    @discardableResult
    func adopt(_ fresh: ClubKeyring) -> Bool {
        keys.withLock { current in
            guard fresh.roster.version != current.keyring.roster.version || fresh.secrets != current.keyring.secrets else { return false }
            current = (fresh, fresh.secrets.identities.map { $0 as any AgeIdentity })
            return true
        }
    }

    /// Takes `name` out of this club's keys: a new club key for everything written from now on,
    /// wrapped to the members who stay; their keys file deleted; their later writes refused
    /// (``ClubKeyring/remove(_:store:key:)``). The one removal `members revoke` and, in an
    /// encrypted club, `members remove` both make. This store writes with the new key at once.
    ///
    /// - Returns: the generation of the club key files written from now on are sealed to.
    public func revoke(_ name: String) async throws -> Int {
        var keyring = self.keyring
        try await keyring.remove(name, store: inner, key: key)
        let updated = keyring
        keys.withLock { current in current = (updated, updated.secrets.identities.map { $0 as any AgeIdentity }) }
        return updated.roster.generation
    }

    /// Whether `name` holds this club's keys: a member of its roster (any case).
    public func holdsKeys(_ name: String) -> Bool { keyring.roster.member(named: name) != nil }

    /// Whether a refusal may be this member's stale keyring rather than the server: a signer
    /// not (yet) in the roster, or a key not (yet) among ours.
    static func mayBeStale(_ error: RemoteError) -> Bool {
        let message = error.message
        return message.contains("signed by someone who is not a member") || message.contains("no identity of yours opens")
    }

    /// Whether a server path is one this club's key did not hide (a file not yet encrypted).
    public func isPlain(_ path: String) -> Bool { inside(path) != nil && reveal(path: path) == nil }

    /// The server's name for a plain path.
    public func hiddenPath(_ path: String) throws(RemoteError) -> String { try hide(path) }
}
