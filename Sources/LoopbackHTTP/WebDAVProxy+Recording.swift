import Foundation
import Synchronization

/// One request and its answer as they passed through a recording ``WebDAVProxy``: what a test
/// checks the client sent and the server answered, on the wire.
public struct RecordedExchange: Sendable {
    /// The most kept of a body each way; a longer one is cut there (``requestBody`` or
    /// ``responseBody`` then holds its start only, and ``cut`` says so).
    public static let limit = 4 << 20

    public var method: String
    /// The request's target as sent ("/2/files/list_folder").
    public var path: String
    /// Header names lowercased; a repeated header keeps its last value.
    public var requestHeaders: [String: String]
    public var requestBody: [UInt8]
    /// 0 when no answer came.
    public var status: Int
    public var responseHeaders: [String: String]
    /// Without its chunked framing.
    public var responseBody: [UInt8]
    public var cut: Bool
}

extension WebDAVProxy {
    /// Every exchange recorded so far, in the order they ended.
    public var exchanges: [RecordedExchange] { state.withLock { $0.exchanges } }

    func record(head: String, body: [UInt8], answer: [UInt8]) {
        let lines = head.components(separatedBy: "\r\n")
        let request = lines.first?.split(separator: " ") ?? []
        var exchange = RecordedExchange(method: request.first.map(String.init) ?? "", path: request.count > 1 ? String(request[1]) : "",
                                        requestHeaders: Self.headers(lines.dropFirst()), requestBody: body, status: 0,
                                        responseHeaders: [:], responseBody: [], cut: body.count >= RecordedExchange.limit)
        if let split = answer.firstRange(of: Array("\r\n\r\n".utf8)) {
            let answerLines = String(decoding: answer[..<split.lowerBound], as: UTF8.self).components(separatedBy: "\r\n")
            exchange.status = answerLines.first?.split(separator: " ").dropFirst().first.flatMap { Int($0) } ?? 0
            exchange.responseHeaders = Self.headers(answerLines.dropFirst())
            let rest = Array(answer[split.upperBound...])
            if exchange.responseHeaders["transfer-encoding"]?.lowercased().contains("chunked") == true {
                exchange.responseBody = Self.dechunk(rest) ?? rest
            } else {
                exchange.responseBody = rest
            }
            exchange.cut = exchange.cut || answer.count >= RecordedExchange.limit
        }
        state.withLock { $0.exchanges.append(exchange) }
    }

    private static func headers(_ lines: ArraySlice<String>) -> [String: String] {
        var headers: [String: String] = [:]
        for line in lines {
            guard let colon = line.firstIndex(of: ":") else { continue }
            headers[line[..<colon].trimmingCharacters(in: .whitespaces).lowercased()] = line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
        }
        return headers
    }
}

/// The bytes one side of an exchange sent, kept up to ``RecordedExchange/limit``: written by the
/// pump's thread, read once both pumps have ended (the Mutex makes either order safe).
final class Capture: Sendable {
    private let kept = Mutex<[UInt8]>([])

    func add(_ chunk: [UInt8]) {
        kept.withLock { bytes in
            guard bytes.count < RecordedExchange.limit else { return }
            bytes += chunk.prefix(RecordedExchange.limit - bytes.count)
        }
    }

    var bytes: [UInt8] { kept.withLock { $0 } }
}
