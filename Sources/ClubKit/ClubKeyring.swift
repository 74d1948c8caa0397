import ClubCrypt
import Durable
import Foundation
import Remote

/// The member's own identity file: `identity.txt` (0600) under the config folder, one
/// `AGE-SECRET-KEY-1…` line that `age -d -i` takes as it is; or `identity.age`, the same line
/// locked with a passphrase (age's scrypt), when BYTECLUB_PASSPHRASE was set as it was made.
public enum MemberIdentityFile {
    public static var folder: URL { Paths.configHome.appendingPathComponent("byteclub") }
    public static var plain: URL { folder.appendingPathComponent("identity.txt") }
    public static var locked: URL { folder.appendingPathComponent("identity.age") }

    /// The member's keys, made on first use.
    public static func loadOrCreate() throws -> MemberKeys {
        if let keys = try load() { return keys }
        let identity = X25519Identity()
        let line = Data((identity.text + "\n").utf8)
        if let passphrase = Paths.variable("BYTECLUB_PASSPHRASE"), !passphrase.isEmpty {
            try DurableFile.write(try Age.encrypt(line, to: [ScryptRecipient(passphrase: passphrase)]), to: locked, permissions: 0o600)
        } else {
            try DurableFile.write(Data("# byteclub member identity, made \(Date()); public key: \(identity.recipient.text)\n".utf8) + line,
                                  to: plain, permissions: 0o600)
        }
        return MemberKeys(identity: identity)
    }

    /// The member's keys, or nil when none were made yet.
    public static func load() throws -> MemberKeys? {
        if let text = try? String(contentsOf: plain, encoding: .utf8) {
            guard let line = text.split(separator: "\n").first(where: { $0.hasPrefix("AGE-SECRET-KEY-1") }) else {
                throw ClubCryptError.keys("\(plain.path) holds no AGE-SECRET-KEY-1 line")
            }
            return MemberKeys(identity: try X25519Identity(String(line)))
        }
        guard let file = try? Data(contentsOf: locked) else { return nil }
        guard let passphrase = Paths.variable("BYTECLUB_PASSPHRASE") ?? askPassphrase() else {
            throw ClubCryptError.keys("\(locked.path) is locked with a passphrase: set BYTECLUB_PASSPHRASE or run in a terminal")
        }
        return try unlock(file, passphrase: passphrase)
    }

    static func unlock(_ file: Data, passphrase: String) throws -> MemberKeys {
        let opened = Result(catching: { () throws(AgeError) in try Age.decrypt(file, identities: [ScryptIdentity(passphrase: passphrase)]).plaintext })
        switch opened {
        case .success(let text): return MemberKeys(identity: try X25519Identity(String(decoding: text, as: UTF8.self)))
        case .failure(.wrongPassphrase): throw ClubCryptError.keys("Wrong passphrase for \(locked.path)")
        case .failure(let error): throw ClubCryptError.keys("\(locked.path): \(error)")
        }
    }

    static func askPassphrase() -> String? {
        guard isatty(0) == 1, let answer = getpass("Passphrase for your byteclub identity: ") else { return nil }
        return String(cString: answer)
    }
}

/// An encrypted club as one member holds it: their keys, the member list they trust, and the
/// club's secrets. Loaded from the server and checked, or from the copy kept locally (offline).
public struct ClubKeyring: Sendable {
    public let me: MemberKeys
    public var roster: ClubRoster
    public var secrets: ClubSecrets
    public let files: ClubKeyFiles

    public var myName: String { roster.members.first { $0.recipient == me.recipient.text }?.name ?? "?" }
    public var recipient: X25519Recipient { (try? X25519Recipient(roster.recipient)) ?? X25519Recipient(publicKey: Data(count: 32)) }
    public var names: NameCipher { secrets.nameCipher }

    // MARK: The local copy

    static func localFolder(_ key: String) -> URL { Paths.state.appendingPathComponent("encrypted").appendingPathComponent(key) }

    /// The roster and secrets last checked, sealed to the member (the secrets are the club's).
    /// Written only when the roster changed (the secrets change only with it), not at every connect.
    func keepLocally(key: String) throws {
        let folder = Self.localFolder(key)
        if Self.trustedRoster(key: key) == roster, FileManager.default.fileExists(atPath: folder.appendingPathComponent("secrets.age").path) { return }
        let roster = try JSONEncoder().encode(roster)
        let secrets = try Age.encrypt(try JSONEncoder().encode(secrets), to: [me.recipient])
        try DurableFile.write(roster, to: folder.appendingPathComponent("roster.json"), permissions: 0o600)
        try DurableFile.write(secrets, to: folder.appendingPathComponent("secrets.age"), permissions: 0o600)
    }

    public static func trustedRoster(key: String) -> ClubRoster? {
        (try? Data(contentsOf: localFolder(key).appendingPathComponent("roster.json"))).flatMap { try? JSONDecoder().decode(ClubRoster.self, from: $0) }
    }

    public static func local(key: String, me: MemberKeys, files: ClubKeyFiles) -> ClubKeyring? {
        guard let roster = trustedRoster(key: key),
              let sealed = try? Data(contentsOf: localFolder(key).appendingPathComponent("secrets.age")),
              let plain = try? Age.decrypt(sealed, identities: [me.identity]).plaintext,
              let secrets = try? JSONDecoder().decode(ClubSecrets.self, from: plain) else { return nil }
        return ClubKeyring(me: me, roster: roster, secrets: secrets, files: files)
    }

    // MARK: From the server

    static func fetch(_ path: String, from store: any RemoteStore) async -> Result<Data, RemoteError> {
        do throws(RemoteError) {
            return .success(try await store.read(path).data)
        } catch {
            return .failure(error)
        }
    }

    static func listing(_ path: String, from store: any RemoteStore) async -> Result<[RemoteEntry], RemoteError> {
        do throws(RemoteError) {
            return .success(try await store.list(path))
        } catch {
            return .failure(error)
        }
    }

    /// Whether the club at `folder` is encrypted: its marker file is there.
    public static func isEncrypted(_ store: any RemoteStore, folder: String) async throws(RemoteError) -> Bool {
        do {
            _ = try await store.metadata(ClubKeyFiles(clubFolder: folder).marker)
            return true
        } catch .notFound {
            return false
        }
    }

    /// The keyring of the club at `folder`: the member list (checked against the one trusted
    /// before) and the secrets wrapped to this member. Offline, the local copy.
    public static func load(_ store: any RemoteStore, folder: String, key: String, me: MemberKeys) async throws -> ClubKeyring {
        let files = ClubKeyFiles(clubFolder: folder)
        let trusted = trustedRoster(key: key)
        let rosterFile: Data
        switch await Self.fetch(files.roster, from: store) {
        case .success(let data):
            rosterFile = data
        case .failure(let error):
            if error.isUnreachable, let local = local(key: key, me: me, files: files) { return local }
            throw error
        }
        let roster = try await verifyChain(rosterFile, files: files, store: store, me: me, trusted: trusted)
        guard roster.members.contains(where: { $0.recipient == me.recipient.text }) else {
            if let gone = roster.removed.first(where: { $0.signing == me.signingPublic.base64EncodedString() }) { throw ClubCryptError.removed(name: gone.name) }
            throw ClubCryptError.notAdmitted(name: "", fingerprint: me.fingerprint)
        }
        let keysPath = files.keys(for: me.recipient)
        let keysFile = try await store.read(keysPath).data
        let opened = try ClubSeal.open(keysFile, path: ClubKeyFiles.signedPath(keysPath), identities: [me.identity], roster: roster)
        let secrets = try ClubSecrets(text: String(decoding: opened.plaintext, as: UTF8.self))
        guard secrets.generations.count >= roster.generation else {
            throw ClubCryptError.keys("Your copy of the club key is older than the member list (generation \(secrets.generations.count) of \(roster.generation)): ask a member to run `byteclub members admit` for you again")
        }
        let keyring = ClubKeyring(me: me, roster: roster, secrets: secrets, files: files)
        try keyring.keepLocally(key: key)
        return keyring
    }

    /// The newest roster, checked link by link from the one trusted here: a version signed by
    /// someone this member has not trusted yet (admitted by a member admitted since) is taken
    /// only once every version between, kept in `.clubkeys/rosters/`, has been checked in turn.
    static func verifyChain(_ newest: Data, files: ClubKeyFiles, store: any RemoteStore, me: MemberKeys, trusted: ClubRoster?) async throws -> ClubRoster {
        guard let trusted, let latest = try? JSONDecoder().decode(ClubRoster.self, from: Age.decrypt(newest, identities: [me.identity]).plaintext),
              latest.version > trusted.version + 1, (try? verifyRoster(newest, path: files.roster, me: me, trusted: trusted)) == nil else {
            return try verifyRoster(newest, path: files.roster, me: me, trusted: trusted)
        }
        var current = trusted
        for version in (trusted.version + 1)..<latest.version {
            switch await fetch(files.roster(version: version), from: store) {
            case .success(let file): current = try verifyRoster(file, path: files.roster, me: me, trusted: current)
            case .failure(let error): throw ClubCryptError.refused(path: files.roster, reason: "version \(version) of the member list cannot be read (\(error.message))")
            }
        }
        return try verifyRoster(newest, path: files.roster, me: me, trusted: current)
    }

    /// A roster file, opened and checked: signed by a member of the roster trusted before (or,
    /// the first time, of itself), and no older than it.
    static func verifyRoster(_ file: Data, path: String, me: MemberKeys, trusted: ClubRoster?) throws -> ClubRoster {
        let signedPath = ClubKeyFiles.signedPath(path)
        let plain: Data
        switch Result(catching: { () throws(AgeError) in try Age.decrypt(file, identities: [me.identity]).plaintext }) {
        case .success(let data):
            plain = data
        case .failure(.noMatchingIdentity):
            if let trusted, let mine = trusted.member(signing: me.signingPublic) { throw ClubCryptError.removed(name: mine.name) }
            throw ClubCryptError.notAdmitted(name: "", fingerprint: me.fingerprint)
        case .failure(let error):
            throw ClubCryptError.refused(path: path, reason: error.description)
        }
        let roster = try JSONDecoder().decode(ClubRoster.self, from: plain)
        let header = try AgeHeader.parse(file)
        let (signature, _) = try ClubSeal.check(header, path: signedPath, roster: trusted ?? roster, minimumVersion: trusted?.version ?? 0)
        guard signature.version == roster.version, signature.contentHash == plain.sha256 else {
            throw ClubCryptError.refused(path: path, reason: "its signature does not match the member list inside")
        }
        return roster
    }

    // MARK: Writing keys

    /// Writes the roster (to every member), each member's keys file, and the marker.
    func publish(_ store: any RemoteStore, keysFor members: [ClubRoster.Member]) async throws {
        let recipients = roster.members.compactMap { try? X25519Recipient($0.recipient) }
        let rosterFile = try ClubSeal.seal(try JSONEncoder().encode(roster), path: ClubKeyFiles.signedPath(files.roster), version: roster.version,
                                           to: recipients, by: me)
        for member in members {
            guard let recipient = try? X25519Recipient(member.recipient) else { continue }
            let path = files.keys(for: recipient)
            let sealed = try ClubSeal.seal(Data(secrets.text.utf8), path: ClubKeyFiles.signedPath(path), version: roster.version,
                                           to: [recipient], by: me)
            _ = try await store.upload(data: sealed, to: path, mode: .overwrite, autorename: false)
        }
        // Each version is kept too, so a member who missed some checks each link in turn.
        _ = try await store.upload(data: rosterFile, to: files.roster(version: roster.version), mode: .overwrite, autorename: false)
        _ = try await store.upload(data: rosterFile, to: files.roster, mode: .overwrite, autorename: false)
        let marker = try JSONSerialization.data(withJSONObject: ["byteclub_encrypted": 1, "recipient": roster.recipient], options: [.sortedKeys])
        _ = try await store.upload(data: marker, to: files.marker, mode: .overwrite, autorename: false)
    }

    /// A new encrypted club at `folder`, with this member alone in it.
    public static func create(_ store: any RemoteStore, folder: String, key: String, me: MemberKeys, name: String) async throws -> ClubKeyring {
        let secrets = ClubSecrets.new()
        let member = ClubRoster.Member(name: name, recipient: me.recipient.text, signing: me.signingPublic.base64EncodedString())
        let roster = ClubRoster(version: 1, generation: 1, recipient: secrets.identities[0].recipient.text, members: [member], removed: [])
        let keyring = ClubKeyring(me: me, roster: roster, secrets: secrets, files: ClubKeyFiles(clubFolder: folder))
        try await keyring.publish(store, keysFor: [member])
        try keyring.keepLocally(key: key)
        return keyring
    }

    /// A join request: the name and recipient of someone not yet admitted (plain: it is public).
    public struct JoinRequest: Codable, Sendable {
        public var name: String
        public var recipient: String
        /// The Ed25519 public key, base64.
        public var signing: String
        public var fingerprint: String { MemberKeys.fingerprint(recipient: recipient, signing: signing) }
    }

    /// Asks to join: leaves a request for a member to admit.
    public static func requestToJoin(_ store: any RemoteStore, folder: String, me: MemberKeys, name: String) async throws {
        let files = ClubKeyFiles(clubFolder: folder)
        let request = JoinRequest(name: name, recipient: me.recipient.text, signing: me.signingPublic.base64EncodedString())
        _ = try await store.upload(data: try JSONEncoder().encode(request), to: files.request(for: me.recipient), mode: .overwrite, autorename: false)
    }

    /// The requests waiting.
    public func requests(_ store: any RemoteStore) async throws -> [JoinRequest] {
        let entries: [RemoteEntry]
        switch await Self.listing(files.requests, from: store) {
        case .success(let found): entries = found
        case .failure(.notFound): return []
        case .failure(let error): throw error
        }
        var found: [JoinRequest] = []
        for entry in entries where entry.kind == .file && entry.size < 4096 {
            if let data = try? await store.read(entry.path).data, let request = try? JSONDecoder().decode(JoinRequest.self, from: data),
               (try? X25519Recipient(request.recipient)) != nil, !roster.members.contains(where: { $0.recipient == request.recipient }) {
                found.append(request)
            }
        }
        return found
    }

    /// Admits a requester: a new roster version with them in it, and their keys file. One
    /// small write each: nothing of the club is encrypted again.
    public mutating func admit(_ request: JoinRequest, store: any RemoteStore, key: String) async throws {
        guard roster.member(named: request.name) == nil else { throw ClubCryptError.keys("There is already a member called \(request.name)") }
        guard let recipient = try? X25519Recipient(request.recipient) else { throw ClubCryptError.keys("\(request.name)'s request holds no valid key") }
        guard let signing = Data(base64Encoded: request.signing), signing.count == 32 else {
            throw ClubCryptError.keys("\(request.name)'s request holds no valid signing key")
        }
        let member = ClubRoster.Member(name: request.name, recipient: request.recipient, signing: request.signing)
        roster.members.append(member)
        roster.version += 1
        try await publish(store, keysFor: [member])
        _ = try? await store.delete(files.request(for: recipient))
        try keepLocally(key: key)
    }

    /// Removes a member: a new club key for everything written from now on (wrapped to the
    /// members who stay), their keys file deleted, and their later writes refused.
    public mutating func remove(_ name: String, store: any RemoteStore, key: String) async throws {
        guard let gone = roster.member(named: name) else { throw ClubCryptError.keys("No member called \(name)") }
        guard gone.recipient != me.recipient.text else { throw ClubCryptError.keys("You cannot remove yourself; another member can") }
        roster.members.removeAll { $0 == gone }
        roster.removed.append(.init(name: gone.name, signing: gone.signing, removedAt: UInt64(Date().timeIntervalSince1970 * 1000)))
        let next = X25519Identity()
        secrets.generations.append(next.text)
        roster.generation = secrets.generations.count
        roster.recipient = next.recipient.text
        roster.version += 1
        try await publish(store, keysFor: roster.members)
        if let recipient = try? X25519Recipient(gone.recipient) { _ = try? await store.delete(files.keys(for: recipient)) }
        try keepLocally(key: key)
    }
}
