import ArgumentParser
import ClubCrypt
import ClubKit
import DropboxWire
import Foundation
import LocalClub
import Remote

/// The members of an encrypted club, by their keys: who is waiting, admitting, removing.
extension MembersCommand {
    struct Admit: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Admit someone waiting to join an encrypted club (without NAME: list who is waiting).",
            discussion: "Compare the fingerprint with the one their byteclub showed them before you admit them. One small write: nothing of the club is encrypted again.")
        @Argument(help: "Who to admit, as their request names them.") var name: String?
        @OptionGroup var backend: BackendOptions

        func run() async throws {
            let name = name
            try await runRemote(backend) { backend in
                var keyring = try EncryptedClubs.keyring(of: backend)
                let requests = try await keyring.requests(backend.store.innermost)
                guard let name else {
                    if requests.isEmpty { print("No one is waiting to join") }
                    for request in requests { print("\(TerminalSafe.escape(request.name)) wants to join (fingerprint \(request.fingerprint))") }
                    return
                }
                guard let request = requests.first(where: { $0.name.lowercased() == name.lowercased() }) else {
                    throw ClubCryptError.keys("No one called \(name) is waiting to join (byteclub members admit lists who is)")
                }
                try await keyring.admit(request, store: backend.store.innermost, key: backend.key)
                print("Admitted \(TerminalSafe.escape(request.name)) (fingerprint \(request.fingerprint))")
            }
        }
    }

    struct Revoke: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Remove a member from an encrypted club: a new club key for everything written from now on.",
            discussion: """
                Their later writes are refused. Files written before keep the old key until `byteclub rekey` \
                re-encrypts them. On a club server, `byteclub members remove NAME` does this too, and \
                ends their token.
                """)
        @Argument var name: String
        @OptionGroup var backend: BackendOptions

        func run() async throws {
            let name = name
            try await runRemote(backend) { backend in
                let generation = try await EncryptedClubs.store(of: backend).revoke(name)
                print(EncryptedClubs.revoked(name, generation: generation))
            }
        }
    }

    struct Keys: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "An encrypted club's members with their fingerprints, and its recipient for `age -r`.")
        @OptionGroup var backend: BackendOptions

        func run() async throws {
            try await runRemote(backend) { backend in
                let keyring = try EncryptedClubs.keyring(of: backend)
                for member in keyring.roster.members {
                    print("\(TerminalSafe.escape(member.name))\t\(member.fingerprint)\(member.recipient == keyring.me.recipient.text ? "\t(you)" : "")")
                }
                print("recipient\t\(TerminalSafe.escape(keyring.roster.recipient))")
                print("your keys\t\(keyring.files.keys(for: keyring.me.recipient))")
            }
        }
    }
}

extension EncryptedClubs {
    static func store(of backend: Backend) throws -> EncryptedStore {
        guard let store = backend.store as? EncryptedStore else { throw RemoteError.local("This club is not encrypted (byteclub init --encrypted makes it so)") }
        return store
    }

    static func keyring(of backend: Backend) throws -> ClubKeyring {
        try store(of: backend).keyring
    }

    /// What `members revoke` (and `members remove` in an encrypted club) says once `name` is out
    /// of the keys.
    static func revoked(_ name: String, generation: Int) -> String {
        "Removed \(TerminalSafe.escape(name)): files written from now on use club key generation \(generation); `byteclub rekey` re-encrypts the older ones"
    }
}

extension RemoteStore {
    /// The store under an encrypted club's (or this one).
    var innermost: any RemoteStore { (self as? EncryptedStore)?.inner ?? self }
}

/// The app's door to an encrypted club (``ClubDoor``): the requests waiting, and admitting one
/// with the keyring of the store the app uses, which then knows the new member at once.
struct EncryptedClubDoor: ClubDoor {
    let store: EncryptedStore

    func waiting() async throws(RemoteError) -> [JoinRequestSummary] {
        do {
            return try await store.keyring.requests(store.inner).map { JoinRequestSummary(name: $0.name, fingerprint: $0.fingerprint) }
        } catch {
            throw Self.remote(error)
        }
    }

    func admit(_ name: String) async throws(RemoteError) {
        do {
            var keyring = store.keyring
            guard let request = try await keyring.requests(store.inner).first(where: { $0.name.lowercased() == name.lowercased() }) else {
                throw ClubCryptError.keys("\(name) is no longer waiting to join")
            }
            try await keyring.admit(request, store: store.inner, key: store.key)
            await store.refreshKeyring()
        } catch {
            throw Self.remote(error)
        }
    }

    static func remote(_ error: any Error) -> RemoteError {
        (error as? RemoteError) ?? .local((error as? ClubCryptError)?.description ?? "\(error)")
    }
}
