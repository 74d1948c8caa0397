import DropboxWire
import Foundation
import HTTPTypes
import Hummingbird
import NIOCore

/// `GET /s/<token>/<name>` (and HEAD): the one file a share link opens, to anyone, read-only.
///
/// No `Authorization` is asked for (BearerAuth lets `/s/` through) but the connection limits
/// hold as for every request. The request path must be exactly `/s/`, a live token, `/`, and
/// the link's name percent-encoded or not: whatever else (another name, a dot segment, an
/// encoded slash, a token of another file, a revoked, expired or deleted link) gets the same
/// bare 404, so a stranger learns nothing about what is there.
extension ClubAPI {
    func sharedFile(_ request: Request) async -> Response {
        guard let asked = Self.linkRequest(request.uri.path),
              let link = await sharedLinks.live(token: asked.token), link.name == asked.name else { return Self.linkNotFound }
        guard let path = await store.path(forID: link.fileID), let opened = try? await store.openForReading(path) else {
            // The file is gone (deleted behind the server's back): so is its link.
            await sharedLinks.forget(fileIDs: [link.fileID])
            return Self.linkNotFound
        }
        let file = opened.file
        // A note opened by a browser is a page, with the photos it references (ClubAPI+NotePage).
        if let page = await notePageAnswer(request, file: file, path: path, handle: opened.handle) { return page }
        let etag = "\"\(file.rev)\""
        var headers: HTTPFields = [
            .contentType: Self.contentType(of: file.name),
            .contentDisposition: Self.contentDisposition(file.name, download: request.uri.queryParameters["dl"] == "1"),
            .eTag: etag,
            .acceptRanges: "bytes",
            .lastModified: Self.httpDate(file.serverModified),
            // The URL is the secret: not in another site's logs, not cached by a shared proxy,
            // and never sniffed into something a browser would run.
            .cacheControl: "private, no-cache",
            HTTPField.Name("X-Content-Type-Options")!: "nosniff",
            HTTPField.Name("Referrer-Policy")!: "no-referrer",
            HTTPField.Name("Content-Security-Policy")!: "sandbox",
        ]
        // The same URL answers a browser with a page: a cached raw note must not stand in for it.
        if Self.isNote(file.name) { headers[.vary] = "Accept" }
        if let match = request.headers[.ifNoneMatch], Self.matches(match, etag: etag) {
            return Response(status: .notModified, headers: headers, body: .init())
        }
        return Self.fileResponse(request, headers: headers, etag: etag, size: file.size, handle: opened.handle)
    }

    /// A request path as the access log shows it: a share link's token is a secret, like a
    /// bearer token, so it is never written (`/s/…`), whatever spelling carried it: `/S/`,
    /// `//s/`, `/./s/`, `/%73/`, or a token percent-encoded anywhere in the path.
    static func loggedPath(_ path: String) -> String {
        let segments = lenientlyDecoded(path).split(separator: "/").filter { $0 != "." }
        if segments.first?.lowercased() == "s" { return "/s/…" }
        guard segments.contains(where: { isTokenShaped($0) }) else { return path }
        return "/" + segments.map { isTokenShaped($0) ? "…" : String($0) }.joined(separator: "/")
    }

    /// Percent-decoding that keeps what does not decode (for the log, never for a lookup).
    private static func lenientlyDecoded(_ text: String) -> String {
        var bytes: [UInt8] = []
        let input = Array(text.utf8)
        var index = 0
        while index < input.count {
            if input[index] == UInt8(ascii: "%"), index + 2 < input.count, let high = hexValue(input[index + 1]), let low = hexValue(input[index + 2]) {
                bytes.append(high << 4 | low)
                index += 3
            } else {
                bytes.append(input[index])
                index += 1
            }
        }
        return String(decoding: bytes, as: UTF8.self)
    }

    static var linkNotFound: Response {
        Response(status: .notFound, headers: [.contentType: "text/plain; charset=utf-8", .cacheControl: "no-store"],
                 body: .init(byteBuffer: ByteBuffer(string: "This link does not exist, or no longer does.\n")))
    }

    /// The token and the decoded name of `/s/<token>/<name>`, or nil for any other shape.
    package static func linkRequest(_ rawPath: String) -> (token: String, name: String)? {
        let parts = rawPath.split(separator: "/", omittingEmptySubsequences: false)
        guard parts.count == 4, parts[0].isEmpty, parts[1] == "s", isTokenShaped(parts[2]),
              let name = percentDecoded(parts[3]), !name.isEmpty, name != ".", name != "..",
              !name.contains("/"), !name.contains("\0") else { return nil }
        return (String(parts[2]), name)
    }

    /// Strict percent-decoding: a `%` not followed by two hex digits, or bytes that are not
    /// UTF-8, give nil.
    static func percentDecoded(_ text: Substring) -> String? {
        var bytes: [UInt8] = []
        var iterator = Array(text.utf8).makeIterator()
        while let byte = iterator.next() {
            guard byte == UInt8(ascii: "%") else { bytes.append(byte); continue }
            guard let high = iterator.next().flatMap(hexValue), let low = iterator.next().flatMap(hexValue) else { return nil }
            bytes.append(high << 4 | low)
        }
        return String(validating: bytes, as: UTF8.self)
    }

    private static func hexValue(_ byte: UInt8) -> UInt8? {
        switch byte {
        case 0x30...0x39: return byte - 0x30
        case 0x41...0x46: return byte - 0x41 + 10
        case 0x61...0x66: return byte - 0x61 + 10
        default: return nil
        }
    }

    /// `If-None-Match`: `*` or a list holding our tag (weak or not).
    package static func matches(_ header: String, etag: String) -> Bool {
        header.split(separator: ",").contains { candidate in
            let tag = candidate.trimmingCharacters(in: .whitespaces)
            return tag == "*" || tag == etag || tag == "W/" + etag
        }
    }

    /// Pictures and plain text show in the browser; anything else is a download, as
    /// `application/octet-stream`, so a shared `.html` or `.svg` never runs in this origin.
    static func contentType(of name: String) -> String {
        switch (name as NSString).pathExtension.lowercased() {
        case "jpg", "jpeg": return "image/jpeg"
        case "png": return "image/png"
        case "gif": return "image/gif"
        case "webp": return "image/webp"
        case "txt", "md": return "text/plain; charset=utf-8"
        default: return "application/octet-stream"
        }
    }

    /// RFC 6266: `inline` for what a browser may show, else (or for `?dl=1`) `attachment`; `filename` an ASCII
    /// stand-in (no quotes, backslashes or controls), `filename*` the real name (RFC 8187).
    static func contentDisposition(_ name: String, download: Bool = false) -> String {
        let kind = download || contentType(of: name) == "application/octet-stream" ? "attachment" : "inline"
        let fallback = String(name.unicodeScalars.map { scalar -> Character in
            scalar.isASCII && scalar.value >= 0x20 && scalar.value < 0x7F && scalar != "\"" && scalar != "\\" && scalar != "%" ? Character(scalar) : "_"
        })
        return "\(kind); filename=\"\(fallback)\"; filename*=UTF-8''\(percentEncoded(name))"
    }

    static func httpDate(_ date: Date) -> String {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "GMT")
        formatter.dateFormat = "EEE, dd MMM yyyy HH:mm:ss 'GMT'"
        return formatter.string(from: date)
    }
}
