import Foundation
import LoopbackHTTP
import Transfer
import XCTest

/// HTTP authentication through curl (`Credentials`): Basic sent at once, Digest after the
/// challenge, custom methods (PROPFIND and the like) with bodies, and no password in any
/// description.
final class CredentialsTests: XCTestCase {
    var server: LoopbackServer!

    override func setUpWithError() throws {
        server = try LoopbackServer.startBlocking()
    }

    override func tearDownWithError() throws {
        try server?.shutdownBlocking()
    }

    private func send(_ request: Request, credentials: Credentials?) throws -> (status: Int, echo: [String: Any]) {
        var configuration = SessionConfiguration.ephemeral
        configuration.credentials = credentials
        let session = Session(configuration: configuration)
        defer { session.finishTasksAndInvalidate() }
        let box = Box<(Data?, HTTPResponse?, TransferError?)>()
        session.dataTask(with: request) { box.put(($0, $1, $2)) }.resume()
        let result = try XCTUnwrap(box.take())
        let echo = (try? JSONSerialization.jsonObject(with: result.0 ?? Data())) as? [String: Any] ?? [:]
        return (result.1?.statusCode ?? 0, echo)
    }

    func testBasicIsSentWithTheFirstRequest() throws {
        let reply = try send(Request(url: server.url("/auth/basic")), credentials: Credentials(user: "ray", password: "s3cret", schemes: .basic))
        XCTAssertEqual(reply.status, 200)
        let headers = try XCTUnwrap(reply.echo["headers"] as? [String: String])
        XCTAssertEqual(headers["authorization"], "Basic " + Data("ray:s3cret".utf8).base64EncodedString())
        XCTAssertEqual(server.stats.requestsStarted, 1, "Basic alone goes with the first request, as curl -u does")
    }

    func testDigestAnswersTheChallengeWithoutTheClearPassword() throws {
        let body = Data("<?xml version=\"1.0\"?><propfind xmlns=\"DAV:\"><allprop/></propfind>".utf8)
        let request = Request(url: server.url("/auth/digest"), method: "PROPFIND", headers: ["Depth": "1", "Content-Type": "application/xml"], body: body)
        let reply = try send(request, credentials: Credentials(user: "ray", password: "s3cret", schemes: .any))
        XCTAssertEqual(reply.status, 200)
        let headers = try XCTUnwrap(reply.echo["headers"] as? [String: String])
        let authorization = try XCTUnwrap(headers["authorization"])
        XCTAssertTrue(authorization.hasPrefix("Digest "), authorization)
        XCTAssertTrue(authorization.contains("username=\"ray\""), authorization)
        XCTAssertTrue(authorization.contains("response=\""), authorization)
        XCTAssertFalse(authorization.contains("s3cret"))
        XCTAssertEqual(reply.echo["method"] as? String, "PROPFIND")
        XCTAssertEqual(headers["depth"], "1")
        XCTAssertEqual(reply.echo["bodyBytes"] as? Int, body.count, "the custom method's body arrives whole after the challenge")
    }

    func testWrongSchemeEndsIn401() throws {
        let reply = try send(Request(url: server.url("/auth/digest")), credentials: Credentials(user: "ray", password: "x", schemes: .basic))
        XCTAssertEqual(reply.status, 401)
    }

    func testDescriptionsNeverShowThePassword() {
        var configuration = SessionConfiguration.default
        configuration.credentials = Credentials(user: "ray", password: "hunter2")
        XCTAssertFalse(String(describing: configuration).contains("hunter2"))
        XCTAssertFalse(String(reflecting: configuration.credentials!).contains("hunter2"))
        XCTAssertEqual("\(configuration.credentials!)", "ray:•••")
    }
}
