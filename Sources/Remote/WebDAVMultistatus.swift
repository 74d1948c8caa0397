import Foundation
#if canImport(FoundationXML)
import FoundationXML
#endif

/// One `<response>` of a WebDAV `207 Multi-Status` answer to PROPFIND, with the properties
/// byteclub reads from its `200` propstat.
public struct WebDAVResource: Sendable, Equatable {
    /// The `<href>` as sent (percent-encoded; a path or a whole URL).
    public var href: String
    public var isCollection: Bool
    /// `getetag`, as sent (quotes and any `W/` kept): a file's rev.
    public var etag: String?
    public var contentLength: Int64?
    /// `getlastmodified` (an RFC 1123 date).
    public var lastModified: Date?
    /// Nextcloud's and ownCloud's `oc:fileid`, when the server has one.
    public var fileID: String?
    /// The status of the whole response when it has no propstat (`<status>` directly), e.g. 404.
    public var status: Int?
    /// byteclub's own dead property, the file's tags (``WebDAVStore/tagsProperty``), when asked
    /// for and the file has it.
    public var tags: String?
}

/// A PROPFIND answer, parsed with a real XML parser (FoundationXML on libxml2) with namespace
/// processing on: elements are told apart by namespace URI and local name, never by prefix,
/// so `<D:href>`, `<d:href>`, `<href xmlns="DAV:">` and `<x:href xmlns:x="DAV:">` are all the
/// same and `<oc:href>` is not.
///
/// Only properties inside a propstat whose status is 2xx count; the values of 404 propstats
/// (properties the server does not have) are ignored. External entities are not resolved.
///
/// **Always as a stream.** `XMLParser(data:)` hands libxml2 the whole answer as one chunk, and
/// libxml2 (2.9, without `XML_PARSE_HUGE`, which FoundationXML never sets) stops any push parse
/// whose unparsed input passes 10,000,000 bytes with "Huge input lookup" (`XML_ERR_INTERNAL_ERROR`,
/// NSXMLParserErrorDomain error 1): every listing of about 21,000 entries or more failed, after
/// the whole answer had been read. `XMLParser(stream:)` feeds it 128 KiB at a time, and libxml2
/// drops what it has parsed before each chunk, so an answer of any length parses, in memory
/// that does not grow with it.
public enum WebDAVMultistatus {
    static let dav = "DAV:"
    static let owncloud = "http://owncloud.org/ns"

    /// The responses, in the server's order; throws when the body is not a multistatus.
    public static func parse(_ data: Data) throws(RemoteError) -> [WebDAVResource] {
        var resources: [WebDAVResource] = []
        try parse(InputStream(data: try checkedBody(data))) { resources.append($0) }
        return resources
    }

    static func parse(_ stream: InputStream, _ each: (WebDAVResource) throws(RemoteError) -> Void) throws(RemoteError) {
        try withoutActuallyEscaping(each) { (each) throws(RemoteError) -> Void in
            let delegate = Reader(each: each)
            let parser = streamingParser(stream)
            parser.delegate = delegate
            let parsed = parser.parse()
            if let failure = delegate.failure { throw failure }
            guard parsed, delegate.sawMultistatus, delegate.closedMultistatus else {
                throw .server(status: 0, detail: "the server's PROPFIND answer was not a WebDAV multistatus\(reason(parser))")
            }
        }
    }

    /// A parser that reads `stream` a chunk at a time, namespaces processed, no external entities.
    static func streamingParser(_ stream: InputStream) -> XMLParser {
        let parser = XMLParser(stream: stream)
        parser.shouldProcessNamespaces = true
        parser.shouldReportNamespacePrefixes = false
        parser.shouldResolveExternalEntities = false
        return parser
    }

    /// " (XML error 76 at line 3)": libxml2's code and where, since FoundationXML's description
    /// of the error says nothing more than its number.
    static func reason(_ parser: XMLParser) -> String {
        guard let error = parser.parserError as NSError? else { return " (it ended before the multistatus closed)" }
        return " (XML error \(error.code) at line \(parser.lineNumber))"
    }

    /// The answer as handed to the XML parser: refused unless it is UTF-8, without its XML
    /// declaration, and refused if it holds a processing instruction.
    ///
    /// Each guards a crash a fuzzer found in FoundationXML on libxml2 (`byteclub ls` taken down by
    /// a server's answer): an element name with bytes that are not UTF-8 traps (even under a
    /// malformed declaration naming ISO-8859-1, which libxml2 ignores); a processing instruction
    /// without data (`<?x?>`, or what libxml2 makes of a malformed `<?xml versid=…`) is read
    /// through a null pointer. WebDAV servers answer in UTF-8 (RFC 4918) and a multistatus has no
    /// processing instruction, so once the bytes are known to be UTF-8 the declaration says
    /// nothing the parser needs, and it is dropped rather than parsed.
    static func checkedBody(_ data: Data) throws(RemoteError) -> Data {
        guard String(validating: data, as: UTF8.self) != nil else { throw refusal("it is not UTF-8 text") }
        var body = data[...]
        let prefix = try declarationLength(of: body)
        body = body.dropFirst(prefix)
        if body.firstRange(of: Data("<?".utf8)) != nil { throw refusal("it holds a processing instruction") }
        return Data(body)
    }

    private static func declarationLength(of body: Data.SubSequence) throws(RemoteError) -> Int {
        try MultistatusScreen.declarationLength(of: Data(body))
    }

    private static func refusal(_ why: String) -> RemoteError { MultistatusScreen.refusal(why) }

    /// "Sun, 22 Nov 2026 19:01:21 GMT" (RFC 1123, as `getlastmodified` and `Last-Modified` are
    /// written). Parsed by hand: a DateFormatter would load ICU's locale data, a few MiB of
    /// resident memory in every `byteclub get`, for one fixed English format.
    package static func date(_ text: String) -> Date? {
        let parts = text.trimmingCharacters(in: .whitespacesAndNewlines).split(separator: " ")
        guard parts.count == 6, parts[5] == "GMT" || parts[5] == "UTC",
              let day = Int(parts[1]), let month = months.firstIndex(of: parts[2].lowercased()), let year = Int(parts[3]) else { return nil }
        let clock = parts[4].split(separator: ":").compactMap { Int($0) }
        guard clock.count == 3, (1...31).contains(day), (0...23).contains(clock[0]), (0...59).contains(clock[1]), (0...60).contains(clock[2]) else {
            return nil
        }
        // Days since 1970-01-01 of a proleptic Gregorian date (Howard Hinnant's days_from_civil).
        let y = month < 2 ? year - 1 : year
        let era = (y >= 0 ? y : y - 399) / 400
        let yearOfEra = y - era * 400
        let shifted = (month + 10) % 12
        let dayOfYear = (153 * shifted + 2) / 5 + day - 1
        let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
        let days = era * 146_097 + dayOfEra - 719_468
        return Date(timeIntervalSince1970: TimeInterval(days * 86_400 + clock[0] * 3600 + clock[1] * 60 + clock[2]))
    }

    private static let months = ["jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec"]

    /// "HTTP/1.1 404 Not Found" → 404.
    static func statusCode(_ line: String) -> Int? {
        let parts = line.split(separator: " ")
        return parts.count >= 2 ? Int(parts[1]) : nil
    }

    /// The parser's delegate: a small state machine over the element stack. It lives and
    /// dies inside one `parse` call, on one thread.
    private final class Reader: NSObject, XMLParserDelegate {
        /// Takes each response as it closes.
        private let each: (WebDAVResource) throws(RemoteError) -> Void
        /// What `each` threw; the parse was aborted then.
        var failure: RemoteError?
        var sawMultistatus = false
        /// The root closed: a cut-off answer (which libxml2 may let pass) is not a listing.
        var closedMultistatus = false
        /// (namespace, local name) of each open element.
        private var stack: [(String, String)] = []
        private var text = ""
        /// The response being read, and the properties of its current propstat.
        private var response: WebDAVResource?
        private var props = WebDAVResource(href: "", isCollection: false)
        private var propstatStatus: Int?

        init(each: @escaping (WebDAVResource) throws(RemoteError) -> Void) {
            self.each = each
        }

        func parser(_ parser: XMLParser, didStartElement elementName: String, namespaceURI: String?, qualifiedName qName: String?,
                    attributes attributeDict: [String: String] = [:]) {
            let element = (namespaceURI ?? "", elementName)
            stack.append(element)
            text = ""
            guard element.0 == WebDAVMultistatus.dav else { return }
            switch element.1 {
            case "multistatus" where stack.count == 1:
                sawMultistatus = true
            case "response":
                response = WebDAVResource(href: "", isCollection: false)
            case "propstat":
                props = WebDAVResource(href: "", isCollection: false)
                propstatStatus = nil
            case "collection" where inside("resourcetype"):
                props.isCollection = true
            default:
                break
            }
        }

        func parser(_ parser: XMLParser, foundCharacters string: String) {
            text += string
        }

        func parser(_ parser: XMLParser, foundCDATA CDATABlock: Data) {
            text += String(decoding: CDATABlock, as: UTF8.self)
        }

        func parser(_ parser: XMLParser, didEndElement elementName: String, namespaceURI: String?, qualifiedName qName: String?) {
            let element = stack.popLast() ?? ("", elementName)
            defer { text = "" }
            let value = text.trimmingCharacters(in: .whitespacesAndNewlines)
            switch element {
            case (WebDAVMultistatus.dav, "href") where parentIs("response"):
                response?.href = value
            case (WebDAVMultistatus.dav, "status") where parentIs("propstat"):
                propstatStatus = WebDAVMultistatus.statusCode(value)
            case (WebDAVMultistatus.dav, "status") where parentIs("response"):
                response?.status = WebDAVMultistatus.statusCode(value)
            case (WebDAVMultistatus.dav, "getetag") where inside("prop"):
                props.etag = value.isEmpty ? nil : value
            case (WebDAVMultistatus.dav, "getcontentlength") where inside("prop"):
                // A negative length is no length (a fuzzer's finding): it would be a file's size.
                props.contentLength = Int64(value).flatMap { $0 >= 0 ? $0 : nil }
            case (WebDAVMultistatus.dav, "getlastmodified") where inside("prop"):
                props.lastModified = WebDAVMultistatus.date(value)
            case (WebDAVMultistatus.owncloud, "fileid") where inside("prop"):
                props.fileID = value.isEmpty ? nil : value
            case (WebDAVStore.tagsNamespace, WebDAVStore.tagsProperty) where inside("prop"):
                props.tags = value
            case (WebDAVMultistatus.dav, "propstat"):
                // Only a 2xx propstat (or one with no status at all) says what the resource has.
                if let status = propstatStatus, !(200..<300).contains(status) { break }
                guard var current = response else { break }
                if props.isCollection { current.isCollection = true }
                if let etag = props.etag { current.etag = etag }
                if let length = props.contentLength { current.contentLength = length }
                if let date = props.lastModified { current.lastModified = date }
                if let id = props.fileID { current.fileID = id }
                if let tags = props.tags { current.tags = tags }
                response = current
            case (WebDAVMultistatus.dav, "multistatus") where stack.isEmpty:
                closedMultistatus = true
            case (WebDAVMultistatus.dav, "response"):
                defer { response = nil }
                guard failure == nil, let response, !response.href.isEmpty else { break }
                do throws(RemoteError) {
                    try each(response)
                } catch {
                    failure = error
                    parser.abortParsing()
                }
            default:
                break
            }
        }

        /// Whether the element enclosing the one just closed (the stack's top, after popping
        /// it) is DAV's `local`.
        private func parentIs(_ local: String) -> Bool {
            guard let parent = stack.last else { return false }
            return parent.0 == WebDAVMultistatus.dav && parent.1 == local
        }

        private func inside(_ local: String) -> Bool {
            stack.contains { $0.0 == WebDAVMultistatus.dav && $0.1 == local }
        }
    }
}
