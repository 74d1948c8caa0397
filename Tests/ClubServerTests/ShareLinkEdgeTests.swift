import Foundation
import TestSupport
import XCTest

/// A share link's token where a careless server would let it slip: the access log, whatever
/// spelling of the path carried it, and `revoke_shared_link` given a URL of another server.
final class ShareLinkEdgeTests: XCTestCase {
    var root: URL!

    override func setUpWithError() throws {
        root = FileManager.default.temporaryDirectory.appendingPathComponent("share-edge-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: root.appendingPathComponent("byteclub"), withIntermediateDirectories: true)
        try Data("a shared note\n".utf8).write(to: root.appendingPathComponent("byteclub/a.txt"))
    }

    override func tearDown() {
        try? FileManager.default.removeItem(at: root)
    }

    func share(_ server: ServeChild) async throws -> String {
        let reply = try await server.rpc("2/sharing/create_shared_link_with_settings", #"{"path":"/byteclub/a.txt","settings":{}}"#)
        XCTAssertEqual(reply.status, 200, reply.text)
        return try XCTUnwrap(reply.json["url"] as? String, reply.text)
    }

    func testTheAccessLogMasksTheTokenInEverySpellingOfThePath() async throws {
        let logURL = root.deletingLastPathComponent().appendingPathComponent("serve-\(UUID().uuidString).log")
        XCTAssertTrue(FileManager.default.createFile(atPath: logURL.path, contents: nil))
        addTeardownBlock { try? FileManager.default.removeItem(at: logURL) }
        let log = try FileHandle(forWritingTo: logURL)
        let server = try ServeChild(root: root, log: log)
        let url = try await share(server)
        let token = String(url.split(separator: "/").dropLast().last ?? "")
        XCTAssertEqual(token.count, 24, url)
        let base = "http://127.0.0.1:\(server.port)"
        let encodedFirst = "%" + String(format: "%02X", token.utf8.first!) + token.dropFirst()
        let spellings = ["/s/\(token)/a.txt", "/S/\(token)/a.txt", "//s/\(token)/a.txt", "/./s/\(token)/a.txt", "/%73/\(token)/a.txt",
                         "/s/\(encodedFirst)/a.txt", "/other/\(token)"]
        for path in spellings {
            _ = try Curl.get(base + path, ["--path-as-is"])
        }
        // Every request logged (the last one's line says where the log ends), and no token.
        let deadline = Date().addingTimeInterval(10)
        var text = ""
        while Date() < deadline {
            text = String(decoding: (try? Data(contentsOf: logURL)) ?? Data(), as: UTF8.self)
            if text.components(separatedBy: "GET ").count > spellings.count { break }
            usleep(20_000)
        }
        XCTAssertGreaterThan(text.components(separatedBy: "GET ").count, spellings.count, "not every request reached the log:\n\(text)")
        XCTAssertFalse(text.contains(token), "the log shows a link's token:\n\(text)")
        XCTAssertFalse(text.contains(String(token.dropFirst())), "the log shows most of a link's token:\n\(text)")
    }

    func testRevokeComparesTheWholeURLWithTheServers() async throws {
        let server = try ServeChild(root: root)
        let url = try await share(server)
        let path = String(url[url.range(of: "/s/")!.lowerBound...])
        // The same token under another host, port or scheme is no link of ours.
        for other in ["http://evil.example:\(server.port)", "http://127.0.0.1:\(server.port + 1)", "https://127.0.0.1:\(server.port)",
                      "http://127.0.0.1:\(server.port)/prefix"] {
            let reply = try await server.rpc("2/sharing/revoke_shared_link", #"{"url":"\#(other + path)"}"#)
            XCTAssertEqual(reply.status, 409, "\(other): \(reply.text)")
            XCTAssertEqual(reply.summary, "shared_link_not_found", "\(other): \(reply.text)")
        }
        XCTAssertEqual(try Curl.get(url).status, 200, "a foreign URL revoked the link")
        // The host in another case is the same host.
        let upper = url.replacingOccurrences(of: "http://", with: "HTTP://")
        let revoked = try await server.rpc("2/sharing/revoke_shared_link", #"{"url":"\#(upper)"}"#)
        XCTAssertEqual(revoked.status, 200, revoked.text)
        XCTAssertEqual(try Curl.get(url).status, 404)
    }
}
