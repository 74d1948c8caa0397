#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Foundation
import NIOCore
import NIOHTTP1

/// Writes the response to one request; `respond()` returns whether the connection stays open.
struct Responder {
    static let lastModified = "Sat, 21 Nov 2026 12:00:00 GMT"
    static let defaultChunk = 256 * 1024

    let request: InFlightRequest
    let outbound: ConnectionHandler.Writer
    let channel: any Channel
    let recorder: StatsRecorder

    private var isHead: Bool { request.head.method == .HEAD }

    func respond() async throws -> Bool {
        switch request.route {
        case .bytes(let n): return try await bytes(n)
        case .upload: return try await upload()
        case .stall: return try await stall()
        case .stallHead: return try await stallHead()
        case .trickle: return try await trickle()
        case .reset: return try await reset()
        case .status(let code): return try await status(code)
        case .echo: return try await echo()
        case .delay(let ms):
            try await Task.sleep(for: .milliseconds(ms))
            return try await sendText(.ok, "ok")
        case .redirect: return try await redirect()
        case .auth(let scheme): return try await auth(scheme)
        case .notFound: return try await sendText(.notFound, "not found")
        case .badRequest(let reason): return try await sendText(.badRequest, reason)
        }
    }

    // MARK: Routes

    private func bytes(_ size: Int) async throws -> Bool {
        let etag = "\"" + (request.query["etag"] ?? "bytes-\(size)") + "\""
        let rangesEnabled = request.query["ranges"] != "0"
        let chunk = max(1, request.queryInt("chunk", default: Self.defaultChunk))
        let delay = max(0, request.queryInt("delay_ms", default: 0))

        var headers = [("ETag", etag), ("Last-Modified", Self.lastModified)]
        if rangesEnabled { headers.append(("Accept-Ranges", "bytes")) }

        var status = HTTPResponseStatus.ok
        var first = 0
        var length = size
        if rangesEnabled, let range = request.head.headers.first(name: "range"), ifRangeAllows(etag: etag) {
            switch ByteRange.parse(range, size: size) {
            case .ignore:
                break
            case .unsatisfiable:
                return try await sendBody(
                    .rangeNotSatisfiable,
                    ByteBuffer(),
                    headers: headers + [("Content-Range", "bytes */\(size)")]
                )
            case .satisfiable(let lower, let upper):
                status = .partialContent
                first = lower
                length = upper - lower + 1
                headers.append(("Content-Range", "bytes \(lower)-\(upper)/\(size)"))
            }
        }

        try await outbound.write(.head(responseHead(status, contentLength: length, headers)))
        if !isHead {
            var offset = first
            let end = first + length
            while offset < end {
                let n = min(chunk, end - offset)
                for slice in BodyPattern.slices(offset: offset, length: n) {
                    try await outbound.write(.body(.byteBuffer(slice)))
                }
                offset += n
                if delay > 0, offset < end {
                    try await Task.sleep(for: .milliseconds(delay))
                }
            }
        }
        try await outbound.write(.end(nil))
        return try await finished()
    }

    /// A Range applies only if `If-Range` is absent or names exactly the current validator.
    private func ifRangeAllows(etag: String) -> Bool {
        guard let ifRange = request.head.headers.first(name: "if-range") else { return true }
        let value = ifRange.trimmingCharacters(in: .whitespaces)
        return value == etag || value == Self.lastModified
    }

    private func upload() async throws -> Bool {
        guard request.head.method == .POST || request.head.method == .PUT else {
            return try await sendText(.methodNotAllowed, "use POST or PUT", headers: [("Allow", "POST, PUT")])
        }
        var json = "{\"bytes\":\(request.bodyBytes)"
        if let hasher = request.hasher {
            json += ",\"fnv1a\":\"\(hasher.hexString)\""
        }
        json += "}"
        return try await sendBody(.ok, ByteBuffer(string: json), contentType: "application/json")
    }

    private func stall() async throws -> Bool {
        try await outbound.write(.head(responseHead(.ok, contentLength: 100, [])))
        try await channel.closeFuture.get()
        return false
    }

    private func stallHead() async throws -> Bool {
        try await channel.closeFuture.get()
        return false
    }

    private func trickle() async throws -> Bool {
        let total = 100_000_000
        let interval = max(0, request.queryInt("interval_ms", default: 100))
        try await outbound.write(.head(responseHead(.ok, contentLength: total, [])))
        if !isHead {
            // Ends by the write failing once the client has gone; the total is never reached in practice.
            for offset in 0..<total {
                try await Task.sleep(for: .milliseconds(interval))
                try await outbound.write(.body(.byteBuffer(BodyPattern.slices(offset: offset, length: 1)[0])))
            }
        }
        try await outbound.write(.end(nil))
        return try await finished()
    }

    /// Sends part of a body, then resets the connection.
    ///
    /// Written straight to the channel rather than through the async writer so each write's
    /// future tells us the bytes reached the kernel: SO_LINGER 0 discards anything unsent, and
    /// the client should reliably see `after` bytes before the RST. Ordering against earlier
    /// writer output is safe: the pipelining handler delivers this request only after the
    /// previous response's end has gone through the pipeline.
    private func reset() async throws -> Bool {
        let total = max(0, request.queryInt("total", default: 1_048_576))
        let after = min(total, max(0, request.queryInt("after", default: 65_536)))
        try await channel.writeAndFlush(HTTPServerResponsePart.head(responseHead(.ok, contentLength: total, [])))
        if !isHead {
            for slice in BodyPattern.slices(offset: 0, length: after) {
                try await channel.writeAndFlush(HTTPServerResponsePart.body(.byteBuffer(slice)))
            }
        }
        if request.query["fin"] != "1", let options = channel as? any SocketOptionProvider {
            await Self.waitUntilAcknowledged(options)
            try? await options.setSoLinger(linger(l_onoff: 1, l_linger: 0)).get()
        }
        try? await channel.close()
        return false
    }

    /// Waits (up to a second) until the peer has acknowledged everything sent.
    ///
    /// An RST makes the kernel discard whatever is still queued for sending, so resetting
    /// straight after the writes complete would cut the body short by however much was
    /// still in flight; once acknowledged, the bytes sit in the client's receive buffer and
    /// it reads them before it sees the reset.
    private static func waitUntilAcknowledged(_ options: any SocketOptionProvider) async {
        #if os(Linux)
        let deadline = ContinuousClock.now + .seconds(1)
        while ContinuousClock.now < deadline {
            guard let info = try? await options.getTCPInfo().get() else { return }
            if info.tcpi_unacked == 0 { return }
            try? await Task.sleep(for: .milliseconds(1))
        }
        #endif
    }

    private func status(_ code: Int) async throws -> Bool {
        let status = HTTPResponseStatus(statusCode: code)
        let headers = code == 429 ? [("Retry-After", "1")] : []
        if code == 204 || code == 304 {
            // These statuses cannot carry a body, so no framing headers either.
            try await outbound.write(contentsOf: [.head(responseHead(status, contentLength: nil, headers)), .end(nil)])
            return try await finished()
        }
        return try await sendText(status, "status \(code)", headers: headers)
    }

    private func echo() async throws -> Bool {
        var headerFields: [String] = []
        var seen: [String: Int] = [:]
        var values: [String] = []
        for (name, value) in request.head.headers {
            let key = name.lowercased()
            if let index = seen[key] {
                values[index] += ", " + value
            } else {
                seen[key] = values.count
                headerFields.append(key)
                values.append(value)
            }
        }
        let headersJSON = zip(headerFields, values)
            .map { "\(JSON.string($0)):\(JSON.string($1))" }
            .joined(separator: ",")
        let json = "{\"method\":\(JSON.string(request.head.method.rawValue)),"
            + "\"uri\":\(JSON.string(request.head.uri)),"
            + "\"headers\":{\(headersJSON)},"
            + "\"bodyBytes\":\(request.bodyBytes)}"
        return try await sendBody(.ok, ByteBuffer(string: json), contentType: "application/json")
    }

    /// Challenges until the Authorization header uses `scheme`, then echoes the request (so a
    /// test sees what the client sent). The Digest challenge is fixed: checking the response
    /// hash is curl's business, not this server's.
    private func auth(_ scheme: String) async throws -> Bool {
        let authorization = request.head.headers.first(name: "authorization") ?? ""
        if authorization.lowercased().hasPrefix(scheme + " ") { return try await echo() }
        let challenge = scheme == "basic"
            ? "Basic realm=\"loopback\""
            : "Digest realm=\"loopback\", qop=\"auth\", nonce=\"6c6f6f706261636b\", algorithm=MD5"
        return try await sendText(.unauthorized, "authenticate", headers: [("WWW-Authenticate", challenge)])
    }

    private func redirect() async throws -> Bool {
        let target = request.query["to"] ?? "/bytes/10"
        let code = request.queryInt("code", default: 302)
        let status = [301, 302, 303, 307, 308].contains(code) ? HTTPResponseStatus(statusCode: code) : .found
        return try await sendBody(status, ByteBuffer(), headers: [("Location", target)])
    }

    // MARK: Writing

    private func responseHead(
        _ status: HTTPResponseStatus,
        contentLength: Int?,
        _ extra: [(String, String)]
    ) -> HTTPResponseHead {
        var headers = HTTPHeaders()
        if let contentLength {
            headers.add(name: "Content-Length", value: String(contentLength))
        }
        for (name, value) in extra {
            headers.add(name: name, value: value)
        }
        if !request.head.isKeepAlive {
            headers.add(name: "Connection", value: "close")
        } else if request.head.version.minor == 0 {
            headers.add(name: "Connection", value: "keep-alive")
        }
        return HTTPResponseHead(version: .http1_1, status: status, headers: headers)
    }

    private func sendText(
        _ status: HTTPResponseStatus,
        _ text: String,
        headers: [(String, String)] = []
    ) async throws -> Bool {
        try await sendBody(status, ByteBuffer(string: text), contentType: "text/plain; charset=utf-8", headers: headers)
    }

    private func sendBody(
        _ status: HTTPResponseStatus,
        _ body: ByteBuffer,
        contentType: String? = nil,
        headers: [(String, String)] = []
    ) async throws -> Bool {
        var extra = headers
        if let contentType { extra.insert(("Content-Type", contentType), at: 0) }
        let head = responseHead(status, contentLength: body.readableBytes, extra)
        if isHead || body.readableBytes == 0 {
            try await outbound.write(contentsOf: [.head(head), .end(nil)])
        } else {
            try await outbound.write(contentsOf: [.head(head), .body(.byteBuffer(body)), .end(nil)])
        }
        return try await finished()
    }

    /// Call after the response's end has been written; counts it and decides whether to keep the connection.
    private func finished() async throws -> Bool {
        if request.head.isKeepAlive {
            recorder.responseFinished()
            return true
        }
        // Closing outright would drop whatever still sits in the channel's write buffer;
        // closing output first waits for it to be flushed, then sends FIN.
        try await channel.close(mode: .output)
        recorder.responseFinished()
        return false
    }
}

/// Parsing of a single `Range: bytes=…` specifier.
enum ByteRange: Equatable {
    /// Malformed, multi-range or otherwise unusable: serve the whole body.
    case ignore
    case unsatisfiable
    /// Inclusive bounds.
    case satisfiable(Int, Int)

    static func parse(_ header: String, size: Int) -> ByteRange {
        let trimmed = header.trimmingCharacters(in: .whitespaces)
        guard trimmed.lowercased().hasPrefix("bytes=") else { return .ignore }
        let spec = trimmed.dropFirst("bytes=".count).trimmingCharacters(in: .whitespaces)
        guard !spec.contains(","), let dash = spec.firstIndex(of: "-") else { return .ignore }
        let lowerText = spec[..<dash].trimmingCharacters(in: .whitespaces)
        let upperText = spec[spec.index(after: dash)...].trimmingCharacters(in: .whitespaces)

        if lowerText.isEmpty {
            // Suffix range: the last N bytes.
            guard let suffix = Int(upperText), suffix >= 0 else { return .ignore }
            if suffix == 0 || size == 0 { return .unsatisfiable }
            return .satisfiable(max(0, size - suffix), size - 1)
        }
        guard let lower = Int(lowerText), lower >= 0 else { return .ignore }
        if upperText.isEmpty {
            return lower >= size ? .unsatisfiable : .satisfiable(lower, size - 1)
        }
        guard let upper = Int(upperText), upper >= lower else { return .ignore }
        return lower >= size ? .unsatisfiable : .satisfiable(lower, min(upper, size - 1))
    }
}

enum JSON {
    static func string(_ value: String) -> String {
        var out = "\""
        for scalar in value.unicodeScalars {
            switch scalar {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            case "\r": out += "\\r"
            case "\t": out += "\\t"
            case _ where scalar.value < 0x20:
                let hex = String(scalar.value, radix: 16)
                out += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
            default: out.unicodeScalars.append(scalar)
            }
        }
        return out + "\""
    }
}
