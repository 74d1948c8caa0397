import Foundation

/// A blocking TCP client socket that sends exactly the bytes it is given, for connections no
/// HTTP client would make: ones that stall, send half a request, or send bytes HTTP forbids.
///
/// Blocking calls must not run on Swift concurrency's few cooperative threads (the server under
/// test runs its handlers there); `TestSocket.onThread` runs them on a thread of their own.
final class TestSocket: @unchecked Sendable {
    // @unchecked Sendable: a socket is used by one thread at a time; it only changes hands through
    // `onThread`'s continuation, which orders every access before the hand-over with those after.
    let fd: Int32

    enum Failure: Error, CustomStringConvertible {
        case system(String, Int32)
        case closedBeforeAnswer(Data)
        case timedOut(Data)
        case malformed(String)

        var description: String {
            switch self {
            case .system(let call, let code): return "\(call): \(String(cString: strerror(code)))"
            case .closedBeforeAnswer(let got): return "the server closed the connection after \(got.count) bytes, before a whole answer"
            case .timedOut(let got): return "no whole answer in time (got \(got.count) bytes)"
            case .malformed(let why): return "malformed answer: \(why)"
            }
        }
    }

    /// Connects to 127.0.0.1:`port`, from the loopback address `source` if given (Linux routes all
    /// of 127/8 to the loopback interface, so 127.0.0.2 is a second client address).
    init(port: Int, source: String? = nil) throws {
        fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw Failure.system("socket", errno) }
        var on: Int32 = 1
        setsockopt(fd, Int32(IPPROTO_TCP), TCP_NODELAY, &on, socklen_t(MemoryLayout<Int32>.size))
        if let source {
            var local = Self.address(source, port: 0)
            let bound = withUnsafePointer(to: &local) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
            }
            guard bound == 0 else { let code = errno; close(fd); throw Failure.system("bind \(source)", code) }
        }
        var remote = Self.address("127.0.0.1", port: port)
        let connected = withUnsafePointer(to: &remote) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard connected == 0 else { let code = errno; close(fd); throw Failure.system("connect", code) }
    }

    deinit { close(fd) }

    private static func address(_ host: String, port: Int) -> sockaddr_in {
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        address.sin_addr.s_addr = inet_addr(host)
        return address
    }

    /// Sends everything, or throws (a reset, or `timeout` seconds without progress).
    func send(_ data: Data, timeout: Double = 10) throws {
        var time = timeval(tv_sec: Int(timeout), tv_usec: Int(timeout.truncatingRemainder(dividingBy: 1) * 1e6))
        setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &time, socklen_t(MemoryLayout<timeval>.size))
        try data.withUnsafeBytes { bytes in
            var offset = 0
            while offset < bytes.count {
                let sent = Glibc.send(fd, bytes.baseAddress! + offset, bytes.count - offset, Int32(MSG_NOSIGNAL))
                if sent < 0 {
                    if errno == EINTR { continue }
                    throw Failure.system("send", errno)
                }
                offset += sent
            }
        }
    }

    func send(_ text: String) throws { try send(Data(text.utf8)) }

    /// Waits up to `timeout` seconds for bytes; nil when the peer closed (or reset) the connection.
    /// Throws `timedOut` when nothing came.
    func receive(timeout: Double) throws -> Data? {
        var poller = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
        let ready = poll(&poller, 1, Int32(max(0, timeout) * 1000))
        if ready == 0 { throw Failure.timedOut(Data()) }
        var buffer = [UInt8](repeating: 0, count: 65536)
        let got = recv(fd, &buffer, buffer.count, 0)
        if got <= 0 { return nil }
        return Data(buffer[0..<got])
    }

    /// Reads until the server closes the connection; returns what came and the seconds it took.
    /// Throws `timedOut` if the connection is still open after `timeout` seconds.
    func readUntilClosed(timeout: Double) throws -> (data: Data, seconds: Double) {
        let start = Date()
        var all = Data()
        while true {
            let left = timeout - Date().timeIntervalSince(start)
            do {
                guard let chunk = try receive(timeout: left) else { return (all, Date().timeIntervalSince(start)) }
                all += chunk
            } catch Failure.timedOut {
                throw Failure.timedOut(all)
            }
        }
    }

    /// One HTTP/1.1 answer off the connection.
    struct Answer {
        var status: Int
        var headers: [String: String]
        var body: Data
        var text: String { String(decoding: body, as: UTF8.self) }
        var json: [String: Any]? { try? JSONSerialization.jsonObject(with: body, options: [.fragmentsAllowed]) as? [String: Any] }
        var closes: Bool { headers["connection"]?.lowercased() == "close" }
    }

    /// Bytes read past the last answer (a pipelined one, or a second answer already in).
    private var pending = Data()

    /// Reads one answer (Content-Length or chunked body).
    func readAnswer(timeout: Double = 10) throws -> Answer {
        let deadline = Date().addingTimeInterval(timeout)
        func fill() throws {
            let left = deadline.timeIntervalSinceNow
            do {
                guard let chunk = try receive(timeout: left) else { throw Failure.closedBeforeAnswer(pending) }
                pending += chunk
            } catch Failure.timedOut {
                throw Failure.timedOut(pending)
            }
        }
        let separator = Data("\r\n\r\n".utf8)
        var headEnd = pending.range(of: separator)
        while headEnd == nil {
            try fill()
            headEnd = pending.range(of: separator)
        }
        let head = String(decoding: pending[pending.startIndex..<headEnd!.lowerBound], as: UTF8.self)
        var lines = head.components(separatedBy: "\r\n")
        let statusLine = lines.removeFirst()
        let parts = statusLine.split(separator: " ", maxSplits: 2)
        guard parts.count >= 2, parts[0].hasPrefix("HTTP/1."), let status = Int(parts[1]) else {
            throw Failure.malformed("status line \(statusLine.debugDescription)")
        }
        var headers: [String: String] = [:]
        for line in lines {
            guard let colon = line.firstIndex(of: ":") else { throw Failure.malformed("header line \(line.debugDescription)") }
            headers[line[..<colon].lowercased()] = line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
        }
        pending = Data(pending[headEnd!.upperBound...])
        var body = Data()
        if let lengthText = headers["content-length"] {
            guard let length = Int(lengthText), length >= 0 else { throw Failure.malformed("Content-Length \(lengthText)") }
            while pending.count < length { try fill() }
            body = Data(pending.prefix(length))
            pending = Data(pending.dropFirst(length))
        } else if headers["transfer-encoding"]?.lowercased() == "chunked" {
            let crlf = Data("\r\n".utf8)
            while true {
                var lineEnd = pending.range(of: crlf)
                while lineEnd == nil { try fill(); lineEnd = pending.range(of: crlf) }
                let sizeText = String(decoding: pending[pending.startIndex..<lineEnd!.lowerBound], as: UTF8.self)
                guard let size = Int(sizeText.split(separator: ";").first ?? "", radix: 16) else { throw Failure.malformed("chunk size \(sizeText)") }
                pending = Data(pending[lineEnd!.upperBound...])
                while pending.count < size + 2 { try fill() }
                body += pending.prefix(size)
                pending = Data(pending.dropFirst(size + 2))
                if size == 0 { break }
            }
        } else if status != 204, status != 304 {
            throw Failure.malformed("no Content-Length and not chunked")
        }
        return Answer(status: status, headers: headers, body: body)
    }

    /// Runs blocking socket work on a thread of its own, off the cooperative pool.
    static func onThread<T: Sendable>(_ body: @escaping @Sendable () throws -> T) async throws -> T {
        try await withCheckedThrowingContinuation { continuation in
            let thread = Thread {
                continuation.resume(with: Result { try body() })
            }
            thread.stackSize = 8 << 20
            thread.start()
        }
    }
}
