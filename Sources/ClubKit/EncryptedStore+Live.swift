import ClubCrypt
import Foundation
import Remote

/// The live club through an encrypted store: cursors over the hidden folder, changes and
/// revisions with their names revealed.
extension EncryptedStore {
    public func latestCursor(_ folder: String, recursive: Bool) async throws(RemoteError) -> RemoteCursor {
        let hidden = try hide(folder)
        do {
            return try await inner.latestCursor(hidden, recursive: recursive)
        } catch {
            throw plain(error, folder, hidden)
        }
    }

    public func longpoll(_ cursor: RemoteCursor, timeout: TimeInterval) async throws(RemoteError) -> LongpollAnswer {
        try await inner.longpoll(cursor, timeout: timeout)
    }

    public func listChanges(since cursor: RemoteCursor) async throws(RemoteError) -> RemoteChanges {
        var changes = try await inner.listChanges(since: cursor)
        // A change to the club's keys (a member admitted or removed): take the roster anew.
        let keysFolder = (folder + "/" + ClubKeyFiles.folderName + "/").lowercased()
        if changes.changes.contains(where: { $0.pathLower.hasPrefix(keysFolder) }) { await refreshKeyring() }
        changes.changes = changes.changes.compactMap { change in
            switch change {
            case .updated(let entry):
                return reveal(entry).map(RemoteChange.updated)
            case .deleted(_, let path, _):
                guard let plain = reveal(path: path) else { return nil }
                return .deleted(name: (plain as NSString).lastPathComponent, path: plain, pathLower: plain.lowercased())
            }
        }
        return changes
    }

    public func revisions(_ path: String, limit: Int, before: String?) async throws(RemoteError) -> RemoteRevisions {
        let hidden = try hide(path)
        do {
            var revisions = try await inner.revisions(hidden, limit: limit, before: before)
            revisions.entries = revisions.entries.compactMap(reveal)
            return revisions
        } catch {
            throw plain(error, path, hidden)
        }
    }
}

extension EncryptedStore {
    /// `store` behind its club's keyring when the club is encrypted, else `store` itself: for a
    /// process that is given a store rather than the command line's options (the agent). A club
    /// this machine knows as encrypted stays so when the server does not answer.
    public static func wrapping(_ store: any RemoteStore, folder: String, key: String) async throws -> any RemoteStore {
        let known = ClubKeyring.trustedRoster(key: key) != nil
        let encrypted: Bool
        switch await probe(store, folder: folder) {
        case .success(let answer): encrypted = answer
        case .failure: encrypted = known
        }
        guard encrypted else { return store }
        guard let me = try MemberIdentityFile.load() else {
            throw ClubCryptError.keys("This club is encrypted and this machine has no member identity (byteclub init --encrypted, or ask to join)")
        }
        let keyring: ClubKeyring
        if let loaded = try? await ClubKeyring.load(store, folder: folder, key: key, me: me) {
            keyring = loaded
        } else if let local = ClubKeyring.local(key: key, me: me, files: ClubKeyFiles(clubFolder: folder)) {
            keyring = local
        } else {
            throw ClubCryptError.keys("This club is encrypted and its keys cannot be read now")
        }
        return EncryptedStore(inner: store, keyring: keyring, folder: folder, key: key)
    }

    static func probe(_ store: any RemoteStore, folder: String) async -> Result<Bool, RemoteError> {
        do throws(RemoteError) {
            return .success(try await ClubKeyring.isEncrypted(store, folder: folder))
        } catch {
            return .failure(error)
        }
    }
}

extension EncryptedStore {
    /// Whether the club is on a club server, which has the live channel.
    public var offersLive: Bool { (inner as? DropboxStore)?.speaksClub == true }

    /// A note's live socket in an encrypted club: each update sealed with the club key and signed
    /// by this member (as a file is, for the path `live/<id>`), each one received opened and its
    /// signer checked against the roster, so the server relays and stores only ciphertext and a
    /// removed member's updates are refused. Nil when the club is not on a club server.
    public func openLive(fileID: String, deliver: @escaping @Sendable (LiveSocketEvent) -> Void) -> LiveSocket? {
        guard let club = inner as? DropboxStore, club.speaksClub else { return nil }
        // Updates are signed for `live/<id>`, cursors for `live/<id>/cursor`.
        let path = "live/" + fileID
        @Sendable func signed(_ kind: LiveSeal.Kind) -> String { kind == .update ? path : path + "/cursor" }
        let seal = LiveSeal(seal: { [self] plain, kind in
            let keyring = self.keyring
            return try ClubSeal.seal(plain, path: signed(kind), version: ClubSeal.nextVersion(after: nil), to: [keyring.recipient], by: keyring.me)
        }, open: { [self] sealed, kind in
            try ClubSeal.open(sealed, path: signed(kind), identities: self.identities, roster: self.keyring.roster).plaintext
        })
        return club.openLive(fileID: fileID, seal: seal, deliver: deliver)
    }
}
