import ClubCrypt
import Crypto
import Foundation
import Remote

/// Who is in an encrypted club: each member's name, age recipient and signing key, the members
/// removed (and when), and the club key's present generation. Kept on the server as
/// `.clubkeys/roster.age`, encrypted to every member and signed by the member who wrote it; a
/// reader takes a new version only from a member of the version it trusts already.
public struct ClubRoster: Codable, Sendable, Equatable {
    public struct Member: Codable, Sendable, Equatable {
        public var name: String
        public var recipient: String
        /// The Ed25519 public key, base64.
        public var signing: String

        public var fingerprint: String { MemberKeys.fingerprint(recipient: recipient, signing: signing) }
    }

    public struct Removed: Codable, Sendable, Equatable {
        public var name: String
        public var signing: String
        /// Milliseconds since 1970 when the member was removed: their writes of a later version are refused.
        public var removedAt: UInt64
    }

    public var version: UInt64
    /// 1 for the club's first key; one more at each removal.
    public var generation: Int
    /// The present club key's recipient (`age1…`): what `age -r` encrypts a new file to.
    public var recipient: String
    public var members: [Member]
    public var removed: [Removed]

    public func member(signing key: Data) -> Member? {
        let text = key.base64EncodedString()
        return members.first { $0.signing == text }
    }

    public func member(named name: String) -> Member? { members.first { $0.name.lowercased() == name.lowercased() } }

    func removedMember(signing key: Data) -> Removed? {
        let text = key.base64EncodedString()
        return removed.first { $0.signing == text }
    }
}

/// The club's secrets, as each member's `.clubkeys/keys/FINGERPRINT.age` holds them: every
/// generation of the club key (older files stay readable) and the key that hides names.
public struct ClubSecrets: Codable, Sendable, Equatable {
    /// `AGE-SECRET-KEY-1…` lines, oldest first; the last is the present one.
    public var generations: [String]
    /// 32 bytes, base64.
    public var names: String

    public static func new() -> ClubSecrets {
        ClubSecrets(generations: [X25519Identity().text], names: SymmetricKey(size: .bits256).withUnsafeBytes { Data($0) }.base64EncodedString())
    }

    public var identities: [X25519Identity] { generations.compactMap { try? X25519Identity($0) } }

    /// As the keys file holds it: an age identity file (`age -d -i` takes it as it is), the
    /// club key's generations oldest first, and the names key on a comment line.
    public var text: String {
        "# byteclub club keys: age identities, oldest first; the last is the present one\n"
            + generations.map { $0 + "\n" }.joined() + "# byteclub-names: \(names)\n"
    }

    public init(generations: [String], names: String) {
        self.generations = generations
        self.names = names
    }

    public init(text: String) throws {
        var generations: [String] = []
        var names: String?
        for line in text.split(separator: "\n").map({ $0.trimmingCharacters(in: .whitespaces) }) {
            if line.hasPrefix("AGE-SECRET-KEY-1") {
                _ = try X25519Identity(line)
                generations.append(line)
            } else if line.hasPrefix("# byteclub-names: ") {
                names = String(line.dropFirst("# byteclub-names: ".count))
            }
        }
        guard !generations.isEmpty, let names, Data(base64Encoded: names)?.count == 32 else {
            throw ClubCryptError.keys("a club keys file without its keys")
        }
        self.init(generations: generations, names: names)
    }
    public var nameCipher: NameCipher { NameCipher(key: SymmetricKey(data: Data(base64Encoded: names) ?? Data())) }
}

/// Where an encrypted club keeps its keys, beside the club's files: a folder whose name never
/// decodes as a hidden one, so listings pass over it.
public struct ClubKeyFiles: Sendable {
    public static let folderName = ".clubkeys"
    public let folder: String

    public init(clubFolder: String) { folder = clubFolder + "/" + Self.folderName }

    /// Plain JSON: that the club is encrypted, and its present recipient.
    public var marker: String { folder + "/club.json" }
    public var roster: String { folder + "/roster.age" }
    /// Every version of the roster, as it was published.
    public func roster(version: UInt64) -> String { folder + "/rosters/\(version).age" }
    public var requests: String { folder + "/requests" }
    public func keys(for recipient: X25519Recipient) -> String { folder + "/keys/" + MemberKeys.fileName(of: recipient) + ".age" }
    public func request(for recipient: X25519Recipient) -> String { requests + "/" + MemberKeys.fileName(of: recipient) + ".json" }

    /// The encrypted clubs of a folder served by `byteclub serve --root DIR`, as club paths
    /// (`/byteclub`): the folders holding `.clubkeys/club.json` on disk, up to three folders
    /// deep, the server's own `.byteclub` (and every hidden folder) passed over.
    public static func encryptedClubs(servedFrom root: URL) -> [String] {
        let manager = FileManager.default
        var found: [String] = []
        var pending: [(folder: URL, path: String, depth: Int)] = [(root, "", 0)]
        while let next = pending.popLast() {
            guard let names = try? manager.contentsOfDirectory(atPath: next.folder.path) else { continue }
            for name in names where !name.hasPrefix(".") {
                let child = next.folder.appendingPathComponent(name)
                var isFolder: ObjCBool = false
                guard manager.fileExists(atPath: child.path, isDirectory: &isFolder), isFolder.boolValue else { continue }
                let path = next.path + "/" + name
                if manager.fileExists(atPath: child.appendingPathComponent(folderName).appendingPathComponent("club.json").path) {
                    found.append(path)
                } else if next.depth < 2 {
                    pending.append((child, path, next.depth + 1))
                }
            }
        }
        return found.sorted()
    }

    /// The path a key file is signed for (relative, so a club moved to another folder still verifies).
    static func signedPath(_ path: String) -> String {
        guard let range = path.range(of: "/" + folderName + "/", options: .caseInsensitive) else { return path }
        return String(path[range.lowerBound...])
    }
}

/// Why an encrypted club refused a file, a key or a member list, in one line naming the file.
public enum ClubCryptError: Error, CustomStringConvertible, Equatable {
    case refused(path: String, reason: String)
    case notAdmitted(name: String, fingerprint: String)
    case removed(name: String)
    case keys(String)

    public var description: String {
        switch self {
        case .refused(let path, let reason): "Refused \(path): \(reason)"
        case .notAdmitted(let name, let fingerprint):
            "This club is encrypted and you are not a member yet: asked to join as \(name) (fingerprint \(fingerprint)); a member admits you with `byteclub members admit \(name)`"
        case .removed(let name): "You (\(name)) were removed from this encrypted club"
        case .keys(let why): why
        }
    }

    public var remote: RemoteError { .local(description) }
}

/// Sealing and opening the files of an encrypted club: age to the club's present recipient, with
/// the writer's signature over the path, the version and the plaintext's SHA-256.
public enum ClubSeal {
    /// An age file of `plaintext` for `recipients`, signed by `me` for `path` at `version`.
    public static func seal(_ plaintext: Data, path: String, version: UInt64, to recipients: [any AgeRecipient], by me: MemberKeys) throws(AgeError) -> Data {
        let signature = WriteSignature(signing: path, version: version, contentHash: plaintext.sha256, with: me.signingKey)
        return try Age.encrypt(plaintext, to: recipients, extra: [signature.stanza])
    }

    /// The plaintext of a file signed for `path` by a member of `roster`. `minimumVersion`: the
    /// newest version of this path seen before (a file older than that is a rollback).
    public static func open(_ file: Data, path: String, shown: String? = nil, identities: [any AgeIdentity], roster: ClubRoster,
                            minimumVersion: UInt64 = 0) throws(ClubCryptError) -> (plaintext: Data, signature: WriteSignature, signer: String) {
        do {
            let (plaintext, header) = try Age.decrypt(file, identities: identities)
            let (signature, signer) = try check(header, path: path, shown: shown, roster: roster, minimumVersion: minimumVersion)
            guard signature.contentHash == plaintext.sha256 else {
                throw ClubCryptError.refused(path: shown ?? path, reason: "its content does not match its signature")
            }
            return (plaintext, signature, signer)
        } catch let error as ClubCryptError {
            throw error
        } catch {
            throw .refused(path: shown ?? path, reason: (error as? AgeError)?.description ?? "\(error)")
        }
    }

    /// The header's signature, checked against the path, the roster and the version seen.
    /// `path` is what the signature must name; `shown`, how a refusal names the file.
    public static func check(_ header: AgeHeader, path: String, shown: String? = nil, roster: ClubRoster, minimumVersion: UInt64) throws -> (WriteSignature, String) {
        let named = shown ?? path
        guard let signature = try WriteSignature(header: header) else {
            throw ClubCryptError.refused(path: named, reason: "it carries no member's signature (written by the server, or with `age -r` and not yet signed with `byteclub put`)")
        }
        let signer: String
        if let member = roster.member(signing: signature.signer) {
            signer = member.name
        } else if let gone = roster.removedMember(signing: signature.signer) {
            guard signature.version <= gone.removedAt else {
                throw ClubCryptError.refused(path: named, reason: "written by \(gone.name) after they were removed from the club")
            }
            signer = gone.name
        } else {
            throw ClubCryptError.refused(path: named, reason: "signed by someone who is not a member of the club")
        }
        guard signature.isValid(for: path) else {
            throw ClubCryptError.refused(path: named, reason: "its signature is for another file: the server swapped or moved it")
        }
        guard signature.version >= minimumVersion else {
            throw ClubCryptError.refused(path: named, reason: "the server served version \(signature.version), older than version \(minimumVersion) seen before (a rollback)")
        }
        return (signature, signer)
    }

    /// A new version for a write: past every version of the path seen, and at least the time in
    /// milliseconds, so members who have not seen each other's writes still move forward.
    public static func nextVersion(after seen: UInt64?) -> UInt64 {
        max((seen ?? 0) + 1, UInt64(Date().timeIntervalSince1970 * 1000))
    }
}
