import Foundation
import TestSupport
import XCTest

/// Share links (issue 25 §2) against a real `byteclub serve` process, with `curl` as the
/// stranger: no token, only the URL. A link gives its one file, byte for byte and by ranges,
/// and nothing else; revoking, expiry and deleting the file end it at once.
final class ShareLinkTests: XCTestCase {
    var root: URL!

    override func setUpWithError() throws {
        root = FileManager.default.temporaryDirectory.appendingPathComponent("share-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: root.appendingPathComponent("byteclub/photos"), withIntermediateDirectories: true)
        try Data("the club's secret plans\n".utf8).write(to: root.appendingPathComponent("byteclub/secret.txt"))
    }

    override func tearDown() {
        try? FileManager.default.removeItem(at: root)
    }

    /// Random bytes written straight into the club folder.
    func file(_ path: String, bytes count: Int) throws -> Data {
        var generator = SeededGenerator(seed: UInt64(count))
        let data = Data((0..<count).map { _ in UInt8.random(in: 0...255, using: &generator) })
        try data.write(to: root.appendingPathComponent(String(path.dropFirst())))
        return data
    }

    func share(_ server: ServeChild, _ path: String, settings: String = "{}") async throws -> String {
        let reply = try await server.rpc("2/sharing/create_shared_link_with_settings", #"{"path":"\#(path)","settings":\#(settings)}"#)
        XCTAssertEqual(reply.status, 200, reply.text)
        return try XCTUnwrap(reply.json["url"] as? String, reply.text)
    }

    // MARK: Serving

    func testCurlWithoutATokenGetsTheFileByteForByteAndByRanges() async throws {
        let photo = try file("/byteclub/photos/desk.jpg", bytes: 300_000)
        let server = try ServeChild(root: root)
        let url = try await share(server, "/byteclub/photos/desk.jpg")
        XCTAssertTrue(url.hasPrefix("http://127.0.0.1:\(server.port)/s/"), url)
        let token = try XCTUnwrap(url.split(separator: "/").dropLast().last)
        XCTAssertGreaterThanOrEqual(token.count, 22, "at least 128 random bits")

        let whole = try Curl.get(url)
        XCTAssertEqual(whole.status, 200)
        XCTAssertEqual(whole.body, photo)
        XCTAssertEqual(whole.header("content-type"), "image/jpeg")
        XCTAssertEqual(whole.header("content-disposition"), #"inline; filename="desk.jpg"; filename*=UTF-8''desk.jpg"#)
        let etag = try XCTUnwrap(whole.header("etag"))

        let part = try Curl.get(url, ["-r", "1000-1999"])
        XCTAssertEqual(part.status, 206)
        XCTAssertEqual(part.body, photo[1000..<2000])
        XCTAssertEqual(part.header("content-range"), "bytes 1000-1999/300000")
        let tail = try Curl.get(url, ["-r", "-10"])
        XCTAssertEqual(tail.body, photo.suffix(10))
        XCTAssertEqual(try Curl.get(url, ["-r", "300000-"]).status, 416)

        XCTAssertEqual(try Curl.get(url, ["-H", "If-None-Match: \(etag)"]).status, 304)
        let head = try Curl.get(url, ["-I"])
        XCTAssertEqual(head.status, 200)
        XCTAssertEqual(head.header("content-length"), "300000")
        XCTAssertEqual(head.header("etag"), etag)
    }

    func testNothingElseOnTheServerIsReachableThroughALink() async throws {
        _ = try file("/byteclub/a.txt", bytes: 100)
        _ = try file("/byteclub/b.txt", bytes: 200)
        let server = try ServeChild(root: root)
        let a = try await share(server, "/byteclub/a.txt")
        let b = try await share(server, "/byteclub/b.txt")
        let base = "http://127.0.0.1:\(server.port)/s/"
        let tokenA = String(a.dropFirst(base.count).prefix(while: { $0 != "/" }))
        let tokenB = String(b.dropFirst(base.count).prefix(while: { $0 != "/" }))
        XCTAssertEqual(try Curl.get(a).status, 200)
        let attempts = [
            base + tokenA + "/secret.txt",                          // another name
            base + tokenA + "/b.txt",                               // another shared file's name
            base + tokenB + "/a.txt",                               // another file's token
            base + tokenA + "/../secret.txt",                       // a dot segment
            base + tokenA + "/..%2Fsecret.txt",                     // an encoded slash
            base + tokenA + "/%2e%2e%2fsecret.txt",
            base + tokenA + "/a.txt/../secret.txt",
            base + tokenA + "/a.txt/",
            base + tokenA + "/a.txt%00",
            base + tokenA + "/..%2F.byteclub%2Fshared-links.json",  // where the links are kept
            base + tokenA,
            base + String(repeating: "A", count: tokenA.count) + "/a.txt", // a made-up token
            base + String(tokenA.dropLast()) + (tokenA.last == "B" ? "C" : "B") + "/a.txt", // one character off
            base + "../byteclub/secret.txt",
            base + tokenA + "/A.TXT",
        ]
        for attempt in attempts {
            let reply = try Curl.get(attempt, ["--path-as-is"])
            // A dot segment takes the path out of the token-free /s/: it asks for a token (401).
            let expected = attempt.contains("/../") ? 401 : 404
            XCTAssertEqual(reply.status, expected, attempt.replacingOccurrences(of: "%", with: "%%"))
            XCTAssertFalse(reply.text.contains("secret plans"), attempt)
        }
        // The token-free prefix opens no API: a dot segment out of /s/ still needs the token.
        let api = try Curl.get("http://127.0.0.1:\(server.port)/s/../2/files/list_folder",
                               ["--path-as-is", "-X", "POST", "-H", "Content-Type: application/json", "-d", #"{"path":""}"#])
        XCTAssertNotEqual(api.status, 200, api.text)
        XCTAssertFalse(api.text.contains("secret"), api.text)
        // Nor does any other method write through a link.
        XCTAssertNotEqual(try Curl.get(a, ["-X", "PUT", "-d", "overwritten"]).status, 200)
        XCTAssertEqual(try Data(contentsOf: root.appendingPathComponent("byteclub/a.txt")).count, 100)
    }

    // MARK: Ending a link

    func testRevokeEndsTheLinkAtOnce() async throws {
        _ = try file("/byteclub/a.txt", bytes: 100)
        let server = try ServeChild(root: root)
        let url = try await share(server, "/byteclub/a.txt")
        XCTAssertEqual(try Curl.get(url).status, 200)
        let revoked = try await server.rpc("2/sharing/revoke_shared_link", #"{"url":"\#(url)"}"#)
        XCTAssertEqual(revoked.status, 200, revoked.text)
        XCTAssertEqual(try Curl.get(url).status, 404)
        let again = try await server.rpc("2/sharing/revoke_shared_link", #"{"url":"\#(url)"}"#)
        XCTAssertEqual(again.summary, "shared_link_not_found")
        let malformed = try await server.rpc("2/sharing/revoke_shared_link", #"{"url":"not a link"}"#)
        XCTAssertEqual(malformed.summary, "shared_link_malformed")
        // A new link is a new token: the old URL stays dead.
        let fresh = try await share(server, "/byteclub/a.txt")
        XCTAssertNotEqual(fresh, url)
        XCTAssertEqual(try Curl.get(url).status, 404)
        XCTAssertEqual(try Curl.get(fresh).status, 200)
    }

    func testALinkEndsWhenItExpires() async throws {
        _ = try file("/byteclub/a.txt", bytes: 100)
        let server = try ServeChild(root: root)
        // Dropbox's timestamps are whole seconds: four to five seconds ahead. Each answer is
        // judged by when its request went and came back, not by when the test hoped to ask: a
        // loaded CI run took the two seconds of an earlier version to share and ask once.
        let expiry = Date(timeIntervalSince1970: (Date().timeIntervalSince1970 + 5).rounded(.down))
        let url = try await share(server, "/byteclub/a.txt", settings: #"{"expires":"\#(Self.timestamp(expiry))"}"#)
        let deadline = Date().addingTimeInterval(20)
        var status = 200
        while status == 200 && Date() < deadline {
            let asked = Date()
            status = try Curl.get(url).status
            let answered = Date()
            if status == 200 {
                XCTAssertLessThan(asked.timeIntervalSince(expiry), 1, "served after its expiry")
            } else {
                XCTAssertGreaterThanOrEqual(answered.timeIntervalSince(expiry), -0.05, "ended before its expiry")
            }
            usleep(100_000)
        }
        XCTAssertEqual(status, 404, "still served 15 s after its expiry")
        let listed = try await server.rpc("2/sharing/list_shared_links", "{}")
        XCTAssertEqual((listed.json["links"] as? [Any])?.count, 0, listed.text)
        let past = try await server.rpc("2/sharing/create_shared_link_with_settings",
                                        #"{"path":"/byteclub/a.txt","settings":{"expires":"2020-01-01T00:00:00Z"}}"#)
        XCTAssertEqual(past.summary, "settings_error/invalid_settings")
    }

    func testDeletingTheFileEndsItsLinkAtOnceAndForGood() async throws {
        _ = try file("/byteclub/a.txt", bytes: 100)
        _ = try file("/byteclub/b.txt", bytes: 100)
        let server = try ServeChild(root: root)
        let url = try await share(server, "/byteclub/a.txt")
        XCTAssertEqual(try Curl.get(url).status, 200)
        let deleted = try await server.rpc("2/files/delete_v2", #"{"path":"/byteclub/a.txt"}"#)
        XCTAssertEqual(deleted.status, 200, deleted.text)
        XCTAssertEqual(try Curl.get(url).status, 404)
        // A new file at the same path takes up the deleted one's id (its history goes on), but
        // not its link.
        let upload = try await server.content("2/files/upload", #"{"path":"/byteclub/a.txt","mode":"add"}"#, body: Data("new".utf8))
        XCTAssertEqual(upload.status, 200, upload.text)
        XCTAssertEqual(try Curl.get(url).status, 404)

        // A file removed behind the server's back: its link is 404 too, at the next request.
        let other = try await share(server, "/byteclub/b.txt")
        try FileManager.default.removeItem(at: root.appendingPathComponent("byteclub/b.txt"))
        XCTAssertEqual(try Curl.get(other).status, 404)
    }

    // MARK: The API

    func testALinkFollowsItsFileAndSurvivesARestart() async throws {
        let data = try file("/byteclub/a.txt", bytes: 100)
        var server = try ServeChild(root: root)
        let url = try await share(server, "/byteclub/a.txt")
        // A second create answers the same link, as Dropbox does: an error carrying it.
        let twice = try await server.rpc("2/sharing/create_shared_link_with_settings", #"{"path":"/byteclub/a.txt"}"#)
        XCTAssertEqual(twice.status, 409)
        XCTAssertEqual(twice.summary, "shared_link_already_exists/metadata")
        let inner = (twice.json["error"] as? [String: Any])?["shared_link_already_exists"] as? [String: Any]
        XCTAssertEqual((inner?["metadata"] as? [String: Any])?["url"] as? String, url)

        let moved = try await server.rpc("2/files/move_v2", #"{"from_path":"/byteclub/a.txt","to_path":"/byteclub/moved.txt"}"#)
        XCTAssertEqual(moved.status, 200, moved.text)
        let fetched = try Curl.get(url)
        XCTAssertEqual(fetched.body, data)
        XCTAssertEqual(fetched.header("content-disposition"), #"inline; filename="moved.txt"; filename*=UTF-8''moved.txt"#)

        let listed = try await server.rpc("2/sharing/list_shared_links", #"{"path":"/byteclub/moved.txt"}"#)
        let links = try XCTUnwrap(listed.json["links"] as? [[String: Any]], listed.text)
        XCTAssertEqual(links.map { $0["url"] as? String }, [url])
        XCTAssertEqual(links.first?["path_lower"] as? String, "/byteclub/moved.txt")
        XCTAssertEqual(links.first?[".tag"] as? String, "file")

        // A file put in the folder by hand, its id first given out by this share.
        let other = try file("/byteclub/by hand.txt", bytes: 50)
        let otherURL = try await share(server, "/byteclub/by hand.txt")

        XCTAssertTrue(server.terminate(within: 10))
        server = try ServeChild(root: root, token: server.token, extraArguments: ["--public-url", "https://club.example.org/pub"])
        func here(_ url: String) -> String { "http://127.0.0.1:\(server.port)" + url.dropFirst("http://127.0.0.1:".count).drop { $0 != "/" } }
        XCTAssertEqual(try Curl.get(here(url)).body, data)
        XCTAssertEqual(try Curl.get(here(otherURL)).body, other)
        let afterRestart = try await server.rpc("2/sharing/list_shared_links", "{}")
        let publicURL = try XCTUnwrap((afterRestart.json["links"] as? [[String: Any]])?.first?["url"] as? String, afterRestart.text)
        XCTAssertEqual((afterRestart.json["links"] as? [Any])?.count, 2, afterRestart.text)
        XCTAssertTrue(publicURL.hasPrefix("https://club.example.org/pub/s/"), publicURL)
    }

    func testWhatCannotBeSharedIsRefusedAsDropboxWould() async throws {
        let server = try ServeChild(root: root)
        let missing = try await server.rpc("2/sharing/create_shared_link_with_settings", #"{"path":"/byteclub/nope.txt"}"#)
        XCTAssertEqual(missing.summary, "path/not_found")
        let folder = try await server.rpc("2/sharing/create_shared_link_with_settings", #"{"path":"/byteclub/photos"}"#)
        XCTAssertEqual(folder.summary, "path/not_file")
        let team = try await server.rpc("2/sharing/create_shared_link_with_settings",
                                        #"{"path":"/byteclub/secret.txt","settings":{"requested_visibility":"team_only"}}"#)
        XCTAssertEqual(team.summary, "settings_error/not_authorized")
        let unauthorized = try Curl.get("http://127.0.0.1:\(server.port)/2/sharing/list_shared_links",
                                        ["-X", "POST", "-H", "Content-Type: application/json", "-d", "{}"])
        XCTAssertEqual(unauthorized.status, 401)
    }

    static func timestamp(_ date: Date) -> String {
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime]
        return formatter.string(from: date)
    }
}

/// `curl` as someone outside the club runs it: no token, only a URL.
enum Curl {
    struct Reply {
        var status: Int
        var headers: [String: String]
        var body: Data
        var text: String { String(decoding: body, as: UTF8.self) }
        func header(_ name: String) -> String? { headers[name.lowercased()] }
    }

    static func get(_ url: String, _ options: [String] = []) throws -> Reply {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("curl-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/curl")
        process.arguments = ["-s", "--max-time", "10", "-D", directory.appendingPathComponent("head").path,
                             "-o", directory.appendingPathComponent("body").path] + options + [url]
        try process.run()
        process.waitUntilExit()
        let head = (try? String(contentsOf: directory.appendingPathComponent("head"), encoding: .utf8)) ?? ""
        // The last response's head (curl writes every one it saw).
        let lines = head.components(separatedBy: "\r\n")
        let start = lines.lastIndex { $0.hasPrefix("HTTP/") } ?? 0
        guard lines.indices.contains(start), let status = Int(lines[start].split(separator: " ").dropFirst().first ?? "") else {
            throw NSError(domain: "Curl", code: Int(process.terminationStatus),
                          userInfo: [NSLocalizedDescriptionKey: "curl got no answer from \(url) (exit \(process.terminationStatus))"])
        }
        var headers: [String: String] = [:]
        for line in lines[(start + 1)...] {
            guard let colon = line.firstIndex(of: ":") else { continue }
            headers[line[..<colon].lowercased()] = line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
        }
        let body = (try? Data(contentsOf: directory.appendingPathComponent("body"))) ?? Data()
        return Reply(status: status, headers: headers, body: body)
    }
}
