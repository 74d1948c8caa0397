@testable import Transfer
import Foundation
import XCTest

final class ResponseHeadTests: XCTestCase {
    private func feed(_ lines: [String], followsRedirects: Bool = true) -> [ResponseHeadParser.Head] {
        var parser = ResponseHeadParser(followsRedirects: followsRedirects)
        return lines.compactMap { parser.consume($0 + "\r\n") }
    }

    func testInterimAndFollowedResponsesAreSkipped() throws {
        let heads = feed(["HTTP/1.1 100 Continue", "",
                          "HTTP/1.1 302 Found", "Location: /elsewhere", "",
                          "HTTP/1.1 200 OK", "Content-Length:  12 ", "ETag: \"v1\"", ""])
        let head = try XCTUnwrap(heads.first)
        XCTAssertEqual(heads.count, 1)
        XCTAssertEqual(head.statusCode, 200)
        XCTAssertEqual(head.fields.map(\.name), ["Content-Length", "ETag"], "fields of earlier responses are forgotten")
        XCTAssertEqual(head.fields.map(\.value), ["12", "\"v1\""])
    }

    func testARedirectIsFinalWhenNotFollowedOrWithoutLocation() {
        XCTAssertEqual(feed(["HTTP/1.1 301 Moved", "Location: /x", ""], followsRedirects: false).map(\.statusCode), [301])
        XCTAssertEqual(feed(["HTTP/1.1 307 Temporary Redirect", ""]).map(\.statusCode), [307])
    }

    func testContentRange() {
        XCTAssertEqual(ContentRange.start("bytes 100-199/200"), 100)
        XCTAssertEqual(ContentRange.start(" Bytes 0-0/1"), 0)
        XCTAssertEqual(ContentRange.total("bytes 100-199/200"), 200)
        XCTAssertNil(ContentRange.total("bytes 100-199/*"))
    }
}

final class DownloadFileTests: XCTestCase {
    private func contents(_ file: DownloadFile) throws -> Data {
        try Data(contentsOf: URL(fileURLWithPath: file.path))
    }

    private func response(_ status: Int, _ fields: [(name: String, value: String)]) -> HTTPResponse {
        HTTPResponse(url: URL(string: "http://127.0.0.1:1/f")!, statusCode: status, headerFields: fields)
    }

    func testChunksAreGatheredUntilFlushed() throws {
        let directory = try makeTemporaryDirectory(self)
        var file = try DownloadFile(resume: nil, directory: directory)
        defer { file.close() }
        XCTAssertTrue(file.rangeHeaders.isEmpty)
        try Data(repeating: 7, count: 16 * 1024).withUnsafeBytes { try file.append($0) }
        XCTAssertEqual(try contents(file).count, 0, "16 KiB waits for more")
        XCTAssertEqual(file.total, 16 * 1024)
        try file.flush()
        XCTAssertEqual(try contents(file), Data(repeating: 7, count: 16 * 1024))
    }

    func testAResumedDownloadAsksForTheRestAndChecksWhereItStarts() throws {
        let directory = try makeTemporaryDirectory(self)
        let path = directory.appendingPathComponent("partial").path
        try Data("hello, wor-garbage".utf8).write(to: URL(fileURLWithPath: path))
        let resume = ResumeData(url: URL(string: "http://127.0.0.1:1/f")!, method: "GET", headers: ["Authorization": "Bearer x"], offset: 10,
                                expectedLength: 12, etag: "\"v1\"", lastModified: nil, temporaryPath: path)
        var file = try DownloadFile(resume: resume, directory: directory)
        defer { file.close() }
        XCTAssertEqual(try contents(file), Data("hello, wor".utf8), "bytes past the offset are dropped")
        XCTAssertEqual(file.rangeHeaders, ["Range": "bytes=10-", "If-Range": "\"v1\""])

        XCTAssertNil(file.responseBegan(response(206, [("Content-Range", "bytes 10-11/12"), ("ETag", "\"v1\"")])))
        try Data("ld".utf8).withUnsafeBytes { try file.append($0) }
        try file.flush()
        XCTAssertEqual(try contents(file), Data("hello, world".utf8))
        let next = try XCTUnwrap(file.resumeData(after: response(206, [("Content-Range", "bytes 10-11/12"), ("ETag", "\"v1\"")]),
                                                 original: Request(url: resume.url)))
        XCTAssertEqual(next.offset, 12)
        XCTAssertEqual(next.expectedLength, 12)
        XCTAssertEqual(next.headers, [:], "Authorization is never stored")

        var elsewhere = try DownloadFile(resume: resume, directory: directory)
        defer { elsewhere.close() }
        XCTAssertEqual(elsewhere.responseBegan(response(206, [("Content-Range", "bytes 5-11/12")])),
                       .invalidResumeData(reason: "the server resumed at a different offset"))
    }

    func testAWholeFileInAnswerToARangeStartsOver() throws {
        let directory = try makeTemporaryDirectory(self)
        let path = directory.appendingPathComponent("partial").path
        try Data("old bytes".utf8).write(to: URL(fileURLWithPath: path))
        let resume = ResumeData(url: URL(string: "http://127.0.0.1:1/f")!, method: "GET", headers: [:], offset: 9,
                                expectedLength: nil, etag: nil, lastModified: "yesterday", temporaryPath: path)
        var file = try DownloadFile(resume: resume, directory: directory)
        defer { file.close() }
        XCTAssertNil(file.responseBegan(response(200, [("Content-Length", "3")])))
        XCTAssertEqual(file.resumeOffset, 0)
        try Data("new".utf8).withUnsafeBytes { try file.append($0) }
        try file.flush()
        XCTAssertEqual(try contents(file), Data("new".utf8))
    }

    func testAPartialFileThatIsGoneCannotResume() {
        let resume = ResumeData(url: URL(string: "http://127.0.0.1:1/f")!, method: "GET", headers: [:], offset: 1,
                                expectedLength: nil, etag: "\"v\"", lastModified: nil, temporaryPath: "/nonexistent/partial")
        XCTAssertThrowsError(try DownloadFile(resume: resume, directory: URL(fileURLWithPath: "/tmp")))
    }
}
