import ArgumentParser
import ClubCrypt
import ClubKit
import DropboxWire
import Foundation
import Logging
import Remote

/// The command line's progress for the long encrypted-club runs (``EncryptedClubs``).
enum EncryptionProgress {
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
        commandName: "init",
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
        let plain = try await options.connect(plain: true)
        defer { Task { await plain.close() } }
        do {
            let counter = EncryptionProgress.Counter("Encrypting")
            let encryption = try await EncryptedClubs.makeEncrypted(plain, name: name, resuming: {
                say("This club is encrypted already: finishing what is left to encrypt")
            }, report: counter.report)
            counter.finish()
            for refusal in encryption.skipped { say("not encrypted: \(refusal)") }
            let done = encryption.done
            print("Encrypted club: \(done) file\(done == 1 ? "" : "s") encrypted; you are \(TerminalSafe.escape(encryption.myName)), fingerprint \(encryption.fingerprint)")
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
        commandName: "rekey",
        abstract: "Re-encrypt an encrypted club's older files to its present key (after a member was removed).",
        discussion: "Resumable: run it again after a cut and it skips the files done.")
    @OptionGroup var backend: BackendOptions

    func run() async throws {
        try await runRemote(backend) { backend in
            guard let store = backend.encrypted else { throw RemoteError.local("This club is not encrypted: nothing to rekey") }
            let counter = EncryptionProgress.Counter("Re-encrypting")
            let (done, current) = try await EncryptedClubs.rekey(store, report: counter.report)
            counter.finish()
            print("Re-encrypted \(done) file\(done == 1 ? "" : "s"); \(current) already had the present key")
        }
    }
}
