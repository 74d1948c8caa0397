import Foundation
import NIOHTTP1

/// The server's routes, decided once when the request head arrives.
enum Route: Equatable {
    case bytes(Int)
    case upload
    case stall
    case stallHead
    case trickle
    case reset
    case status(Int)
    case echo
    case delay(Int)
    case redirect
    /// `/auth/basic` or `/auth/digest`: 401 with that scheme's challenge until a request
    /// carries an Authorization of that scheme, then the echo.
    case auth(String)
    case notFound
    case badRequest(String)

    init(path: String) {
        let parts = path.split(separator: "/", omittingEmptySubsequences: true).map(String.init)
        switch (parts.first, parts.count) {
        case ("bytes", 2):
            if let n = Int(parts[1]), n >= 0 { self = .bytes(n) } else { self = .badRequest("bad byte count") }
        case ("upload", 1): self = .upload
        case ("stall", 1): self = .stall
        case ("stall-head", 1): self = .stallHead
        case ("trickle", 1): self = .trickle
        case ("reset", 1): self = .reset
        case ("status", 2):
            if let code = Int(parts[1]), (200...999).contains(code) {
                self = .status(code)
            } else {
                self = .badRequest("bad status code")
            }
        case ("echo", 1): self = .echo
        case ("delay", 2):
            if let ms = Int(parts[1]), ms >= 0 { self = .delay(ms) } else { self = .badRequest("bad delay") }
        case ("redirect", 1): self = .redirect
        case ("auth", 2) where ["basic", "digest"].contains(parts[1]): self = .auth(parts[1])
        default: self = .notFound
        }
    }
}

/// A request whose head has arrived, plus what its body has contributed so far.
struct InFlightRequest {
    let id: Int
    let head: HTTPRequestHead
    let route: Route
    let query: [String: String]
    var bodyBytes: Int64 = 0
    var endReceived = false
    /// Only `/upload` hashes, and `?hash=0` turns it off for benchmarks (FNV-1a's serial
    /// multiply chain tops out below 1 GB/s on one core).
    var hasher: FNV1a64?
    let uploadDelayMilliseconds: Int

    init(head: HTTPRequestHead, recorder: StatsRecorder) {
        self.head = head
        let (path, query) = Self.split(uri: head.uri)
        self.route = Route(path: path)
        self.query = query
        self.uploadDelayMilliseconds = route == .upload ? max(0, Int(query["delay_ms"] ?? "") ?? 0) : 0
        self.hasher = route == .upload && query["hash"] != "0" ? FNV1a64() : nil
        self.id = recorder.requestStarted(
            RecordedRequest(
                method: head.method.rawValue,
                uri: head.uri,
                headers: head.headers.map { (name: $0.name, value: $0.value) }
            )
        )
    }

    var expectsContinue: Bool {
        head.version.minor >= 1
            && head.headers[canonicalForm: "expect"].contains { $0.lowercased() == "100-continue" }
    }

    func queryInt(_ name: String, default value: Int) -> Int {
        query[name].flatMap { Int($0) } ?? value
    }

    private static func split(uri: String) -> (path: String, query: [String: String]) {
        guard let mark = uri.firstIndex(of: "?") else { return (uri, [:]) }
        var query: [String: String] = [:]
        for item in uri[uri.index(after: mark)...].split(separator: "&") {
            let pair = item.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            let name = String(pair[0]).removingPercentEncoding ?? String(pair[0])
            let raw = pair.count > 1 ? String(pair[1]) : ""
            query[name] = raw.removingPercentEncoding ?? raw
        }
        return (String(uri[..<mark]), query)
    }
}
