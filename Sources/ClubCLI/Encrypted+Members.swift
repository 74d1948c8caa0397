import ArgumentParser
import ClubCrypt
import ClubKit
import DropboxWire
import Foundation
import Remote

/// The members of an encrypted club, by their keys: who is waiting, admitting, removing.
extension MembersCommand {
    struct Admit: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "admit",
            abstract: "Admit someone waiting to join an encrypted club (without NAME: list who is waiting).",
            discussion: "Compare the fingerprint with the one their byteclub showed them before you admit them. One small write: nothing of the club is encrypted again.")
        @Argument(help: "Who to admit, as their request names them.") var name: String?
        @OptionGroup var backend: BackendOptions

        func run() async throws {
            let name = name
            try await runRemote(backend) { backend in
                guard let name else {
                    let requests = try await EncryptedClubs.waiting(on: backend)
                    if requests.isEmpty { print("No one is waiting to join") }
                    for request in requests { print("\(TerminalSafe.escape(request.name)) wants to join (fingerprint \(request.fingerprint))") }
                    return
                }
                let request = try await EncryptedClubs.admit(name, on: backend)
                print("Admitted \(TerminalSafe.escape(request.name)) (fingerprint \(request.fingerprint))")
            }
        }
    }

    struct Revoke: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "revoke",
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
                let generation = try await EncryptedClubs.revoke(name, on: backend)
                print(EncryptedClubs.revoked(name, generation: generation))
            }
        }
    }

    struct Keys: AsyncParsableCommand {
        static let configuration = CommandConfiguration(commandName: "keys", abstract: "An encrypted club's members with their fingerprints, and its recipient for `age -r`.")
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
    /// What `members revoke` (and `members remove` in an encrypted club) says once `name` is out
    /// of the keys.
    static func revoked(_ name: String, generation: Int) -> String {
        "Removed \(TerminalSafe.escape(name)): files written from now on use club key generation \(generation); `byteclub rekey` re-encrypts the older ones"
    }
}
