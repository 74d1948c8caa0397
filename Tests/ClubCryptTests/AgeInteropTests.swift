import ClubCrypt
import Crypto
import Foundation
import TestSupport
import XCTest

/// The age format against Debian's `age` 1.1.1, both ways, and bad files refused by name.
final class AgeInteropTests: XCTestCase {
    var folder: URL!

    override func setUpWithError() throws {
        folder = FileManager.default.temporaryDirectory.appendingPathComponent("age-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    }

    override func tearDownWithError() throws {
        try? FileManager.default.removeItem(at: folder)
    }

    /// Sizes around the 64 KiB chunk: empty, one byte, a full chunk, one past it, several.
    static let sizes = [0, 1, 65_535, 65_536, 65_537, 3 * 65_536, 200_001]

    func bytes(_ count: Int, seed: UInt8 = 7) -> Data {
        Data((0..<count).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ Int(seed)) })
    }

    func write(_ data: Data, _ name: String) throws -> URL {
        let url = folder.appendingPathComponent(name)
        try data.write(to: url)
        return url
    }

    func testWhatWeWriteAgeReadsWithTheSignatureStanzaInIt() throws {
        let identity = X25519Identity()
        let keyFile = try write(Data((identity.text + "\n").utf8), "key.txt")
        let signing = Curve25519.Signing.PrivateKey()
        for size in Self.sizes {
            let plain = bytes(size)
            let signature = WriteSignature(signing: "/notes/a.md", version: 3, contentHash: Data(SHA256.hash(data: plain)), with: signing)
            let file = try write(try Age.encrypt(plain, to: [identity.recipient], extra: [signature.stanza]), "out-\(size).age")
            let result = try ChildProcess.run(["age", "-d", "-i", keyFile.path, "-o", folder.appendingPathComponent("plain-\(size)").path, file.path])
            XCTAssertEqual(result.status, 0, "age -d of \(size) bytes: \(result.stderr)")
            // age makes no output file for an empty plaintext.
            let output = folder.appendingPathComponent("plain-\(size)")
            XCTAssertEqual((try? Data(contentsOf: output)) ?? Data(), plain, "\(size) bytes")
        }
    }

    func testWhatAgeWritesWeRead() throws {
        let identity = X25519Identity()
        for size in Self.sizes {
            let plain = bytes(size, seed: 3)
            let input = try write(plain, "in-\(size)")
            let output = folder.appendingPathComponent("in-\(size).age")
            let result = try ChildProcess.run(["age", "-r", identity.recipient.text, "-o", output.path, input.path])
            XCTAssertEqual(result.status, 0, result.stderr)
            let opened = try Age.decrypt(try Data(contentsOf: output), identities: [identity])
            XCTAssertEqual(opened.plaintext, plain, "\(size) bytes")
            XCTAssertNil(try WriteSignature(header: opened.header), "age signs nothing")
        }
    }

    func testKeysInTextFormAgreeWithAgeKeygen() throws {
        let keyFile = folder.appendingPathComponent("made.txt")
        XCTAssertEqual(try ChildProcess.run(["age-keygen", "-o", keyFile.path]).status, 0)
        let text = try String(contentsOf: keyFile, encoding: .utf8)
        let secret = try XCTUnwrap(text.split(separator: "\n").first { $0.hasPrefix("AGE-SECRET-KEY-1") })
        let public_ = try XCTUnwrap(text.split(separator: "\n").first { $0.hasPrefix("# public key: ") }).dropFirst("# public key: ".count)
        let identity = try X25519Identity(String(secret))
        XCTAssertEqual(identity.recipient.text, String(public_))
        XCTAssertEqual(identity.text, String(secret))
        let converted = try ChildProcess.run(["age-keygen", "-y", keyFile.path])
        XCTAssertEqual(converted.stdout.trimmingCharacters(in: .whitespacesAndNewlines), identity.recipient.text)
        let recipient = identity.recipient.text
        XCTAssertThrowsError(try X25519Recipient(recipient.dropLast() + (recipient.hasSuffix("q") ? "p" : "q")), "a bad checksum")
        XCTAssertThrowsError(try X25519Identity("AGE-SECRET-KEY-1NOTAKEY"))
    }

    func testAPassphraseOpensWhatItLockedAndNoOtherDoes() throws {
        let plain = Data("a passphrase-protected member key".utf8)
        let file = try Age.encrypt(plain, to: [ScryptRecipient(passphrase: "correct horse", workFactor: 10)])
        XCTAssertTrue(String(decoding: file.prefix(200), as: UTF8.self).contains("-> scrypt "))
        XCTAssertEqual(try Age.decrypt(file, identities: [ScryptIdentity(passphrase: "correct horse")]).plaintext, plain)
        XCTAssertThrowsError(try Age.decrypt(file, identities: [ScryptIdentity(passphrase: "wrong")])) {
            XCTAssertEqual($0 as? AgeError, .wrongPassphrase)
        }
        XCTAssertThrowsError(try Age.decrypt(file, identities: [ScryptIdentity(passphrase: "correct horse", maxWorkFactor: 9)])) {
            XCTAssertEqual($0 as? AgeError, .workFactorTooHigh(10, limit: 9))
        }
    }

    /// A tampered, cut or foreign file is refused with its reason; none is half-accepted.
    func testBadFilesAreRefusedByName() throws {
        let identity = X25519Identity()
        let plain = bytes(150_000)
        let good = try Age.encrypt(plain, to: [identity.recipient])
        let headerEnd = try AgeHeader.parse(good).length
        func refusal(_ file: Data) -> AgeError? {
            do {
                _ = try Age.decrypt(file, identities: [identity])
                return nil
            } catch {
                return error as? AgeError
            }
        }
        var payload = good
        payload[headerEnd + 100] ^= 1
        XCTAssertEqual(refusal(payload), .payloadTampered(chunk: 0))
        XCTAssertEqual(refusal(good.prefix(headerEnd + 16 + 65_552)), .truncated, "cut at a chunk's end")
        XCTAssertEqual(refusal(good.prefix(good.count - 5)), .payloadTampered(chunk: 2), "cut inside the last chunk")
        XCTAssertEqual(refusal(good.prefix(headerEnd - 10)), .truncated, "cut inside the header")
        XCTAssertEqual(refusal(good + Data([1, 2, 3])), .payloadTampered(chunk: 2), "bytes after the end")
        XCTAssertEqual(refusal(Data("hello".utf8)), .notAge)
        XCTAssertEqual(refusal(try Age.encrypt(plain, to: [X25519Identity().recipient])), .noMatchingIdentity)

        // A stanza added by someone without the file key breaks the header's MAC.
        var header = try AgeHeader.parse(good)
        header.stanzas.append(AgeStanza(type: "X25519", arguments: [Base64Raw.encode(Data(count: 32))], body: Data(count: 32)))
        let forged = AgeHeader.coveredBytes(header.stanzas) + Data((" " + Base64Raw.encode(header.mac) + "\n").utf8) + good.dropFirst(headerEnd)
        XCTAssertEqual(refusal(forged), .headerTampered)

        // A file for a stanza type we do not know.
        let strange = AgeHeader.coveredBytes([AgeStanza(type: "piv-p256", arguments: ["abc"], body: Data(count: 32))])
            + Data((" " + Base64Raw.encode(Data(count: 32)) + "\n").utf8) + Data(count: 40)
        XCTAssertEqual(refusal(strange), .unknownStanza("piv-p256"))
        XCTAssertTrue(AgeError.unknownStanza("piv-p256").description.contains("piv-p256"))
    }

    func testTheSignatureBindsThePathTheVersionAndTheContent() throws {
        let member = Curve25519.Signing.PrivateKey()
        let hash = Data(SHA256.hash(data: Data("text".utf8)))
        let signature = WriteSignature(signing: "/Notes/A.md", version: 5, contentHash: hash, with: member)
        XCTAssertTrue(signature.isValid(for: "/notes/a.md"), "paths compare in lower case")
        XCTAssertFalse(signature.isValid(for: "/notes/b.md"))
        var older = signature
        older.version = 4
        XCTAssertFalse(older.isValid(for: "/notes/a.md"))
        var other = signature
        other.contentHash = Data(SHA256.hash(data: Data("other".utf8)))
        XCTAssertFalse(other.isValid(for: "/notes/a.md"))
        let file = try Age.encrypt(Data("text".utf8), to: [X25519Identity().recipient], extra: [signature.stanza])
        XCTAssertEqual(try WriteSignature(header: try AgeHeader.parse(file)), signature)
    }

    func testNamesHideDeterministicallyAndRevealOnlyWithTheKey() throws {
        let names = NameCipher(key: SymmetricKey(size: .bits256))
        let hidden = try XCTUnwrap(names.hide("Meeting notes.md"))
        XCTAssertEqual(names.hide("Meeting notes.md"), hidden)
        XCTAssertEqual(hidden, hidden.lowercased())
        XCTAssertFalse(hidden.contains("eeting"))
        XCTAssertEqual(names.reveal(hidden), "Meeting notes.md")
        XCTAssertNil(NameCipher(key: SymmetricKey(size: .bits256)).reveal(hidden))
        XCTAssertNil(names.reveal("welcome.md"))
        let longest = String(repeating: "é", count: NameCipher.maxNameBytes / 2)
        XCTAssertLessThanOrEqual(try XCTUnwrap(names.hide(longest)).utf8.count, 255)
        XCTAssertNil(names.hide(longest + "ab"), "past the limit")
    }

    /// A file decrypted where it lies (a download's), a window of chunks at a time: sizes
    /// around the chunk and the window, from Debian's age; a changed or cut file refused.
    func testAFileDecryptedInPlaceIsItsPlaintextAndABadOneIsRefused() throws {
        let identity = X25519Identity()
        let windowBytes = 64 * 65_536
        for size in [0, 1, 65_536, 65_537, windowBytes - 1, windowBytes, windowBytes + 1, 2 * windowBytes + 70_000] {
            let plain = bytes(size, seed: 5)
            let input = try write(plain, "in-\(size)")
            let sealed = folder.appendingPathComponent("sealed-\(size)")
            XCTAssertEqual(try ChildProcess.run(["age", "-r", identity.recipient.text, "-o", sealed.path, input.path]).status, 0)
            var hashed = Data()
            let (_, opened) = try Age.decryptInPlace(sealed, identities: [identity], check: { _ in }, hash: { hashed.append($0) })
            XCTAssertEqual(opened, Int64(size))
            XCTAssertEqual(try Data(contentsOf: sealed), plain, "\(size) bytes")
            XCTAssertEqual(hashed, plain, "\(size) bytes hashed in order")
        }
        let plain = bytes(2 * windowBytes + 70_000)
        let good = try Age.encrypt(plain, to: [identity.recipient])
        let headerEnd = try AgeHeader.parse(good).length
        func refusal(_ data: Data) throws -> AgeError? {
            let file = try write(data, "bad-\(UUID().uuidString)")
            do {
                _ = try Age.decryptInPlace(file, identities: [identity], check: { _ in }, hash: { _ in })
                return nil
            } catch {
                return error as? AgeError
            }
        }
        var changed = good
        changed[headerEnd + 16 + 70 * 65_552 + 9] ^= 1
        XCTAssertEqual(try refusal(changed), .payloadTampered(chunk: 70))
        XCTAssertEqual(try refusal(good.prefix(headerEnd + 16 + 64 * 65_552)), .truncated, "cut at a window's end")
        XCTAssertEqual(try refusal(good.prefix(good.count - 1)), .payloadTampered(chunk: 129))
        XCTAssertEqual(try refusal(good.prefix(headerEnd + 10)), .truncated)
        XCTAssertEqual(try refusal(try Age.encrypt(plain, to: [X25519Identity().recipient])), .noMatchingIdentity)
    }
}
