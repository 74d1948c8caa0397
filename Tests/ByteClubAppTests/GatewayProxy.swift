import Foundation
import TestSupport
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import HTTPTypes
import Hummingbird
import Logging
import Synchronization

/// A reverse proxy on loopback, as nginx stands in front of a club server: every request is
/// passed on to ``upstream``, and when the upstream cannot be reached (stopped, refused) the
/// proxy answers ``failureStatus`` with an HTML page, as nginx does (502 Bad Gateway, or the
/// 503 / 504 a load balancer or a timeout gives).
///
/// It counts what it was asked, so a test can say what the app cost a server that was down.
final class GatewayProxy: Sendable {
    struct Counts: Sendable {
        /// Requests by path (`/2/files/get_metadata`).
        var requests: [String: Int] = [:]
        /// Requests answered with ``GatewayProxy/failureStatus`` because the upstream was down.
        var failed = 0
        var total: Int { requests.values.reduce(0, +) }
    }

    /// What the routes share with the test (a class: a Mutex cannot be captured by itself).
    final class Shared: Sendable {
        let status: Mutex<Int>
        /// The `Retry-After` the failure answer carries, if any (a proxy's maintenance page).
        let retryAfter = Mutex<Int?>(nil)
        let counts = Mutex(Counts())
        init(status: Int) { self.status = Mutex(status) }
    }

    let baseURL: URL
    let upstream: URL
    private let shared: Shared
    private let task: GracefulServer

    /// What the proxy answers while the upstream is down.
    var failureStatus: Int {
        get { shared.status.withLock { $0 } }
        set { shared.status.withLock { $0 = newValue } }
    }

    var counted: Counts { shared.counts.withLock { $0 } }

    /// The seconds of `Retry-After` sent with ``failureStatus``; nil sends none.
    var failureRetryAfter: Int? {
        get { shared.retryAfter.withLock { $0 } }
        set { shared.retryAfter.withLock { $0 = newValue } }
    }

    init(upstream: URL, failureStatus: Int = 502) async throws {
        self.upstream = upstream
        let shared = Shared(status: failureStatus)
        self.shared = shared
        let router = Router()
        let session = URLSession(configuration: .ephemeral)
        router.post("**") { request, _ -> Response in
            let path = request.uri.path
            shared.counts.withLock { $0.requests[path, default: 0] += 1 }
            var forward = URLRequest(url: URL(string: upstream.absoluteString + path)!)
            forward.httpMethod = "POST"
            forward.timeoutInterval = 120
            for field in request.headers where ![.contentLength, .connection].contains(field.name) {
                forward.setValue(field.value, forHTTPHeaderField: field.name.rawName)
            }
            var request = request
            let body = try await request.collectBody(upTo: 64 << 20)
            forward.httpBody = Data(body.readableBytesView)
            let answer: (Data, HTTPURLResponse)? = await withCheckedContinuation { continuation in
                session.dataTask(with: forward) { data, response, _ in
                    continuation.resume(returning: (response as? HTTPURLResponse).map { (data ?? Data(), $0) })
                }.resume()
            }
            guard let (data, response) = answer else {
                let code = shared.status.withLock { $0 }
                shared.counts.withLock { $0.failed += 1 }
                let reason = HTTPResponse.Status(code: code).reasonPhrase
                let page = "<html>\r\n<head><title>\(code) \(reason)</title></head>\r\n<body>\r\n<center><h1>\(code) \(reason)</h1></center>\r\n"
                    + "<hr><center>nginx</center>\r\n</body>\r\n</html>\r\n"
                var headers: HTTPFields = [.contentType: "text/html"]
                if let seconds = shared.retryAfter.withLock({ $0 }) { headers[.retryAfter] = String(seconds) }
                return Response(status: .init(code: code), headers: headers, body: .init(byteBuffer: ByteBuffer(string: page)))
            }
            var headers = HTTPFields()
            for name in ["Content-Type", "Dropbox-API-Result", "Retry-After"] {
                if let value = response.value(forHTTPHeaderField: name), let field = HTTPField.Name(name) { headers[field] = value }
            }
            return Response(status: .init(code: response.statusCode), headers: headers, body: .init(byteBuffer: ByteBuffer(bytes: data)))
        }
        var logger = Logger(label: "gateway-proxy")
        logger.logLevel = .critical
        let port = Mutex<Int?>(nil)
        let ready = DispatchSemaphore(value: 0)
        let app = Application(router: router, configuration: .init(address: .hostname("127.0.0.1", port: 0)),
                              onServerRunning: { channel in port.withLock { $0 = channel.localAddress?.port }; ready.signal() }, logger: logger)
        task = GracefulServer(app)
        await withCheckedContinuation { continuation in
            DispatchQueue.global().async {
                _ = ready.wait(timeout: .now() + 20)
                continuation.resume()
            }
        }
        baseURL = URL(string: "http://127.0.0.1:\(port.withLock { $0 } ?? 0)")!
    }

    func resetCounts() { shared.counts.withLock { $0 = Counts() } }

    func stop() { task.stop() }
}
