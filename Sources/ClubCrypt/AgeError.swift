import Foundation

/// Why an age file could not be read or written, in words a user can act on.
public enum AgeError: Error, Equatable, Sendable, CustomStringConvertible {
    /// The bytes do not start with `age-encryption.org/v1`.
    case notAge
    /// The header breaks the format (what is wrong is said).
    case malformedHeader(String)
    /// The header's MAC does not match: changed by someone who does not hold the file key.
    case headerTampered
    /// A stanza of a type this reader does not take (only X25519, scrypt and byteclub's signature).
    case unknownStanza(String)
    /// None of the identities given opens any stanza.
    case noMatchingIdentity
    /// A passphrase-protected file (or key) and a passphrase that does not open it.
    case wrongPassphrase
    /// An scrypt work factor past what this reader allows (2^limit).
    case workFactorTooHigh(Int, limit: Int)
    /// The payload ends early, before its last chunk.
    case truncated
    /// A payload chunk does not authenticate (changed, reordered or cut).
    case payloadTampered(chunk: Int)
    /// Bytes after the last chunk.
    case trailingData
    /// A key in text form that is not one (a recipient, an identity).
    case badKey(String)
    /// Reading or writing a file failed.
    case io(String)

    public var description: String {
        switch self {
        case .notAge: "not an age file (no age-encryption.org/v1 header)"
        case .malformedHeader(let what): "a malformed age header: \(what)"
        case .headerTampered: "the age header was changed (its MAC does not match)"
        case .unknownStanza(let type): "an age stanza of a type byteclub does not take: \(type)"
        case .noMatchingIdentity: "no identity of yours opens this age file"
        case .wrongPassphrase: "wrong passphrase"
        case .workFactorTooHigh(let factor, let limit): "the scrypt work factor 2^\(factor) is past the limit 2^\(limit)"
        case .truncated: "the age file is truncated"
        case .payloadTampered(let chunk): "the age file was changed (chunk \(chunk) does not authenticate)"
        case .trailingData: "the age file has bytes after its last chunk"
        case .badKey(let what): "not a valid key: \(what)"
        case .io(let what): what
        }
    }
}
