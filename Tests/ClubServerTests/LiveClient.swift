@testable import ClubServer
import DropboxWire
import Foundation
import HummingbirdWSClient
import Logging
import NIOCore
import NIOSSL
import Synchronization
import XCTest
#if canImport(Glibc)
import Glibc
#endif

/// A member's WebSocket on the live channel, for tests: what it sends goes out in order, what it
/// receives is kept in order, and `wait` polls that record until a deadline.
final class LiveClient: Sendable {
    enum Received: Equatable, Sendable {
        case update(member: String, bytes: [UInt8])
        case control(LiveControl)
        case text(String)
    }
    enum Outgoing: Sendable {
        case binary([UInt8])
        case text(String)
        case close
    }

    /// What the connection's task records, shared with it.
    private final class Record: Sendable {
        let received = Mutex<[Received]>([])
        let ended = Mutex<(done: Bool, close: WebSocketCloseFrame?, error: String?)>((false, nil, nil))
    }

    let name: String
    private let record = Record()
    private let outgoing: AsyncStream<Outgoing>.Continuation
    private let task: Task<Void, Never>

    /// Connects to `/2/byteclub/live?file=<file>` with `token`; returns at once (the upgrade goes on
    /// in the background: wait for the first presence to know it is in).
    /// - Parameter tls: connect with `wss://`, trusting any certificate (the server's own, in tests).
    init(port: Int, token: String, file: String, name: String, tls: Bool = false) {
        self.name = name
        let (stream, continuation) = AsyncStream<Outgoing>.makeStream()
        outgoing = continuation
        let record = record
        var logger = Logger(label: "live-client-\(name)")
        logger.logLevel = .warning
        var configuration = WebSocketClientConfiguration(maxFrameSize: 8 << 20, additionalHeaders: [.authorization: "Bearer \(token)"])
        configuration.autoPing = .disabled
        // TLS names the host: SNI takes no IP address.
        let url = "\(tls ? "wss" : "ws")://\(tls ? "localhost" : "127.0.0.1"):\(port)/2/byteclub/live?file=\(file)"
        var tlsConfiguration: TLSConfiguration?
        if tls {
            tlsConfiguration = TLSConfiguration.makeClientConfiguration()
            tlsConfiguration?.certificateVerification = .none
        }
        task = Task {
            do {
                let close = try await WebSocketClient.connect(url: url, configuration: configuration, tlsConfiguration: tlsConfiguration, logger: logger) { inbound, outbound, _ in
                    try await withThrowingTaskGroup(of: Void.self) { group in
                        group.addTask {
                            for await item in stream {
                                switch item {
                                case .binary(let bytes): try await outbound.write(.binary(ByteBuffer(bytes: bytes)))
                                case .text(let text): try await outbound.write(.text(text))
                                case .close:
                                    try await outbound.close(.normalClosure, reason: "bye")
                                    return
                                }
                            }
                        }
                        for try await message in inbound.messages(maxSize: 8 << 20) {
                            switch message {
                            case .binary(let buffer):
                                let frame = LiveFrame.decode(Array(buffer.readableBytesView))
                                record.received.withLock { $0.append(.update(member: frame?.member ?? "?", bytes: frame?.update ?? [])) }
                            case .text(let text):
                                record.received.withLock { $0.append(LiveControl.parseServer(text).map { .control($0) } ?? .text(text)) }
                            }
                        }
                        group.cancelAll()
                    }
                }
                record.ended.withLock { $0 = (true, close, nil) }
            } catch {
                record.ended.withLock { $0 = (true, nil, "\(error)") }
            }
        }
    }

    func send(_ bytes: [UInt8]) { outgoing.yield(.binary(bytes)) }
    func send(_ data: Data) { outgoing.yield(.binary([UInt8](data))) }
    func sendText(_ text: String) { outgoing.yield(.text(text)) }

    /// Closes the connection and waits for it to end.
    func close() async {
        sendClose()
        await task.value
    }

    /// Sends the close; the connection ends in the background.
    func sendClose() {
        outgoing.yield(.close)
        outgoing.finish()
    }

    var messages: [Received] { record.received.withLock { $0 } }
    var updates: [(member: String, bytes: [UInt8])] {
        messages.compactMap { if case .update(let member, let bytes) = $0 { (member, bytes) } else { nil } }
    }
    var presences: [[String]] {
        messages.compactMap { if case .control(.presence(let members)) = $0 { members } else { nil } }
    }
    var errors: [String] {
        messages.compactMap { if case .control(.error(let message)) = $0 { message } else { nil } }
    }
    var isClosed: Bool { record.ended.withLock { $0.done } }
    var closeFrame: WebSocketCloseFrame? { record.ended.withLock { $0.close } }

    /// Polls until `condition` holds, failing the test past the deadline.
    @discardableResult
    func wait(_ what: String, timeout: Duration = .seconds(10), file: StaticString = #filePath, line: UInt = #line,
              until condition: (LiveClient) -> Bool) async -> Bool {
        let deadline = ContinuousClock.now + timeout
        while ContinuousClock.now < deadline {
            if condition(self) { return true }
            // Nothing more will come.
            if isClosed, condition(self) == false { break }
            try? await Task.sleep(for: .milliseconds(5))
        }
        XCTFail("\(name): \(what) did not happen within \(timeout); received \(messages.count) messages, errors \(errors), ended \(record.ended.withLock { $0 })", file: file, line: line)
        return false
    }
}

/// The status line (and the rest) of a raw upgrade request, read until the server closes: what a
/// refused upgrade answers before any WebSocket byte.
func rawLiveUpgrade(port: Int, token: String?, file: String, path: String = "/2/byteclub/live") throws -> String {
    let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
    guard fd >= 0 else { throw POSIXError(.EIO) }
    defer { close(fd) }
    var timeout = timeval(tv_sec: 10, tv_usec: 0)
    setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
    var address = sockaddr_in()
    address.sin_family = sa_family_t(AF_INET)
    address.sin_port = in_port_t(UInt16(port).bigEndian)
    address.sin_addr.s_addr = inet_addr("127.0.0.1")
    let connected = withUnsafePointer(to: &address) {
        $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
    }
    guard connected == 0 else { throw POSIXError(.ECONNREFUSED) }
    var request = "GET \(path)?file=\(file) HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
    request += "Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n"
    if let token { request += "Authorization: Bearer \(token)\r\n" }
    request += "\r\n"
    _ = request.withCString { send(fd, $0, strlen($0), 0) }
    var answer: [UInt8] = []
    var buffer = [UInt8](repeating: 0, count: 4096)
    // Until the server closes, or the head and the body its Content-Length announces are in (a
    // 101 has no body and the connection stays open).
    while true {
        let count = recv(fd, &buffer, buffer.count, 0)
        if count <= 0 { break }
        answer += buffer[..<count]
        let text = String(decoding: answer, as: UTF8.self)
        guard let headEnd = text.range(of: "\r\n\r\n") else { continue }
        let head = text[..<headEnd.lowerBound].lowercased()
        let length = head.split(separator: "\r\n").first { $0.hasPrefix("content-length:") }
            .flatMap { Int($0.dropFirst("content-length:".count).trimmingCharacters(in: .whitespaces)) } ?? 0
        if text.utf8.count - text[..<headEnd.upperBound].utf8.count >= length { break }
    }
    return String(decoding: answer, as: UTF8.self)
}
