import ArgumentParser
import ClubCrypt
import ClubKit
import DropboxWire
import Foundation
import Logging
import Remote

extension BackendOptions {
    /// Connects (``connectPlain(serverLogLevel:retry:offlineStart:)``), then, for an encrypted
    /// club, puts its keyring between the caller and the store: every command and the app see
    /// plain names and plaintext.
    func connect(serverLogLevel: Logger.Level = .warning, retry: RetryPolicy = RetryPolicy(), offlineStart: Bool = false) async throws -> Backend {
        let backend = try await connectPlain(serverLogLevel: serverLogLevel, retry: retry, offlineStart: offlineStart)
        do {
            return try await EncryptedClubs.open(backend)
        } catch {
            await backend.close()
            throw error
        }
    }
}

/// Encrypted clubs at the command line: finding out whether a club is one, its keyring, and
/// turning a plain club into one.
enum EncryptedClubs {
    /// `backend` with an ``EncryptedStore`` in front when its club is encrypted. A club this
    /// machine knew as encrypted stays so offline (its keyring kept locally). Someone not yet a
    /// member leaves a request to join and is told so.
    static func open(_ backend: Backend) async throws -> Backend {
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
    static let probeLimit: Double = 2

    /// `work`'s answer, or nil once `seconds` have passed first (the work is then cancelled).
    static func within<T: Sendable>(_ seconds: Double, _ work: @escaping @Sendable () async -> T) async -> T? {
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

    static func loadKeyring(_ store: any RemoteStore, folder: String, key: String, me: MemberKeys) async -> Result<ClubKeyring, any Error> {
        do {
            return .success(try await ClubKeyring.load(store, folder: folder, key: key, me: me))
        } catch {
            return .failure(error)
        }
    }

    static func probe(_ backend: Backend) async -> Result<Bool, RemoteError> {
        do throws(RemoteError) {
            return .success(try await ClubKeyring.isEncrypted(backend.store, folder: backend.folder))
        } catch {
            return .failure(error)
        }
    }

    /// What to call this member: BYTECLUB_NAME, the account's name, or the login name.
    static func memberName(_ backend: Backend) async -> String {
        if let name = Paths.environment["BYTECLUB_NAME"], !name.isEmpty { return name }
        if let account = try? await backend.store.currentAccount(), !account.displayName.isEmpty { return account.displayName }
        return Paths.environment["USER"] ?? "member"
    }

    /// Encrypts every plain file under the club's folder where it is, then removes the plain
    /// folders left empty. Resumable: a file is sealed under its hidden name before its plain
    /// one is deleted, so a run cut anywhere (kill -9 too) is finished by the next.
    static func encryptInPlace(_ store: EncryptedStore, report: (Int, Int, String) -> Void) async throws -> (done: Int, skipped: [String]) {
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
    static func encryptOne(_ path: String, _ store: EncryptedStore) async throws(RemoteError) -> String? {
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
    static func rekey(_ store: EncryptedStore, report: (Int, Int, String) -> Void) async throws -> (done: Int, current: Int) {
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

    /// "Encrypting 12/340 notes/a.md" on one line of a terminal's stderr, at most ten a second.
    final class Counter: @unchecked Sendable {
        // @unchecked Sendable: used from one task only (the command's), never shared.
        let verb: String
        var last = Date.distantPast
        let enabled = isatty(2) == 1

        init(_ verb: String) { self.verb = verb }

        func report(_ index: Int, _ total: Int, _ path: String) {
            guard enabled, Date().timeIntervalSince(last) > 0.1 else { return }
            last = Date()
            FileHandle.standardError.write(Data("\r\(verb) \(index + 1)/\(total) \(TerminalSafe.escape(path))\u{1B}[K".utf8))
        }

        func finish() {
            if enabled { FileHandle.standardError.write(Data("\r\u{1B}[K".utf8)) }
        }
    }
}

/// `byteclub init --encrypted [REMOTE]`.
struct Init: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Make a club encrypted: a new one, or an existing one, every file encrypted where it is.",
        discussion: """
            The server (or Dropbox, or the WebDAV host) then holds only age files and hidden names. \
            Your identity is made on first use: $XDG_CONFIG_HOME/byteclub/identity.txt (0600), or \
            identity.age locked with a passphrase when BYTECLUB_PASSPHRASE is set. Cut short \
            (Ctrl-C, a lost connection, kill -9), run it again: it goes on where it stopped. \
            See docs/encryption.md.
            """)
    @Flag(help: "Encrypt the club (the only kind of init there is).") var encrypted = false
    @Argument(help: "A remote named in config.toml (default: the one the other commands use).") var remoteName: String?
    @Option(help: "Your name in the club (default: BYTECLUB_NAME, the account's name, or $USER).") var name: String?
    @OptionGroup var backend: BackendOptions

    func validate() throws {
        guard encrypted else { throw ValidationError("byteclub init makes a club encrypted: byteclub init --encrypted [REMOTE]") }
    }

    func run() async throws {
        StderrLog.bootstrap()
        var options = backend
        if let remoteName { options.remote = remoteName }
        let plain = try await options.connectPlain()
        defer { Task { await plain.close() } }
        do {
            let me = try MemberIdentityFile.loadOrCreate()
            let keyring: ClubKeyring
            if try await ClubKeyring.isEncrypted(plain.store, folder: plain.folder) {
                keyring = try await ClubKeyring.load(plain.store, folder: plain.folder, key: plain.key, me: me)
                say("This club is encrypted already: finishing what is left to encrypt")
            } else {
                let member = if let name { name } else { await EncryptedClubs.memberName(plain) }
                keyring = try await ClubKeyring.create(plain.store, folder: plain.folder, key: plain.key, me: me, name: member)
            }
            let store = EncryptedStore(inner: plain.store, keyring: keyring, folder: plain.folder, key: plain.key)
            let counter = EncryptedClubs.Counter("Encrypting")
            let (done, skipped) = try await EncryptedClubs.encryptInPlace(store, report: counter.report)
            counter.finish()
            for refusal in skipped { say("not encrypted: \(refusal)") }
            print("Encrypted club: \(done) file\(done == 1 ? "" : "s") encrypted; you are \(TerminalSafe.escape(keyring.myName)), fingerprint \(me.fingerprint)")
            print("Others join with their own byteclub, then a member runs `byteclub members admit NAME`.")
        } catch let error as RemoteError {
            throw fail(error)
        } catch let error as ClubCryptError {
            say(error.description)
            throw ExitCode(1)
        }
    }
}

/// `byteclub rekey`.
struct Rekey: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Re-encrypt an encrypted club's older files to its present key (after a member was removed).",
        discussion: "Resumable: run it again after a cut and it skips the files done.")
    @OptionGroup var backend: BackendOptions

    func run() async throws {
        try await runRemote(backend) { backend in
            guard let store = backend.store as? EncryptedStore else { throw RemoteError.local("This club is not encrypted: nothing to rekey") }
            let counter = EncryptedClubs.Counter("Re-encrypting")
            let (done, current) = try await EncryptedClubs.rekey(store, report: counter.report)
            counter.finish()
            print("Re-encrypted \(done) file\(done == 1 ? "" : "s"); \(current) already had the present key")
        }
    }
}
