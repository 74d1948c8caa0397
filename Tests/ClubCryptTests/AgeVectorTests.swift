import ClubCrypt
import Crypto
import Foundation
import XCTest

/// C2SP's age test vectors (CCTV, age/testdata) against our reader: every file in AgeVectors/
/// (where they come from, and which were left out, is in its README.md). All mismatches are
/// collected and reported together, so one run shows every vector we get wrong.
final class AgeVectorTests: XCTestCase {
    static let folder = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("AgeVectors")
    /// 73 files were copied; a few fewer is tolerated, a missing or emptied folder is not.
    static let minimumRun = 90
    /// Passphrase vectors use work factor 10; 23 must be refused (age's own limit is 22).
    static let maxWorkFactor = 22

    struct Vector {
        var name: String
        var expect = ""
        var payload: String?
        var identities: [String] = []
        var passphrases: [String] = []
        var file = Data()
        /// Keys this test does not know, or values it cannot handle (armor, compression).
        var unusable: [String] = []
    }

    static func vector(named name: String, _ data: Data) -> Vector {
        var vector = Vector(name: name)
        guard let blank = data.range(of: Data([0x0A, 0x0A])) else {
            vector.unusable.append("no empty line after the vector's header")
            return vector
        }
        vector.file = Data(data[blank.upperBound...])
        let text = String(decoding: data[data.startIndex..<blank.lowerBound], as: UTF8.self)
        for line in text.split(separator: "\n", omittingEmptySubsequences: false) {
            guard let colon = line.range(of: ": ") else {
                vector.unusable.append("header line without `: `: \(line)")
                continue
            }
            let key = String(line[..<colon.lowerBound]), value = String(line[colon.upperBound...])
            switch key {
            case "expect": vector.expect = value
            case "payload": vector.payload = value
            case "identity": vector.identities.append(value)
            case "passphrase": vector.passphrases.append(value)
            case "file key", "comment": break
            case "armored": if value != "no" { vector.unusable.append("armored: \(value)") }
            case "compressed": vector.unusable.append("compressed: \(value)")
            default: vector.unusable.append("unknown key \(key)")
            }
        }
        return vector
    }

    static func hex(_ data: some Sequence<UInt8>) -> String {
        let digits = Array("0123456789abcdef")
        return String(data.flatMap { [digits[Int($0 >> 4)], digits[Int($0 & 0x0F)]] })
    }

    static func sha256(_ data: Data) -> String { hex(SHA256.hash(data: data)) }

    static func name(_ error: AgeError) -> String {
        switch error {
        case .notAge: ".notAge"
        case .malformedHeader(let what): ".malformedHeader(\(what))"
        case .headerTampered: ".headerTampered"
        case .unknownStanza(let type): ".unknownStanza(\(type))"
        case .noMatchingIdentity: ".noMatchingIdentity"
        case .wrongPassphrase: ".wrongPassphrase"
        case .workFactorTooHigh(let factor, let limit): ".workFactorTooHigh(\(factor), limit: \(limit))"
        case .truncated: ".truncated"
        case .payloadTampered(let chunk): ".payloadTampered(chunk: \(chunk))"
        case .trailingData: ".trailingData"
        case .badKey(let what): ".badKey(\(what))"
        case .io(let what): ".io(\(what))"
        }
    }

    /// Decrypts through the streaming API, so what was released before a failure is seen too
    /// (the vectors' `payload` covers that plaintext for `payload failure`).
    static func decrypt(_ file: Data, identities: [any AgeIdentity]) -> (result: Result<AgeHeader, AgeError>, released: Data) {
        var released = Data()
        var offset = file.startIndex
        let result = Result { () throws(AgeError) -> AgeHeader in
            try Age.decrypt(identities: identities, read: { count in
                let end = min(offset + count, file.endIndex)
                defer { offset = end }
                return file[offset..<end]
            }, write: { released.append($0) })
        }
        return (result, released)
    }

    /// The plaintext ``AgeStreamOpener`` gives when `file` arrives `piece` bytes at a time, or
    /// nil when it refuses the file.
    static func streamed(_ file: Data, identities: [any AgeIdentity], piece: Int) -> Data? {
        var opener = AgeStreamOpener()
        var out = Data()
        var at = file.startIndex
        do {
            while at < file.endIndex {
                let end = min(at + piece, file.endIndex)
                for chunk in try opener.take(file[at..<end], identities: identities, check: { _, _ in }) { out.append(chunk) }
                at = end
            }
            out.append(try opener.finish())
            return out
        } catch {
            return nil
        }
    }

    /// Whether every stanza of the file is of a type we do not take (then `.unknownStanza`
    /// is our way of saying "no match").
    static func onlyUnknownStanzas(_ file: Data) -> Bool {
        guard let header = try? AgeHeader.parse(file) else { return false }
        return !header.stanzas.isEmpty && header.stanzas.allSatisfy { !Age.knownStanzas.contains($0.type) }
    }

    /// What is wrong with our result for `vector`, or nil when it is what the vector expects.
    /// `outcome` is what happened, for the record.
    static func check(_ vector: Vector, outcome: inout String) -> String? {
        var identities: [any AgeIdentity] = []
        for text in vector.identities {
            do {
                identities.append(try X25519Identity(text))
            } catch {
                return "the identity \(text.prefix(20))… was refused: \(name(error))"
            }
        }
        identities += vector.passphrases.map { ScryptIdentity(passphrase: $0, maxWorkFactor: maxWorkFactor) }

        let (result, released) = decrypt(vector.file, identities: identities)
        let error: AgeError?
        switch result {
        case .success: error = nil
        case .failure(let failure): error = failure
        }
        outcome = error.map(name) ?? "decrypted \(released.count) bytes"
        // A download opens the file as it arrives (issue 56): in any pieces, the same answer.
        for piece in [1, 65_553] {
            guard let streamed = streamed(vector.file, identities: identities, piece: piece) else {
                if error == nil { return "the stream in pieces of \(piece) bytes refused what the reader opened" }
                continue
            }
            if error != nil { return "the stream in pieces of \(piece) bytes opened what the reader refused (\(outcome))" }
            if streamed != released { return "the stream in pieces of \(piece) bytes gave other plaintext" }
        }

        switch vector.expect {
        case "success":
            guard error == nil else { return "expected success, threw \(outcome)" }
            guard sha256(released) == vector.payload else { return "decrypted, but the plaintext's SHA-256 is \(sha256(released))" }
            // The whole-file API must agree with the streaming one.
            do {
                let whole = try Age.decrypt(vector.file, identities: identities)
                guard whole.plaintext == released else { return "Age.decrypt(_:identities:) returned other plaintext than the stream" }
            } catch {
                return "the stream decrypted, but Age.decrypt(_:identities:) threw \(name(error))"
            }
            return nil
        case "no match":
            switch error {
            case .noMatchingIdentity?: return nil
            case .wrongPassphrase? where vector.identities.isEmpty && !vector.passphrases.isEmpty: return nil
            case .unknownStanza? where onlyUnknownStanzas(vector.file): return nil
            default: return "expected no match, got \(outcome)"
            }
        case "HMAC failure":
            return error == .headerTampered ? nil : "expected an HMAC failure (.headerTampered), got \(outcome)"
        case "header failure":
            switch error {
            case .malformedHeader?, .notAge?, .truncated?, .unknownStanza?, .workFactorTooHigh?, .badKey?, .noMatchingIdentity?:
                guard released.isEmpty else { return "threw \(outcome) as expected, but only after releasing \(released.count) bytes" }
                return nil
            default: return "expected a header failure, got \(outcome)"
            }
        case "payload failure":
            switch error {
            case .payloadTampered?, .truncated?, .trailingData?:
                guard sha256(released) == vector.payload else {
                    return "threw \(outcome) as expected, but the \(released.count) bytes released before it hash to \(sha256(released))"
                }
                return nil
            default: return "expected a payload failure, got \(outcome)"
            }
        default:
            return "unknown expect: \(vector.expect)"
        }
    }

    func testEveryVector() throws {
        let names = try FileManager.default.contentsOfDirectory(atPath: Self.folder.path)
            .filter { !$0.hasPrefix(".") && $0 != "README.md" }
            .sorted()
        var run = 0
        var mismatches: [String] = []
        var outcomes: [String] = []
        for name in names {
            let data = try Data(contentsOf: Self.folder.appendingPathComponent(name))
            let vector = Self.vector(named: name, data)
            guard vector.unusable.isEmpty else {
                mismatches.append("\(name): cannot be run here (\(vector.unusable.joined(separator: "; ")))")
                continue
            }
            run += 1
            var outcome = ""
            if let problem = Self.check(vector, outcome: &outcome) { mismatches.append("\(name): \(problem)") }
            outcomes.append("\(name) [\(vector.expect)] → \(outcome)")
        }
        // Which error each refusal came out as (header failures may be any of several).
        print("age vectors run: \(run)\n  " + outcomes.joined(separator: "\n  "))
        XCTAssertGreaterThanOrEqual(run, Self.minimumRun, "only \(run) age vectors ran from \(Self.folder.path)")
        XCTAssert(mismatches.isEmpty, "\(mismatches.count) of \(run) age vectors mismatched:\n" + mismatches.joined(separator: "\n"))
    }
}
