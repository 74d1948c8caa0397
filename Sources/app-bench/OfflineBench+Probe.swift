import ByteClubApp
import Foundation
import Remote
import Synchronization
import TerminalUI
#if canImport(Glibc)
import Glibc
#endif

/// What the offline probe costs a server that is down (part of `app-bench outbox`, issue 23).
///
/// The app (ClubApp on the main queue, the store as the UI sets it up) is pointed at a counting
/// gateway that answers every request as nginx does when the club server behind it is down (502
/// Bad Gateway, keep-alive); once the app is offline, the gateway counts the probes' connections,
/// requests and bytes for a while, and the per-probe figures are scaled to an hour with the
/// probe's schedule (``OfflineProbe/count(during:)``). A server that is down with nothing in front
/// costs no HTTP at all: each probe is one refused connection.
extension OfflineBench {
    static func probeCost(seconds: Double = 20) async throws {
        let gateway = try CountingGateway()
        defer { gateway.close() }
        let base = FileManager.default.temporaryDirectory.appendingPathComponent("app-bench-probe-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: base) }
        var configuration = AppConfiguration()
        configuration.downloadDirectory = base.appendingPathComponent("downloads")
        configuration.outbox = Outbox(directory: base.appendingPathComponent("outbox"))
        configuration.liveUpdates = false
        let app = ClubApp(store: appStore(url: URL(string: "http://127.0.0.1:\(gateway.port)")!, token: "bench"), compositor: Compositor(),
                          configuration: configuration)
        app.start()
        try await AppBench.wait("the app offline behind the 502", timeout: 30) { app.state.offline.isOffline }
        let offlineAt = ContinuousClock.now
        let before = gateway.counts
        while ContinuousClock.now - offlineAt < .milliseconds(Int(seconds * 1000)) { try await Task.sleep(for: .milliseconds(20)) }
        let after = gateway.counts
        app.requestQuit()
        let requests = after.requests - before.requests
        guard requests > 0 else { throw BenchError("no probe reached the gateway") }
        let sent = Double(after.bytesIn - before.bytesIn) / Double(requests)
        let received = Double(after.bytesOut - before.bytesOut) / Double(requests)
        let hour = OfflineProbe.count(during: 3600)
        let old = oldProbeCount(during: 3600)

        print("probe cost: the app offline behind a gateway answering 502 (nginx's page, keep-alive), \(Int(seconds)) s measured")
        print("measured: \(requests) probes (the schedule says \(OfflineProbe.count(during: seconds))), "
              + "\(after.connections - before.connections) new connections, "
              + String(format: "%.0f bytes sent and %.0f received per probe (HTTP, headers included)", sent, received))
        let widths = [44, 14, 14, 16, 14]
        print(row(["per hour of outage", "requests", "bytes sent", "bytes received", "worst notice"], widths))
        print(row(["this probe, behind a proxy answering 502", "\(hour)", kilobytes(Double(hour) * sent), kilobytes(Double(hour) * received),
                   String(format: "%.0f s", OfflineProbe.noticeDelay(after: 3600))], widths))
        print(row(["this probe, nothing listening", "\(hour) refused", "0", "0", String(format: "%.0f s", OfflineProbe.noticeDelay(after: 3600))], widths))
        print(row(["before (a tenth of the outage, ≤ 30 s)", "\(old)", "", "", "30 s"], widths))
        print("")
    }

    /// The probes an outage cost before issue 23: a tenth of the outage so far, 1 s to 30 s.
    static func oldProbeCount(during seconds: Double) -> Int {
        var elapsed = 0.0, count = 0
        while true {
            elapsed += min(30, max(1, elapsed * 0.1))
            if elapsed > seconds { return count }
            count += 1
        }
    }

    static func kilobytes(_ bytes: Double) -> String { String(format: "%.0f KB", bytes / 1000) }
}

/// A TCP server on loopback that reads HTTP/1.1 requests (head and `Content-Length` body) and
/// answers each with nginx's 502 page, keeping the connection open, while counting connections,
/// requests and bytes each way. One thread per connection, blocking sockets: a bench tool.
final class CountingGateway: Sendable {
    struct Counts: Sendable {
        var connections = 0
        var requests = 0
        var bytesIn = 0
        var bytesOut = 0
    }

    let port: Int
    private let listener: Int32
    private let counted = Mutex(Counts())

    static let reply: [UInt8] = {
        let body = "<html>\r\n<head><title>502 Bad Gateway</title></head>\r\n<body>\r\n<center><h1>502 Bad Gateway</h1></center>\r\n"
            + "<hr><center>nginx/1.24.0</center>\r\n</body>\r\n</html>\r\n"
        let head = "HTTP/1.1 502 Bad Gateway\r\nServer: nginx/1.24.0\r\nDate: Mon, 23 Nov 2026 10:00:00 GMT\r\nContent-Type: text/html\r\n"
            + "Content-Length: \(body.utf8.count)\r\nConnection: keep-alive\r\n\r\n"
        return Array((head + body).utf8)
    }()

    var counts: Counts { counted.withLock { $0 } }

    init() throws {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard fd >= 0, bound == 0, listen(fd, 64) == 0 else { throw BenchError("cannot listen for the gateway") }
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) }
        }
        listener = fd
        port = Int(UInt16(bigEndian: address.sin_port))
        Thread { [self] in acceptLoop() }.start()
    }

    func close() {
        shutdown(listener, Int32(SHUT_RDWR))
        _ = Glibc.close(listener)
    }

    private func acceptLoop() {
        while true {
            let connection = accept(listener, nil, nil)
            guard connection >= 0 else { return }
            counted.withLock { $0.connections += 1 }
            Thread { [self] in serve(connection) }.start()
        }
    }

    private func serve(_ connection: Int32) {
        defer { _ = Glibc.close(connection) }
        var buffer: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 16_384)
        let end: [UInt8] = Array("\r\n\r\n".utf8)
        while true {
            // Answer every whole request in the buffer.
            while let headEnd = Self.find(end, in: buffer) {
                let head = String(decoding: buffer[..<headEnd], as: UTF8.self).lowercased()
                let bodyLength = head.split(separator: "\r\n").first { $0.hasPrefix("content-length:") }
                    .flatMap { Int($0.dropFirst("content-length:".count).trimmingCharacters(in: .whitespaces)) } ?? 0
                let total = headEnd + end.count + bodyLength
                guard buffer.count >= total else { break }
                buffer.removeFirst(total)
                let written = Self.reply.withUnsafeBytes { write(connection, $0.baseAddress, $0.count) }
                counted.withLock {
                    $0.requests += 1
                    $0.bytesIn += total
                    $0.bytesOut += max(0, written)
                }
            }
            let count = chunk.withUnsafeMutableBytes { read(connection, $0.baseAddress, $0.count) }
            guard count > 0 else { return }
            buffer += chunk[..<count]
        }
    }

    private static func find(_ needle: [UInt8], in haystack: [UInt8]) -> Int? {
        guard haystack.count >= needle.count else { return nil }
        for start in 0...(haystack.count - needle.count) where haystack[start..<start + needle.count].elementsEqual(needle) { return start }
        return nil
    }
}
