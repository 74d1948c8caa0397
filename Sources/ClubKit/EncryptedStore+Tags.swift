import ClubCrypt
import Foundation
import Remote

/// Tags and pins in an encrypted club (issue 53 §5): the club's data, sealed like the rest.
///
/// On the server each tag is a tag of the hidden file, as in a plain club (so it follows the
/// file, goes with a delete, and a change wakes every member's longpoll: tags stay live), but
/// its text is a keyed hash of the name, 32 hex digits (``hiddenTag(_:)``, a valid Dropbox tag),
/// the pin (``ItemTags/pinTag``) too. The server learns which files share a tag, never a name.
/// The names are the members': `.clubkeys/tags.age`, a JSON map from hash to name, sealed to
/// the club key and signed by the member who wrote it, which only grows (a name is written
/// there before its first use, so a hash read always has one). An entry whose hash is not its
/// name's under the club's key is no entry.
extension EncryptedStore: TaggingStore {
    /// The names file, beside the keys.
    var tagNamesPath: String { ClubKeyFiles(clubFolder: folder).folder + "/tags.age" }

    /// What the names file's signature names (relative, as the key files').
    var tagNamesSignedPath: String { "tags:" + ClubKeyFiles.signedPath(tagNamesPath) }

    /// The tag the server keeps for `tag` (a stored form): 16 bytes of SHA-256 over the names
    /// key, the purpose and the name, in hex. The same for every member, whatever the roster.
    func hiddenTag(_ tag: String) -> String {
        Data((keyring.secrets.names + "\ntag\n" + tag).utf8).sha256.prefix(16).map { String(format: "%02x", $0) }.joined()
    }

    var innerTagging: (any TaggingStore)? { inner as? any TaggingStore }

    func taggingStore() throws(RemoteError) -> any TaggingStore {
        guard let tagging = innerTagging else { throw .notSupported("tags") }
        return tagging
    }

    /// As the store underneath reads them.
    public var tagPathsPerCall: Int? { innerTagging?.tagPathsPerCall ?? 100 }

    public func tags(of paths: [String]) async throws(RemoteError) -> [String: [String]] {
        let tagging = try taggingStore()
        var plainOf: [String: String] = [:]
        var hidden: [String] = []
        for path in paths {
            let name = try hide(path)
            hidden.append(name)
            plainOf[name.lowercased()] = path.lowercased()
        }
        let found = try await tagging.tags(of: hidden)
        // A hash not known here yet: a member used a new name since; the names file has it.
        let known = tagNames.withLock { $0 }
        if found.values.contains(where: { hashes in hashes.contains { known[$0] == nil } }) { _ = try? await readTagNames() }
        let names = tagNames.withLock { $0 }
        var answer: [String: [String]] = [:]
        for (hiddenLower, hashes) in found {
            guard let plain = plainOf[hiddenLower] else { continue }
            // A tag no name explains (written by something other than byteclub) is not shown.
            answer[plain] = hashes.compactMap { names[$0] }
        }
        return answer
    }

    public func addTag(_ tag: String, to path: String) async throws(RemoteError) {
        let tagging = try taggingStore()
        let stored = try Self.storedTag(tag)
        let hidden = try hide(path)
        // The name first: nobody reads a hash whose name is not there yet.
        try await rememberTagNames([stored])
        do {
            try await tagging.addTag(hiddenTag(stored), to: hidden)
        } catch {
            throw plain(error, path, hidden)
        }
    }

    public func removeTag(_ tag: String, from path: String) async throws(RemoteError) {
        let tagging = try taggingStore()
        let stored = try Self.storedTag(tag)
        let hidden = try hide(path)
        do {
            try await tagging.removeTag(hiddenTag(stored), from: hidden)
        } catch {
            throw plain(error, path, hidden)
        }
    }

    /// A tag's stored form, or the refusal a plain club's store gives.
    static func storedTag(_ text: String) throws(RemoteError) -> String {
        let (stored, problem) = ItemTags.normalised(text)
        guard let stored else { throw .local("'\(TerminalSafe.escape(text))' is not a tag name: \(problem ?? "not letters, digits and _")") }
        return stored
    }

    // MARK: The names

    /// The names file as the server has it now (its entries checked), and its rev; an empty map
    /// and nil when there is none yet. What it holds is kept for ``tags(of:)``.
    @discardableResult
    func readTagNames() async throws(RemoteError) -> (names: [String: String], rev: String?) {
        let sealed: (data: Data, entry: RemoteEntry)
        do throws(RemoteError) {
            sealed = try await inner.read(tagNamesPath)
        } catch .notFound {
            return ([:], nil)
        }
        let opened: Data
        do throws(ClubCryptError) {
            opened = try ClubSeal.open(sealed.data, path: tagNamesSignedPath, shown: "the club's tag names", identities: identities,
                                       roster: keyring.roster).plaintext
        } catch {
            // Written by a member admitted since this store began: read the roster again, once.
            guard Self.mayBeStale(error.remote), await refreshKeyring() else { throw error.remote }
            do throws(ClubCryptError) {
                opened = try ClubSeal.open(sealed.data, path: tagNamesSignedPath, shown: "the club's tag names", identities: identities,
                                           roster: keyring.roster).plaintext
            } catch {
                throw error.remote
            }
        }
        let decoded = (try? JSONDecoder().decode([String: String].self, from: opened)) ?? [:]
        let checked = decoded.filter { ItemTags.isStored($0.value) && hiddenTag($0.value) == $0.key }
        tagNames.withLock { $0.merge(checked) { _, read in read } }
        return (checked, sealed.entry.rev)
    }

    /// Makes the names file hold `tags` (stored forms): read, the missing ones added, written
    /// over the rev read; a write another member made meanwhile is read again and kept.
    func rememberTagNames(_ tags: [String]) async throws(RemoteError) {
        let known = tagNames.withLock { $0 }
        guard tags.contains(where: { known[hiddenTag($0)] != $0 }) else { return }
        for _ in 0..<5 {
            let (names, rev) = try await readTagNames()
            var next = names
            for tag in tags { next[hiddenTag(tag)] = tag }
            if next == names { return }
            let encoder = JSONEncoder()
            encoder.outputFormatting = .sortedKeys
            let plaintext: Data
            do {
                plaintext = try encoder.encode(next)
            } catch {
                throw .local("cannot write the club's tag names: \(error)")
            }
            let sealed: Data
            do throws(AgeError) {
                sealed = try ClubSeal.seal(plaintext, path: tagNamesSignedPath, version: ClubSeal.nextVersion(after: nil), to: [keyring.recipient],
                                           by: keyring.me)
            } catch {
                throw .local("cannot seal the club's tag names: \(error)")
            }
            do throws(RemoteError) {
                _ = try await inner.upload(data: sealed, to: tagNamesPath, mode: rev.map { .update(rev: $0) } ?? .add, autorename: false)
                tagNames.withLock { $0.merge(next) { _, written in written } }
                return
            } catch .conflict {
                // Another member wrote it since it was read: theirs, and ours again.
                continue
            }
        }
        throw .local("the club's tag names kept changing on the server; nothing was tagged (try again)")
    }

    // MARK: Moves

    /// A move here is a copy and a delete, each file signed for its new path: the file's tags go
    /// with it, as they follow a file the server moves in a plain club. Best effort.
    func carryTags(from: String, to: String) async {
        guard let tagging = innerTagging, let source = try? hide(from), let target = try? hide(to),
              let found = try? await tagging.tags(of: [source]), let hashes = found[source.lowercased()] else { return }
        for hash in hashes { try? await tagging.addTag(hash, to: target) }
    }
}
