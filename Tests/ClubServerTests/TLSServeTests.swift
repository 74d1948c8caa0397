@testable import ClubServer
import Foundation
import TestSupport
import XCTest

/// `byteclub serve` speaks HTTPS by default with a certificate it makes and keeps: curl and the
/// official Python SDK reach it with that certificate as their only CA, and a reader's token
/// reads over it while every write is refused.
final class TLSServeTests: XCTestCase {
    private var base: URL!

    override func setUpWithError() throws {
        base = FileManager.default.temporaryDirectory.appendingPathComponent("tls-serve-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: base, withIntermediateDirectories: true)
    }

    override func tearDownWithError() throws {
        try? FileManager.default.removeItem(at: base)
    }

    private var repository: URL {
        URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    }

    func testCurlAndThePythonSDKTrustTheServersOwnCertificateAsTheirCA() throws {
        let root = base.appendingPathComponent("club")
        let token = "tls-\(UUID().uuidString)"
        let server = try TestSupport.ServeProcess(root: root, token: token, tls: true)
        XCTAssertTrue(server.url.hasPrefix("https://127.0.0.1:"), server.url)
        let certificate = root.appendingPathComponent(".byteclub/tls/cert.pem")
        for file in ["cert.pem", "key.pem"] {
            let mode = try FileManager.default.attributesOfItem(atPath: root.appendingPathComponent(".byteclub/tls/" + file).path)[.posixPermissions] as? Int
            XCTAssertEqual(mode, 0o600, file)
        }
        let pin = try XCTUnwrap(server.pin)
        let certificateText = try String(contentsOf: certificate, encoding: .utf8)
        XCTAssertEqual(pin, try ServerIdentity.pin(ofCertificatePEM: certificateText))

        let call = ["curl", "-sS", "-X", "POST", "-H", "Authorization: Bearer \(token)", "-H", "Content-Type: application/json", "--data", "null"]
        let account = server.url + "/2/users/get_current_account"
        let trusted = try ChildProcess.run(call + ["--cacert", certificate.path, account])
        XCTAssertEqual(trusted.status, 0, trusted.stderr)
        XCTAssertTrue(trusted.stdout.contains(#""display_name":"club""#), trusted.stdout)
        let pinned = try ChildProcess.run(call + ["-k", "--pinnedpubkey", pin, account])
        XCTAssertEqual(pinned.status, 0, "curl's own pin check agrees with the printed fingerprint: \(pinned.stderr)")
        let wrongPin = try ChildProcess.run(call + ["-k", "--pinnedpubkey", "sha256//" + Data(repeating: 1, count: 32).base64EncodedString(), account])
        XCTAssertEqual(wrongPin.status, 90, wrongPin.stderr)
        let systemCAs = try ChildProcess.run(call + [account])
        XCTAssertEqual(systemCAs.status, 60, "the self-signed certificate is not trusted by the system's CAs: \(systemCAs.stderr)")
        let plain = try ChildProcess.run(call + ["http://127.0.0.1:\(server.port)/2/users/get_current_account"])
        XCTAssertFalse(plain.stdout.contains("display_name"), "no answer over plain HTTP: \(plain.stdout)")

        let sdk = try PythonScript.run(repository.appendingPathComponent("scripts/sdk-tls.py"),
                                       arguments: ["--url", server.url, "--token=\(token)", "--ca", certificate.path], within: 120)
        XCTAssertEqual(sdk.status, 0, sdk.status == 2 ? "the Dropbox SDK is missing: run `make deps`\n\(sdk.output)" : sdk.output)
        XCTAssertTrue(sdk.output.contains("sdk-tls: 0 failed"), sdk.output)
    }

    func testAReaderThroughTheSDKReadsAndSearchesAndEveryWriteIsRefused() throws {
        let root = base.appendingPathComponent("club")
        try FileManager.default.createDirectory(at: root.appendingPathComponent("byteclub"), withIntermediateDirectories: true)
        try Data("over tls\n".utf8).write(to: root.appendingPathComponent("byteclub/tls-note.md"))
        let registry = MemberRegistry(root: root.path)
        let invite = try registry.invite("rita", role: .reader, hours: 1, server: URL(string: "https://127.0.0.1:1")!, pin: nil, actor: "test")
        let (token, _) = try registry.redeem(secret: invite.secret)
        let server = try TestSupport.ServeProcess(root: root, token: nil, tls: true)
        let certificate = root.appendingPathComponent(".byteclub/tls/cert.pem")
        let before = try Data(contentsOf: root.appendingPathComponent("byteclub/tls-note.md"))
        let sdk = try PythonScript.run(repository.appendingPathComponent("scripts/sdk-tls.py"),
                                       arguments: ["--url", server.url, "--token=\(token)", "--ca", certificate.path, "--reader"], within: 120)
        XCTAssertEqual(sdk.status, 0, sdk.status == 2 ? "the Dropbox SDK is missing: run `make deps`\n\(sdk.output)" : sdk.output)
        XCTAssertTrue(sdk.output.contains("sdk-tls: 0 failed"), sdk.output)
        XCTAssertGreaterThanOrEqual(sdk.output.components(separatedBy: " refused").count - 1, 6, sdk.output)
        XCTAssertEqual(try Data(contentsOf: root.appendingPathComponent("byteclub/tls-note.md")), before)
        let names = try FileManager.default.contentsOfDirectory(atPath: root.appendingPathComponent("byteclub").path)
        XCTAssertEqual(names, ["tls-note.md"], "nothing a reader sent landed on disk")
    }
}
