import ClubCrypt
import DropboxWire
import Foundation
import Remote

/// Encrypted clubs, for both shells: finding out whether a club is one, putting its keyring in
/// front of the store, turning a plain club into one, re-keying, and the door where members
/// wait to be admitted.
public enum EncryptedClubs {
    /// `backend` with an ``EncryptedStore`` in front when its club is encrypted. A club this
    /// machine knew as encrypted stays so offline (its keyring kept locally). Someone not yet a
    /// member leaves a request to join and is told so.
    public static func open(_ backend: Backend) async throws -> Backend {
        if backend.store is EncryptedStore { return backend }
        let key = backend.key
        let known = ClubKeyring.trustedRoster(key: key) != nil
        // One quick question, not the command's retries: a server that does not answer it at
        // once (away, stalled, or one that knows no such call) is a plain club, unless this
        // machine knows it as encrypted, when the keys kept here serve.
        let encrypted: Bool
        switch await within(probeLimit, { await probe(backend) }) {
        case .success(let answer)?: encrypted = answer
        case .failure(.notFound)?: encrypted = false
        case .failure?, nil: encrypted = known
        }
        if !encrypted {
            guard !known else {
                throw ClubCryptError.keys("This club was encrypted, and the server now says it is not (its .clubkeys folder is gone): nothing was read or written")
            }
            return backend
        }
        let me = try MemberIdentityFile.loadOrCreate()
        do {
            var wrapped = backend
            let store = backend.store, folder = backend.folder
            let loaded = await within(probeLimit) { await loadKeyring(store, folder: folder, key: key, me: me) }
            let keyring: ClubKeyring
            switch loaded {
            case .success(let found)?: keyring = found
            case .failure(let error)?: throw error
            case nil:
                guard let local = ClubKeyring.local(key: key, me: me, files: ClubKeyFiles(clubFolder: folder)) else {
                    throw RemoteError.stalled(seconds: probeLimit)
                }
                keyring = local
            }
            wrapped.store = EncryptedStore(inner: backend.store, keyring: keyring, folder: backend.folder, key: key)
            return wrapped
        } catch ClubCryptError.removed(let name) {
            // Refused as a reader's write is (exit 5), not as a failure to try again.
            throw RemoteError.forbidden(ClubCryptError.removed(name: name).description + ": nothing was read or sent")
        } catch ClubCryptError.notAdmitted {
            let name = await memberName(backend)
            try await ClubKeyring.requestToJoin(backend.store, folder: backend.folder, me: me, name: name)
            throw ClubCryptError.notAdmitted(name: name, fingerprint: me.fingerprint)
        }
    }

    /// How long connecting waits for the club's keys before it goes on without the server.
    public static let probeLimit: Double = 2

    /// `work`'s answer, or nil once `seconds` have passed first (the work is then cancelled).
    public static func within<T: Sendable>(_ seconds: Double, _ work: @escaping @Sendable () async -> T) async -> T? {
        await withTaskGroup(of: T?.self) { group in
            group.addTask { await work() }
            group.addTask {
                try? await Task.sleep(for: .seconds(seconds))
                return nil
            }
            let first = await group.next() ?? nil
            group.cancelAll()
            return first
        }
    }

    public static func loadKeyring(_ store: any RemoteStore, folder: String, key: String, me: MemberKeys) async -> Result<ClubKeyring, any Error> {
        do {
            return .success(try await ClubKeyring.load(store, folder: folder, key: key, me: me))
        } catch {
            return .failure(error)
        }
    }

    public static func probe(_ backend: Backend) async -> Result<Bool, RemoteError> {
        do throws(RemoteError) {
            return .success(try await ClubKeyring.isEncrypted(backend.store, folder: backend.folder))
        } catch {
            return .failure(error)
        }
    }

    /// What to call this member: BYTECLUB_NAME, the account's name, or the login name.
    public static func memberName(_ backend: Backend) async -> String {
        if let name = Paths.variable("BYTECLUB_NAME"), !name.isEmpty { return name }
        if let account = try? await backend.store.currentAccount(), !account.displayName.isEmpty { return account.displayName }
        return Paths.variable("USER") ?? "member"
    }

    /// Encrypts every plain file under the club's folder where it is, then removes the plain
    /// folders left empty. Resumable: a file is sealed under its hidden name before its plain
    /// one is deleted, so a run cut anywhere (kill -9 too) is finished by the next.
    public static func encryptInPlace(_ store: EncryptedStore, report: (Int, Int, String) -> Void) async throws -> (done: Int, skipped: [String]) {
        let plain = store.inner
        let keys = (store.folder + "/" + ClubKeyFiles.folderName).lowercased()
        let entries = try await plain.listRecursively(store.folder).filter {
            $0.pathLower != keys && !$0.pathLower.hasPrefix(keys + "/") && store.isPlain($0.path)
        }
        let files = entries.filter { $0.kind == .file }
        var skipped: [String] = []
        for (index, file) in files.enumerated() {
            try Task.checkCancellation()
            report(index, files.count, file.path)
            if let why = try await encryptOne(file.path, store) { skipped.append("\(file.path): \(why)") }
        }
        // The plain folders, deepest first, each once it holds nothing.
        for folder in entries.filter({ $0.kind == .folder }).sorted(by: { $0.path.count > $1.path.count }) {
            if let inside = try? await plain.list(folder.path), inside.isEmpty { _ = try? await plain.delete(folder.path) }
        }
        return (files.count - skipped.count, skipped)
    }

    /// Seals one plain file under its hidden name, its tags and pin with it (sealed too:
    /// EncryptedStore+Tags), then deletes the plain one; nil, or why a name cannot be hidden
    /// (too long), the plain file then kept. A run cut before the delete does it all again.
    public static func encryptOne(_ path: String, _ store: EncryptedStore) async throws(RemoteError) -> String? {
        let temporary = FileManager.default.temporaryDirectory.appendingPathComponent("byteclub-encrypting-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: temporary) }
        _ = try await store.inner.download(path, to: temporary, resumeData: nil, progress: nil, onResumeData: nil)
        // The plain file's tags, read before anything changes: the club's data, kept.
        var tags: [String] = []
        if let tagging = store.inner as? any TaggingStore {
            do throws(RemoteError) {
                tags = try await tagging.tags(of: [path])[path.lowercased()] ?? []
            } catch .notSupported {
                tags = []
            }
        }
        do {
            _ = try await store.upload(file: temporary, to: path, mode: .overwrite, autorename: false, progress: nil)
        } catch .malformedPath(let why) {
            return why
        }
        if !tags.isEmpty {
            do throws(RemoteError) {
                _ = try await store.changeTags(of: path, TagChange(added: tags))
            } catch .notSupported {
                // A server that keeps no tags kept none for the plain file either.
            }
        }
        _ = try await store.inner.delete(path)
        return nil
    }

    /// Writes anew every file not sealed to the present club key, or signed by someone no
    /// longer a member. Resumable: a file done is skipped by the next run.
    public static func rekey(_ store: EncryptedStore, report: (Int, Int, String) -> Void) async throws -> (done: Int, current: Int) {
        let present = try X25519Identity(store.keyring.secrets.generations.last ?? "")
        let files = try await store.listRecursively(store.folder).filter { $0.kind == .file }
        var done = 0
        for (index, file) in files.enumerated() {
            try Task.checkCancellation()
            report(index, files.count, file.path)
            let sealed = try await store.inner.read(try store.hiddenPath(file.path)).data
            let header = try AgeHeader.parse(sealed)
            let signer = (try? WriteSignature(header: header))??.signer
            if (try? Age.fileKey(of: header, identities: [present])) != nil, let signer, store.keyring.roster.member(signing: signer) != nil { continue }
            let (data, entry) = try await store.read(file.path)
            _ = try await store.upload(data: data, to: file.path, mode: entry.rev.map { .update(rev: $0) } ?? .overwrite, autorename: false)
            done += 1
        }
        return (done, files.count - done)
    }

    /// Makes the club of `plain` encrypted: a new keyring (`name` is this member's, else
    /// ``memberName(_:)``), or the one there already when a run was cut short (`resuming` is
    /// told so first), then every plain file encrypted where it is (``encryptInPlace(_:report:)``).
    public static func makeEncrypted(_ plain: Backend, name: String?, resuming: () -> Void,
                                     report: (Int, Int, String) -> Void) async throws -> Encryption {
        let me = try MemberIdentityFile.loadOrCreate()
        let keyring: ClubKeyring
        let resumed = try await ClubKeyring.isEncrypted(plain.store, folder: plain.folder)
        if resumed {
            keyring = try await ClubKeyring.load(plain.store, folder: plain.folder, key: plain.key, me: me)
            resuming()
        } else {
            let member = if let name { name } else { await memberName(plain) }
            keyring = try await ClubKeyring.create(plain.store, folder: plain.folder, key: plain.key, me: me, name: member)
        }
        let store = EncryptedStore(inner: plain.store, keyring: keyring, folder: plain.folder, key: plain.key)
        let (done, skipped) = try await encryptInPlace(store, report: report)
        return Encryption(resumed: resumed, done: done, skipped: skipped, myName: keyring.myName, fingerprint: me.fingerprint)
    }

    /// What ``makeEncrypted(_:name:resuming:report:)`` did.
    public struct Encryption: Sendable, Equatable {
        /// The club was encrypted already (a run cut short): this one finished it.
        public var resumed: Bool
        /// Files encrypted; files left plain, each with why.
        public var done: Int
        public var skipped: [String]
        /// This member in the club's keys.
        public var myName: String
        public var fingerprint: String
    }

    /// The encrypted store of `backend`, or a refusal that says the club is not encrypted.
    public static func store(of backend: Backend) throws -> EncryptedStore {
        guard let store = backend.store as? EncryptedStore else { throw RemoteError.local("This club is not encrypted (byteclub init --encrypted makes it so)") }
        return store
    }

    public static func keyring(of backend: Backend) throws -> ClubKeyring {
        try store(of: backend).keyring
    }

    /// Who is waiting at the door of the club `store` encrypts.
    public static func waiting(_ store: EncryptedStore) async throws -> [ClubKeyring.JoinRequest] {
        try await store.keyring.requests(store.inner)
    }

    /// Admits the request named `name` (any case) with `store`'s keyring, which then knows the
    /// new member at once; the request admitted.
    @discardableResult
    public static func admit(_ name: String, in store: EncryptedStore) async throws -> ClubKeyring.JoinRequest {
        var keyring = store.keyring
        guard let request = try await keyring.requests(store.inner).first(where: { $0.name.lowercased() == name.lowercased() }) else {
            throw ClubCryptError.keys("No one called \(name) is waiting to join (byteclub members admit lists who is)")
        }
        try await keyring.admit(request, store: store.inner, key: store.key)
        await store.refreshKeyring()
        return request
    }

    /// Who is waiting at the door of `backend`'s club (`members admit` with no name).
    public static func waiting(on backend: Backend) async throws -> [ClubKeyring.JoinRequest] {
        try await waiting(store(of: backend))
    }

    /// Admits `name` to `backend`'s club (`members admit NAME`).
    @discardableResult
    public static func admit(_ name: String, on backend: Backend) async throws -> ClubKeyring.JoinRequest {
        try await admit(name, in: store(of: backend))
    }

    /// Takes `name` out of `backend`'s club keys (`members revoke NAME`): the generation of the
    /// new club key everything is written with from now on.
    public static func revoke(_ name: String, on backend: Backend) async throws -> Int {
        try await store(of: backend).revoke(name)
    }
}

extension RemoteStore {
    /// The store under an encrypted club's (or this one).
    public var innermost: any RemoteStore { (self as? EncryptedStore)?.inner ?? self }
}

/// The app's door to an encrypted club (``ClubDoor``): the requests waiting, and admitting one
/// (``EncryptedClubs/admit(_:in:)``) with the keyring of the store the app uses.
public struct EncryptedClubDoor: ClubDoor {
    public let store: EncryptedStore

    public init(store: EncryptedStore) {
        self.store = store
    }

    public func waiting() async throws(RemoteError) -> [JoinRequestSummary] {
        do {
            return try await EncryptedClubs.waiting(store).map { JoinRequestSummary(name: $0.name, fingerprint: $0.fingerprint) }
        } catch {
            throw Self.remote(error)
        }
    }

    public func admit(_ name: String) async throws(RemoteError) {
        do {
            try await EncryptedClubs.admit(name, in: store)
        } catch {
            throw Self.remote(error)
        }
    }

    static func remote(_ error: any Error) -> RemoteError {
        (error as? RemoteError) ?? .local((error as? ClubCryptError)?.description ?? "\(error)")
    }
}
