#if canImport(Glibc)
import Glibc
#endif
import Foundation
import Synchronization

/// An HTTP/1.1 proxy on a random loopback port in front of a WebDAV server (``RcloneWebDAV``),
/// or any HTTP server (a club server), that records what passes (``recording``, the exchanges
/// in ``exchanges``), and makes a WebDAV server answer the way other servers do, or fail the
/// way networks do:
/// - ``ETagForm``: PROPFIND's `getetag` rewritten to the unquoted form (`5f3a…`) or the weak
///   one (`W/"5f3a…"`), while `GET` keeps the server's quoted `ETag` header: the form of a
///   common server that made every save of an unchanged note look like a conflict;
/// - ``cutNextPUT(afterBodyBytes:)``: the next PUT's connection cut (both sides) once that
///   many body bytes went through, as a dropped network does mid-save;
/// - ``readOnly``: every write (PUT, MKCOL, MOVE, COPY, DELETE, PROPPATCH, LOCK) answered `403
///   Forbidden` and never passed on, as a server answers a user who may only read (a
///   Nextcloud share without edit rights).
///
/// Each request gets a fresh connection upstream with `Connection: close`, and its answer ends
/// the client's connection too (the answer says `Connection: close`), so every exchange is one
/// connection. The `Host` header is passed on as the client sent it: WebDAV servers check that
/// `Destination` and `If` URLs name their own host, which is then this proxy's. Blocking sockets,
/// one thread per connection: a test fixture, never the product.
public final class WebDAVProxy: Sendable {
    public enum ETagForm: Sendable {
        /// As the server wrote it.
        case asSent
        /// `"abc"` → `abc`.
        case unquoted
        /// `"abc"` → `W/"abc"`.
        case weak
    }

    public let port: Int
    public let upstreamPort: Int
    public let etagForm: ETagForm
    /// Each exchange is kept whole (up to ``RecordedExchange/limit`` bytes each way) in ``exchanges``.
    public let recording: Bool
    /// Writes are refused with 403 here; reads pass.
    public let readOnly: Bool
    private let listener: RelayListener
    let state = Mutex(State())

    struct State {
        var cutAfter: Int?
        var cuts = 0
        var rewrites = 0
        var exchanges: [RecordedExchange] = []
    }

    /// Listens on 127.0.0.1 (a port the OS picks) and forwards to `127.0.0.1:upstreamPort`.
    public convenience init(upstreamPort: Int, etagForm: ETagForm = .asSent, recording: Bool = false) throws {
        try self.init(upstreamPort: upstreamPort, etagForm: etagForm, recording: recording, readOnly: false)
    }

    /// Listens as ``init(upstreamPort:etagForm:recording:)`` does; `readOnly` refuses every write (``readOnly``).
    public init(upstreamPort: Int, etagForm: ETagForm = .asSent, recording: Bool = false, readOnly: Bool) throws {
        self.upstreamPort = upstreamPort
        self.etagForm = etagForm
        self.recording = recording
        self.readOnly = readOnly
        guard let listener = RelayListener() else { throw FixtureError("the proxy could not listen") }
        self.listener = listener
        port = listener.port
        listener.start { [self] client in Thread.detachNewThread { [self] in serve(client) } }
    }

    deinit { stop() }

    /// The proxy's root URL, which stands for the server's.
    public var url: URL { URL(string: "http://127.0.0.1:\(port)/")! }

    /// Cuts the next PUT's connections once `bytes` of its body were passed on.
    public func cutNextPUT(afterBodyBytes bytes: Int) {
        state.withLock { $0.cutAfter = bytes }
    }

    /// How many PUTs were cut, and how many PROPFIND answers had their ETags rewritten.
    public var cuts: Int { state.withLock { $0.cuts } }
    public var rewrites: Int { state.withLock { $0.rewrites } }

    /// Stops accepting and cuts every open connection. Safe to call more than once.
    public func stop() { listener.stop() }

    // MARK: - Connections

    private func track(_ fd: Int32) -> Bool { listener.track(fd) }

    private func finish(_ fd: Int32) {
        listener.forget(fd)
        close(fd)
    }

    /// One request: its head read and passed on with `Connection: close`, the body pumped up
    /// while the answer is pumped (or, for PROPFIND, read whole, rewritten and sent) back.
    private func serve(_ client: Int32) {
        defer { finish(client) }
        guard var (head, first) = Self.readHead(client), let requestLine = head.split(separator: "\r\n").first else { return }
        let method = requestLine.split(separator: " ").first.map(String.init) ?? ""
        if readOnly, ["PUT", "MKCOL", "MOVE", "COPY", "DELETE", "PROPPATCH", "LOCK"].contains(method) {
            _ = Self.send(client, Array("HTTP/1.1 403 Forbidden\r\nContent-Length: 0\r\nConnection: close\r\n\r\n".utf8))
            // Ended in order, then the body the client may still send is read and dropped (a
            // close with unread bytes would be a reset, not the answer).
            shutdown(client, Int32(SHUT_WR))
            var buffer = [UInt8](repeating: 0, count: 64 << 10)
            while read(client, &buffer, buffer.count) > 0 {}
            return
        }
        head = Self.replacingHeader("Connection", with: "close", in: head)
        let upstream = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard upstream >= 0 else { return }
        guard track(upstream) else {
            close(upstream)
            return
        }
        defer { finish(upstream) }
        guard LoopbackSocket.connect(upstream, toPort: upstreamPort), Self.send(upstream, Array(head.utf8)) else { return }

        // A PUT's body counts towards the cut; the rule is taken by this PUT alone.
        let cutAfter: Int? = method == "PUT" ? state.withLock { state in
            defer { state.cutAfter = nil }
            return state.cutAfter
        } : nil
        let bodyDone = DispatchSemaphore(value: 0)
        let proxy = self
        let early = first
        first = []
        let sent = recording ? Capture() : nil, answered = recording ? Capture() : nil
        Thread.detachNewThread {
            proxy.pumpBody(from: client, to: upstream, first: early, cutAfter: cutAfter, capture: sent)
            bodyDone.signal()
        }
        if method == "PROPFIND", etagForm != .asSent {
            var answer: [UInt8] = []
            var buffer = [UInt8](repeating: 0, count: 64 << 10)
            while true {
                let count = read(upstream, &buffer, buffer.count)
                if count <= 0 { break }
                answer += buffer[0..<count]
            }
            if let rewritten = rewrite(answer) {
                _ = Self.send(client, rewritten)
            } else {
                _ = Self.send(client, answer)
            }
        } else {
            // The answer's head says `Connection: close` (servers that close after a request
            // asking so need not say it): a client that took the connection for kept-alive would
            // send its next request on it, and the body pump would pass that to the server after
            // the request it already answered.
            var pending: [UInt8] = []
            while let (head, rest) = Self.readHead(upstream, after: pending) {
                let interim = head.hasPrefix("HTTP/1.1 1") || head.hasPrefix("HTTP/1.0 1")
                let bytes = Array((interim ? head : Self.replacingHeader("Connection", with: "close", in: head)).utf8)
                guard Self.send(client, bytes) else { break }
                answered?.add(bytes)
                // An interim answer (100 Continue) is followed by the real one's head.
                pending = rest
                if interim { continue }
                if !rest.isEmpty {
                    guard Self.send(client, rest) else { break }
                    answered?.add(rest)
                }
                Self.pump(from: upstream, to: client, capture: answered)
                break
            }
        }
        // The answer is complete: end both, which also ends the body pump.
        shutdown(client, Int32(SHUT_RDWR))
        shutdown(upstream, Int32(SHUT_RDWR))
        bodyDone.wait()
        if let sent, let answered { record(head: head, body: sent.bytes, answer: answered.bytes) }
    }

    /// Client to server: the bytes read with the head, then the rest; cut after `cutAfter` body
    /// bytes (the head is already sent, so every byte here is body).
    private func pumpBody(from client: Int32, to upstream: Int32, first: [UInt8], cutAfter: Int?, capture: Capture?) {
        var passed = 0
        var chunk = first
        var buffer = [UInt8](repeating: 0, count: 64 << 10)
        while true {
            if !chunk.isEmpty {
                if let cutAfter, passed + chunk.count >= cutAfter {
                    _ = Self.send(upstream, Array(chunk.prefix(cutAfter - passed)))
                    state.withLock { $0.cuts += 1 }
                    // A reset to the client (no orderly end), and the server's side ended mid-body.
                    var abort = linger(l_onoff: 1, l_linger: 0)
                    setsockopt(client, SOL_SOCKET, SO_LINGER, &abort, socklen_t(MemoryLayout<linger>.size))
                    shutdown(upstream, Int32(SHUT_RDWR))
                    shutdown(client, Int32(SHUT_RDWR))
                    return
                }
                guard Self.send(upstream, chunk) else { return }
                capture?.add(chunk)
                passed += chunk.count
            }
            let count = read(client, &buffer, buffer.count)
            if count <= 0 { return }
            chunk = Array(buffer[0..<count])
        }
    }

    /// A PROPFIND answer with each `getetag` in this proxy's form, or nil to pass it as it came.
    private func rewrite(_ answer: [UInt8]) -> [UInt8]? {
        guard let split = answer.firstRange(of: Array("\r\n\r\n".utf8)) else { return nil }
        let head = String(decoding: answer[..<split.lowerBound], as: UTF8.self)
        guard head.hasPrefix("HTTP/1.1 207") || head.hasPrefix("HTTP/1.0 207") else { return nil }
        var body = Array(answer[split.upperBound...])
        if Self.header("Transfer-Encoding", in: head)?.lowercased().contains("chunked") == true {
            guard let plain = Self.dechunk(body) else { return nil }
            body = plain
        }
        let text = String(decoding: body, as: UTF8.self)
        // <D:getetag>"abc"</D:getetag>, any prefix (or none).
        guard let pattern = try? NSRegularExpression(pattern: #"(<([A-Za-z0-9_]+:)?getetag>)\s*(W/)?"([^"<]*)"\s*(</([A-Za-z0-9_]+:)?getetag>)"#) else { return nil }
        let template = etagForm == .weak ? "$1W/\"$4\"$5" : "$1$4$5"
        let rewritten = pattern.stringByReplacingMatches(in: text, range: NSRange(text.startIndex..., in: text), withTemplate: template)
        state.withLock { $0.rewrites += 1 }
        var newHead = Self.removingHeader("Transfer-Encoding", from: head)
        newHead = Self.replacingHeader("Content-Length", with: "\(rewritten.utf8.count)", in: newHead + "\r\n\r\n")
        newHead = Self.replacingHeader("Connection", with: "close", in: newHead)
        return Array(newHead.utf8) + Array(rewritten.utf8)
    }

    // MARK: - HTTP text

    /// Reads until the end of a head (a request's or an answer's, after `pending` bytes already read): the head (with its blank line) and what came after.
    private static func readHead(_ fd: Int32, after pending: [UInt8] = []) -> (String, [UInt8])? {
        var received = pending
        let end = Array("\r\n\r\n".utf8)
        if let range = received.firstRange(of: end) {
            return (String(decoding: received[..<range.upperBound], as: UTF8.self), Array(received[range.upperBound...]))
        }
        var buffer = [UInt8](repeating: 0, count: 16 << 10)
        while received.count < 256 << 10 {
            let count = read(fd, &buffer, buffer.count)
            if count <= 0 { return nil }
            received += buffer[0..<count]
            if let range = received.firstRange(of: end) {
                return (String(decoding: received[..<range.upperBound], as: UTF8.self), Array(received[range.upperBound...]))
            }
        }
        return nil
    }

    /// A head (ending in a blank line) with `name` set to `value`, replacing any it had.
    static func replacingHeader(_ name: String, with value: String, in head: String) -> String {
        var lines = removingHeader(name, from: head).components(separatedBy: "\r\n")
        while lines.last == "" { lines.removeLast() }
        lines.append("\(name): \(value)")
        return lines.joined(separator: "\r\n") + "\r\n\r\n"
    }

    static func removingHeader(_ name: String, from head: String) -> String {
        head.components(separatedBy: "\r\n").filter { line in
            guard let colon = line.firstIndex(of: ":") else { return true }
            return line[..<colon].trimmingCharacters(in: .whitespaces).caseInsensitiveCompare(name) != .orderedSame
        }.joined(separator: "\r\n")
    }

    static func header(_ name: String, in head: String) -> String? {
        for line in head.components(separatedBy: "\r\n") {
            guard let colon = line.firstIndex(of: ":"),
                  line[..<colon].trimmingCharacters(in: .whitespaces).caseInsensitiveCompare(name) == .orderedSame else { continue }
            return line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
        }
        return nil
    }

    /// A chunked body's bytes, or nil when it is cut short.
    static func dechunk(_ body: [UInt8]) -> [UInt8]? {
        var plain: [UInt8] = []
        var index = 0
        let crlf = Array("\r\n".utf8)
        // A body cut short (the proxy stopped mid-answer) or a size that is no size is nil, never
        // a trap: the last chunk's data may end the bytes before its CRLF.
        while index < body.count {
            guard let lineEnd = body[index...].firstRange(of: crlf) else { return nil }
            let sizeText = String(decoding: body[index..<lineEnd.lowerBound], as: UTF8.self).split(separator: ";").first ?? ""
            guard let size = Int(sizeText.trimmingCharacters(in: .whitespaces), radix: 16), size >= 0 else { return nil }
            index = lineEnd.upperBound
            if size == 0 { return plain }
            guard size <= body.count - index else { return nil }
            plain += body[index..<(index + size)]
            index += size + 2
        }
        return nil
    }

    // MARK: - Sockets

    /// Writes all of `bytes`; false when the other side is gone.
    private static func send(_ fd: Int32, _ bytes: [UInt8]) -> Bool {
        var offset = 0
        while offset < bytes.count {
            let written = bytes[offset...].withUnsafeBytes { Glibc.send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            if written < 0, errno == EINTR { continue }
            if written <= 0 { return false }
            offset += written
        }
        return true
    }

    /// Copies `from` to `to` until `from` ends.
    private static func pump(from: Int32, to: Int32, capture: Capture? = nil) {
        var buffer = [UInt8](repeating: 0, count: 64 << 10)
        while true {
            let count = read(from, &buffer, buffer.count)
            if count <= 0 { return }
            let chunk = Array(buffer[0..<count])
            guard send(to, chunk) else { return }
            capture?.add(chunk)
        }
    }
}
