import Foundation
@testable import Remote
import Transfer
import XCTest

/// The PROPFIND parser: namespaces by URI (never by prefix), percent-encoded hrefs in any
/// Unicode, 404 propstats ignored, and hostile answers refused or made harmless.
final class WebDAVMultistatusTests: XCTestCase {
    private func parse(_ xml: String) throws -> [WebDAVResource] {
        try WebDAVMultistatus.parse(Data(xml.utf8))
    }

    func testPrefixesDoNotMatterOnlyNamespaces() throws {
        // The same answer three ways: D:, a default namespace, and an odd prefix bound to DAV:.
        let forms = [
            #"<D:multistatus xmlns:D="DAV:"><D:response><D:href>/dav/a.txt</D:href><D:propstat><D:prop><D:getetag>"e1"</D:getetag><D:getcontentlength>5</D:getcontentlength><D:resourcetype/></D:prop><D:status>HTTP/1.1 200 OK</D:status></D:propstat></D:response></D:multistatus>"#,
            #"<multistatus xmlns="DAV:"><response><href>/dav/a.txt</href><propstat><prop><getetag>"e1"</getetag><getcontentlength>5</getcontentlength><resourcetype/></prop><status>HTTP/1.1 200 OK</status></propstat></response></multistatus>"#,
            #"<?xml version="1.0"?><zz9:multistatus xmlns:zz9="DAV:" xmlns:D="urn:not-dav"><zz9:response><zz9:href>/dav/a.txt</zz9:href><zz9:propstat><zz9:prop><zz9:getetag>"e1"</zz9:getetag><zz9:getcontentlength>5</zz9:getcontentlength></zz9:prop><zz9:status>HTTP/1.1 200 OK</zz9:status></zz9:propstat></zz9:response></zz9:multistatus>"#,
        ]
        for xml in forms {
            let resources = try parse(xml)
            XCTAssertEqual(resources, [WebDAVResource(href: "/dav/a.txt", isCollection: false, etag: "\"e1\"", contentLength: 5)], xml)
        }
    }

    func testLookalikesInOtherNamespacesAreIgnored() throws {
        // `D:` bound to another namespace is not DAV:; an href or etag outside DAV: is not one.
        let xml = #"""
        <a:multistatus xmlns:a="DAV:" xmlns:D="urn:evil" xmlns:oc="http://owncloud.org/ns">
          <a:response>
            <D:href>/evil</D:href><a:href>/dav/photos/</a:href>
            <a:propstat><a:prop>
              <a:resourcetype><a:collection/></a:resourcetype><D:getetag>"fake"</D:getetag><oc:fileid>00042</oc:fileid>
            </a:prop><a:status>HTTP/1.1 200 OK</a:status></a:propstat>
          </a:response>
        </a:multistatus>
        """#
        let resources = try parse(xml)
        XCTAssertEqual(resources, [WebDAVResource(href: "/dav/photos/", isCollection: true, etag: nil, fileID: "00042")])
    }

    func testPropertiesOfA404PropstatAreIgnored() throws {
        let xml = #"""
        <d:multistatus xmlns:d="DAV:"><d:response><d:href>/dav/b.txt</d:href>
          <d:propstat><d:prop><d:getetag>"good"</d:getetag><d:getlastmodified>Sun, 22 Nov 2026 19:01:21 GMT</d:getlastmodified></d:prop><d:status>HTTP/1.1 200 OK</d:status></d:propstat>
          <d:propstat><d:prop><d:getcontentlength>999</d:getcontentlength><d:resourcetype><d:collection/></d:resourcetype></d:prop><d:status>HTTP/1.1 404 Not Found</d:status></d:propstat>
        </d:response></d:multistatus>
        """#
        let resource = try XCTUnwrap(try parse(xml).first)
        XCTAssertEqual(resource.etag, "\"good\"")
        XCTAssertNil(resource.contentLength)
        XCTAssertFalse(resource.isCollection)
        XCTAssertEqual(resource.lastModified, Date(timeIntervalSince1970: 1_795_374_081))
    }

    func testHrefsArePercentDecodedIntoAnyUnicode() throws {
        let store = WebDAVStore(root: URL(string: "http://127.0.0.1:1/remote.php/dav/files/ray%20s/")!, configuration: .ephemeral)
        let names = ["café ✓.txt", "日本語のノート.md", "emoji 🎉 (1).txt", "a%b#c?d.txt", "e\u{301}.txt", "  spaces  .txt"]
        for name in names {
            let url = try store.url("/byteclub/" + name)
            XCTAssertFalse(url.absoluteString.contains(" "), url.absoluteString)
            // The server may send the path or the whole URL back.
            for href in [url.path.isEmpty ? "" : URLComponents(url: url, resolvingAgainstBaseURL: false)!.percentEncodedPath, url.absoluteString] {
                let entry = try XCTUnwrap(store.entry(WebDAVResource(href: href, isCollection: false, etag: "\"1\"")), href)
                XCTAssertEqual(entry.name, name)
                XCTAssertEqual(entry.path, "/byteclub/" + name)
            }
        }
        // Folders come back with a trailing slash.
        XCTAssertEqual(store.entry(WebDAVResource(href: "/remote.php/dav/files/ray%20s/byteclub/photos/", isCollection: true))?.path, "/byteclub/photos")
    }

    func testHostileHrefsAreRefused() throws {
        let store = WebDAVStore(root: URL(string: "http://127.0.0.1:1/dav/")!, configuration: .ephemeral)
        // Outside the root altogether.
        XCTAssertNil(store.entry(WebDAVResource(href: "/etc/passwd", isCollection: false)))
        XCTAssertNil(store.entry(WebDAVResource(href: "/davx/a.txt", isCollection: false)))
        // Inside the root but not inside the folder listed, or climbing out with dot-dots.
        for href in ["/dav/byteclub/../../etc/passwd", "/dav/byteclub/%2E%2E/%2E%2E/etc/passwd", "/dav/other/x.txt", "/dav/byteclub/a%2Fb/../../x"] {
            if let entry = store.entry(WebDAVResource(href: href, isCollection: false)) {
                XCTAssertThrowsError(try ListingGuard.check(entry, in: "/byteclub"), href)
            }
        }
        // Control characters survive as data (the CLI and the UI escape them when shown).
        let escape = try XCTUnwrap(store.entry(WebDAVResource(href: "/dav/byteclub/%1B%5B31mred.txt", isCollection: false)))
        XCTAssertEqual(escape.name, "\u{1B}[31mred.txt")
        XCTAssertEqual(TerminalSafe.escape(escape.name), "\\x1b[31mred.txt")
    }

    /// Issue 31: a remote whose URL is the server's `/` (rclone serving a folder there) answers
    /// the href `/` for the folder itself, which is the root, not an intruder; a whole URL counts
    /// only on the remote's own scheme, host and port.
    func testTheRootsOwnHrefAndWholeURLsOnlyOnTheSameServer() {
        let atSlash = WebDAVStore(root: URL(string: "http://127.0.0.1:8080/")!, configuration: .ephemeral)
        XCTAssertEqual(atSlash.storePath(ofHref: "/"), "")
        XCTAssertEqual(atSlash.storePath(ofHref: "/top.txt"), "/top.txt")
        XCTAssertEqual(atSlash.storePath(ofHref: "/byteclub/"), "/byteclub")
        let store = WebDAVStore(root: URL(string: "http://127.0.0.1:8080/dav/")!, configuration: .ephemeral)
        XCTAssertEqual(store.storePath(ofHref: "/dav"), "")
        XCTAssertEqual(store.storePath(ofHref: "http://127.0.0.1:8080/dav/a.txt"), "/a.txt")
        XCTAssertEqual(store.storePath(ofHref: "HTTP://127.0.0.1:8080/dav/a.txt"), "/a.txt", "the scheme in any case")
        for foreign in ["http://elsewhere.example:8080/dav/a.txt", "https://127.0.0.1:8080/dav/a.txt", "http://127.0.0.1:8081/dav/a.txt",
                        "http://127.0.0.1/dav/a.txt", "//elsewhere.example/dav/a.txt"] {
            XCTAssertNil(store.storePath(ofHref: foreign), foreign)
        }
        let https = WebDAVStore(root: URL(string: "https://cloud.example.org/dav/")!, configuration: .ephemeral)
        XCTAssertEqual(https.storePath(ofHref: "https://cloud.example.org:443/dav/a.txt"), "/a.txt", "the default port written out")
    }

    func testExternalEntitiesAreNotResolved() {
        let xml = #"""
        <?xml version="1.0"?>
        <!DOCTYPE m [<!ENTITY secret SYSTEM "file:///etc/hostname">]>
        <d:multistatus xmlns:d="DAV:"><d:response><d:href>/dav/&secret;x</d:href></d:response></d:multistatus>
        """#
        let hostname = (try? String(contentsOfFile: "/etc/hostname", encoding: .utf8))?.trimmingCharacters(in: .whitespacesAndNewlines) ?? "\u{0}"
        if let resources = try? parse(xml) {
            XCTAssertFalse(resources.contains { $0.href.contains(hostname) })
        }
    }

    func testAnythingButAMultistatusIsAServerError() {
        for body in ["", "<html><body>Login</body></html>", "<d:multistatus xmlns:d=\"DAV:\"><d:response>", "not xml at all"] {
            XCTAssertThrowsError(try parse(body), body) { error in
                guard case RemoteError.server = error else { return XCTFail("\(error)") }
            }
        }
    }

    func testHTTPDatesParseWithoutAFormatter() {
        XCTAssertEqual(WebDAVMultistatus.date("Sun, 22 Nov 2026 19:01:21 GMT"), Date(timeIntervalSince1970: 1_795_374_081))
        XCTAssertEqual(WebDAVMultistatus.date("Thu, 01 Jan 1970 00:00:00 GMT"), Date(timeIntervalSince1970: 0))
        XCTAssertEqual(WebDAVMultistatus.date("Tue, 29 Feb 2000 12:00:00 GMT"), Date(timeIntervalSince1970: 951_825_600))
        XCTAssertEqual(WebDAVMultistatus.date("Wed, 31 Dec 2025 23:59:59 GMT"), Date(timeIntervalSince1970: 1_767_225_599))
        for bad in ["", "yesterday", "Sun, 22 Nov 2026 19:01:21", "Sun, 22 Foo 2026 19:01:21 GMT", "Sun, 32 Nov 2026 19:01:21 GMT", "Sun, 22 Nov 2026 25:01:21 GMT"] {
            XCTAssertNil(WebDAVMultistatus.date(bad), bad)
        }
    }

    func testWriteErrorsMapToTheSameCasesAsDropbox() {
        func mapped(_ status: Int, _ method: String = "PUT") -> RemoteError {
            WebDAVStore.remoteError(.httpStatus(status, body: Data()), response: nil, path: "/byteclub/a.txt", method: method)
        }
        XCTAssertEqual(mapped(401), .unauthorized(.webdavPassword))
        XCTAssertEqual(mapped(404, "GET"), .notFound("/byteclub/a.txt"))
        XCTAssertEqual(mapped(412), .conflict("/byteclub/a.txt"))
        XCTAssertEqual(mapped(423), .conflict("/byteclub/a.txt"))
        XCTAssertEqual(mapped(507), .insufficientSpace)
        XCTAssertEqual(mapped(405, "MKCOL"), .conflict("/byteclub/a.txt"))
        XCTAssertEqual(mapped(409, "MOVE"), .notFound("/byteclub/a.txt"), "a MOVE into a missing folder")
        XCTAssertEqual(mapped(409, "DELETE"), .conflict("/byteclub/a.txt"))
        XCTAssertEqual(mapped(409, "PUT"), .notFound("/byteclub/a.txt"), "a PUT into a missing folder")
    }

    func testDAVClassesAndAuthSchemes() {
        XCTAssertTrue(WebDAVCapabilities(davHeader: "1, 2").locking)
        XCTAssertTrue(WebDAVCapabilities(davHeader: "1,2,3, access-control").locking)
        XCTAssertFalse(WebDAVCapabilities(davHeader: "1, 3, extended-mkcol").locking)
        XCTAssertFalse(WebDAVCapabilities(davHeader: nil).locking)
        let url = URL(string: "http://127.0.0.1/")!
        func challenge(_ values: [String]) -> HTTPResponse {
            HTTPResponse(url: url, statusCode: 401, headerFields: values.map { ("WWW-Authenticate", $0) })
        }
        XCTAssertEqual(WebDAVStore.schemes(challenge(["Basic realm=\"rclone\""])), .basic)
        XCTAssertEqual(WebDAVStore.schemes(challenge(["Digest realm=\"x\", nonce=\"n\""])), .digest)
        XCTAssertEqual(WebDAVStore.schemes(challenge(["Digest realm=\"x\"", "Basic realm=\"x\""])), .basic)
        // Plain http to another machine: Digest when offered, Basic only when it is all there is.
        XCTAssertEqual(WebDAVStore.schemes(challenge(["Digest realm=\"x\"", "Basic realm=\"x\""]), inTheClear: true), .digest)
        XCTAssertEqual(WebDAVStore.schemes(challenge(["Basic realm=\"x\""]), inTheClear: true), .basic)
        XCTAssertTrue(WebDAVStore.isCleartext(URL(string: "http://192.168.1.20/dav/")!))
        XCTAssertFalse(WebDAVStore.isCleartext(URL(string: "http://127.0.0.1:8080/dav/")!))
        XCTAssertFalse(WebDAVStore.isCleartext(URL(string: "http://[::1]:8080/dav/")!))
        XCTAssertFalse(WebDAVStore.isCleartext(URL(string: "https://cloud.example.org/dav/")!))
        XCTAssertEqual(WebDAVStore.schemes(HTTPResponse(url: url, statusCode: 200, headerFields: [])), .any)
    }

    /// A listing sorted by path keeps each path once, as the server last listed it (a server
    /// that names one href twice), in the order it was sorted.
    func testAListingKeepsEachPathOnceAsLastListed() {
        let first = RemoteEntry(kind: .file, name: "a.md", path: "/n/a.md", rev: "1")
        let again = RemoteEntry(kind: .file, name: "A.md", path: "/n/A.md", rev: "2")
        let other = RemoteEntry(kind: .file, name: "b.md", path: "/n/b.md", rev: "3")
        XCTAssertEqual(WebDAVSnapshot.lastOfEach([first, again, other]).map(\.rev), ["2", "3"])
        XCTAssertEqual(WebDAVSnapshot.lastOfEach([first, other]).map(\.rev), ["1", "3"])
        XCTAssertEqual(WebDAVSnapshot.lastOfEach([]).count, 0)
    }
}
