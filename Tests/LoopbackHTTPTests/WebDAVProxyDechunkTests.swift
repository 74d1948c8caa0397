@testable import LoopbackHTTP
import XCTest

/// The WebDAV test proxy reads a chunked answer's body (``WebDAVProxy/dechunk(_:)``). A CI run
/// crashed the whole test process in it: stopped mid-answer, the proxy was left with a body cut
/// right after a chunk's data, and the next look past its end trapped. Every cut is nil now.
final class WebDAVProxyDechunkTests: XCTestCase {
    func testAWholeBodyReadsAndEveryCutOfItIsNilNeverATrap() {
        let body = Array("5\r\nhello\r\n7;ext=1\r\n, world\r\n0\r\n\r\n".utf8)
        XCTAssertEqual(WebDAVProxy.dechunk(body), Array("hello, world".utf8))
        // Each prefix up to the last chunk's size line is cut short.
        let last = body.count - "0\r\n\r\n".count
        for cut in 0..<last {
            XCTAssertNil(WebDAVProxy.dechunk(Array(body.prefix(cut))), "cut after \(cut) bytes")
        }
    }

    func testASizeThatIsNoSizeIsNil() {
        XCTAssertNil(WebDAVProxy.dechunk(Array("-5\r\nhello\r\n0\r\n\r\n".utf8)))
        XCTAssertNil(WebDAVProxy.dechunk(Array("zz\r\nhello\r\n0\r\n\r\n".utf8)))
        XCTAssertNil(WebDAVProxy.dechunk(Array("7fffffffffffffff\r\nhello\r\n".utf8)))
    }
}
