import Foundation
@testable import Remote
import TestSupport
import XCTest

/// Tags over WebDAV. `rclone serve webdav` keeps no dead properties (it answers PROPPATCH with
/// a 207 holding `403 Forbidden`): the store says so in words, the file is untouched, reading
/// tags finds none, and the CLI exits 1 with the reason. The reader of the property is checked
/// on an answer shaped as Apache's mod_dav gives it, where tags are kept.
final class WebDAVTagsTests: XCTestCase {
    func testRcloneRefusesTheDeadPropertyAndTheStoreSaysSoWithoutBreakingAnything() async throws {
        try Requirement.tool(RcloneWebDAV.executable != nil, "rclone is not installed (make deps)")
        let server = try RcloneWebDAV()
        defer { server.remove() }
        try FileManager.default.createDirectory(at: server.file("byteclub"), withIntermediateDirectories: true)
        try Data("boats\n".utf8).write(to: server.file("byteclub/Trip.txt"))
        let store = try await WebDAVStore.connect(url: server.url, user: server.user, password: server.password)

        do {
            try await store.addTag("trip", to: "/byteclub/Trip.txt")
            XCTFail("rclone kept a tag")
        } catch {
            guard case .notSupported(let reason) = error else { return XCTFail("\(error)") }
            XCTAssertTrue(reason.contains("this WebDAV server cannot keep tags"), reason)
            XCTAssertTrue(reason.contains("403"), reason)
        }
        let tags = try await store.tags(of: ["/byteclub/Trip.txt"])
        XCTAssertEqual(tags, [:], "no tags, and no error: the list still shows")
        XCTAssertEqual(try Data(contentsOf: server.file("byteclub/Trip.txt")), Data("boats\n".utf8))
        let listed = try await store.list("/byteclub")
        XCTAssertEqual(listed.map(\.name), ["Trip.txt"])

        // A bad name is refused before anything is sent.
        do {
            try await store.addTag("two words", to: "/byteclub/Trip.txt")
            XCTFail("a bad name was sent")
        } catch {
            XCTAssertTrue(error.message.contains("is not a tag name"), error.message)
        }
    }

    func testTheCLISaysThisServerCannotKeepTags() throws {
        try Requirement.tool(RcloneWebDAV.executable != nil, "rclone is not installed (make deps)")
        let server = try RcloneWebDAV()
        defer { server.remove() }
        try FileManager.default.createDirectory(at: server.file("byteclub"), withIntermediateDirectories: true)
        try Data("boats\n".utf8).write(to: server.file("byteclub/Trip.txt"))
        var environment = ProcessInfo.processInfo.environment
        let home = server.base.appendingPathComponent("home")
        environment["HOME"] = home.path
        for (variable, folder) in [("XDG_DATA_HOME", "data"), ("XDG_STATE_HOME", "state"), ("XDG_CONFIG_HOME", "config"), ("XDG_CACHE_HOME", "cache")] {
            environment[variable] = home.appendingPathComponent(folder).path
        }
        environment["BYTECLUB_WEBDAV_PASSWORD"] = server.password
        let work = server.base.appendingPathComponent("work")
        try FileManager.default.createDirectory(at: work, withIntermediateDirectories: true)
        let cli = CLI(environment: environment, directory: work)
        let webdav = ["--webdav", server.url.absoluteString, "--user", server.user]

        let tagged = try cli.run(["tag", "/byteclub/Trip.txt", "+trip"] + webdav)
        XCTAssertEqual(tagged.status, 1, tagged.stderr)
        XCTAssertTrue(tagged.stderr.contains("this WebDAV server cannot keep tags"), tagged.stderr)
        let listed = try cli.run(["tag", "/byteclub/Trip.txt"] + webdav)
        XCTAssertEqual(listed.status, 0, listed.stderr)
        XCTAssertEqual(listed.stdout, "")
        let bad = try cli.run(["tag", "/byteclub/Trip.txt", "+no-dash"] + webdav)
        XCTAssertEqual(bad.status, 64, bad.stderr)
        XCTAssertTrue(bad.stderr.contains("'-' is not allowed"), bad.stderr)
    }

    func testTheTagsPropertyIsReadFromTwoHundredPropstatsOnly() throws {
        let answer = Data("""
            <?xml version="1.0" encoding="utf-8"?>
            <D:multistatus xmlns:D="DAV:" xmlns:ns0="urn:x-byteclub:">
            <D:response><D:href>/dav/byteclub/Trip.txt</D:href>
            <D:propstat><D:prop><ns0:tags>trip boat</ns0:tags></D:prop><D:status>HTTP/1.1 200 OK</D:status></D:propstat></D:response>
            <D:response><D:href>/dav/byteclub/Plain.txt</D:href>
            <D:propstat><D:prop><ns0:tags/></D:prop><D:status>HTTP/1.1 404 Not Found</D:status></D:propstat></D:response>
            <D:response><D:href>/dav/byteclub/Other.txt</D:href>
            <D:propstat><D:prop><x:tags xmlns:x="urn:elsewhere">nope</x:tags></D:prop><D:status>HTTP/1.1 200 OK</D:status></D:propstat></D:response>
            </D:multistatus>
            """.utf8)
        let tagged = try WebDAVMultistatus.parse(answer).filter { $0.tags != nil }
        XCTAssertEqual(tagged.map(\.href), ["/dav/byteclub/Trip.txt"])
        XCTAssertEqual(tagged.map(\.tags), ["trip boat"])
        XCTAssertEqual(try WebDAVTagsReader.propertyStatuses(answer), [200, 404])
    }
}
