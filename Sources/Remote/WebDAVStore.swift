import Dispatch
import Foundation
import Logging
import Synchronization
import Transfer

/// A club folder on a WebDAV server (Nextcloud, ownCloud, Apache, a NAS, `rclone serve webdav`),
/// over the same Transfer session as everything else.
///
/// Paths are the Dropbox-style paths of ``RemoteStore`` ("/byteclub/a.txt"), below the folder
/// the store was made for (`root`); each component is percent-encoded on the way out, and hrefs
/// are percent-decoded on the way back, so names may hold any Unicode. A file's `rev` is its
/// ETag in one canonical form (``WebDAVEntityTag``), whichever answer (GET or PROPFIND) gave it.
///
/// Writes that must not overwrite someone else's change (an update from the rev a note was
/// opened at, an `add` that must not replace) are protected by what the server can do
/// (`WebDAVStore+Upload.swift`, `docs/webdav.md`): the bytes go to a hidden temporary name
/// first, then a LOCK around a compare-and-MOVE puts them in place where the server supports
/// locking (DAV class 2), an `If` condition on the MOVE otherwise; a cut-off PUT never touches
/// the file. The live club's cursors and longpolls work by polling (`WebDAVStore+Changes.swift`);
/// revisions and accounts are not WebDAV's: those throw `.notSupported`, and so do thumbnails,
/// which the app makes from the JPEG.
public final class WebDAVStore: RemoteStore, Sendable {
    public let displayName: String
    /// The folder that "" stands for, ending in "/".
    public let root: URL
    /// The root's path, percent-decoded, ending in "/": what hrefs are matched against.
    let rootPath: String
    let session: Session
    let router: ProgressRouter
    let retry: RetryPolicy
    public let listingLimits: ListingLimits
    let logger: Logger
    /// What the server said it can do, asked once (OPTIONS) before the first protected write.
    let capabilities = Mutex<WebDAVCapabilities?>(nil)
    /// The live club's polling (WebDAVStore+Changes.swift): its schedule, this store's last
    /// own write and what polling has cost.
    public let polling = WebDAVPolling()

    /// A store on `root` with `configuration`'s credentials. Use ``connect(url:user:password:connection:retry:logger:listingLimits:)``
    /// to find the server's authentication scheme and check the password first.
    public init(root: URL, displayName: String? = nil, configuration: SessionConfiguration, retry: RetryPolicy = RetryPolicy(),
                logger: Logger = Logger(label: "byteclub.webdav"), listingLimits: ListingLimits = .standard) {
        let root = Self.folderURL(root)
        self.root = root
        // The percent-encoded path, decoded once (`URL.path` is decoded already: decoding it
        // again would turn a folder literally named "a%41" into "aA").
        self.rootPath = Self.decodedPath(root.absoluteString, folder: true)
        self.displayName = displayName ?? Self.publicName(root)
        self.retry = retry
        self.logger = logger
        self.listingLimits = listingLimits
        let router = ProgressRouter()
        self.router = router
        self.session = Session(configuration: configuration, delegate: router, delegateQueue: DispatchQueue(label: "byteclub.webdav.callbacks"))
    }

    deinit {
        session.invalidateAndCancel()
    }

    // MARK: - Paths

    /// `url` with a trailing slash and without user or password (they go through Credentials).
    static func folderURL(_ url: URL) -> URL {
        var components = URLComponents(url: url, resolvingAgainstBaseURL: false) ?? URLComponents()
        components.user = nil
        components.password = nil
        components.query = nil
        components.fragment = nil
        if !components.percentEncodedPath.hasSuffix("/") { components.percentEncodedPath += "/" }
        return components.url ?? url
    }

    /// What the status bar shows: the URL without credentials.
    static func publicName(_ root: URL) -> String {
        root.absoluteString
    }

    /// The characters left as they are in a path component: RFC 3986's unreserved set.
    private static let unreserved: CharacterSet = {
        var set = CharacterSet()
        set.insert(charactersIn: "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~")
        return set
    }()

    /// The URL of a Dropbox-style path; `folder` adds the trailing slash collections take.
    func url(_ path: String, folder: Bool = false) throws(RemoteError) -> URL {
        let parts = path.split(separator: "/", omittingEmptySubsequences: false).dropFirst()
        guard path.isEmpty || (path.hasPrefix("/") && !parts.contains { $0.isEmpty || $0 == "." || $0 == ".." }) else {
            throw .malformedPath(path)
        }
        var encoded = root.absoluteString
        for (index, part) in parts.enumerated() {
            guard let component = String(part).addingPercentEncoding(withAllowedCharacters: Self.unreserved) else { throw .malformedPath(path) }
            encoded += component + (index == parts.count - 1 && !folder ? "" : "/")
        }
        guard let url = URL(string: encoded) else { throw .malformedPath(path) }
        return url
    }

    /// A percent-decoded href path (`href` may be a whole URL), with a trailing slash when `folder`.
    static func decodedPath(_ href: String, folder: Bool) -> String {
        var path = href
        if let url = URL(string: href), url.scheme != nil {
            path = URLComponents(url: url, resolvingAgainstBaseURL: false)?.percentEncodedPath ?? url.path
        }
        var decoded = path.removingPercentEncoding ?? path
        if folder, !decoded.hasSuffix("/") { decoded += "/" }
        return decoded
    }

    /// The Dropbox-style path of an href below the root, or nil when it lies outside it.
    func storePath(ofHref href: String) -> String? {
        var decoded = Self.decodedPath(href, folder: false)
        if decoded.hasSuffix("/"), decoded.count > 1 { decoded.removeLast() }
        let root = rootPath.hasSuffix("/") ? String(rootPath.dropLast()) : rootPath
        guard decoded == root || decoded.hasPrefix(root + "/") else { return nil }
        return String(decoded.dropFirst(root.count))
    }

    /// The entry for one PROPFIND response; nil for one outside the root.
    func entry(_ resource: WebDAVResource) -> RemoteEntry? {
        guard let path = storePath(ofHref: resource.href) else { return nil }
        let name = path.split(separator: "/").last.map(String.init) ?? ""
        if resource.isCollection {
            return RemoteEntry(kind: .folder, name: name, path: path, id: resource.fileID.map { "oc:" + $0 })
        }
        return RemoteEntry(kind: .file, name: name, path: path, id: resource.fileID.map { "oc:" + $0 }, rev: WebDAVEntityTag.canonical(resource.etag),
                           size: resource.contentLength ?? 0, modified: resource.lastModified)
    }

    // MARK: - Requests

    /// What came back from one exchange.
    struct Reply: Sendable {
        var body: Data
        var response: HTTPResponse?
        var error: TransferError?

        var status: Int { response?.statusCode ?? 0 }
        func header(_ name: String) -> String? { response?.value(forHeader: name) }
    }

    enum Body: Sendable {
        case none
        case data(Data)
        case file(URL)
    }

    /// Sends one request and waits, cancelling the transfer if the Swift task is cancelled.
    func exchange(_ method: String, _ url: URL, headers: [String: String] = [:], body: Body = .none,
                  progress: ProgressHandler? = nil) async -> Reply {
        let request = Request(url: url, method: method, headers: headers)
        let box = TaskBox()
        return await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Reply, Never>) in
                let handler: @Sendable (Data?, HTTPResponse?, TransferError?) -> Void = { [polling] data, response, error in
                    // An own write makes the live club poll more often for a while.
                    polling.finished(method, succeeded: error == nil)
                    continuation.resume(returning: Reply(body: data ?? Data(), response: response, error: error))
                }
                let task: TransferTask
                switch body {
                case .none:
                    task = session.dataTask(with: request, completionHandler: handler)
                case .data(let data):
                    task = session.uploadTask(with: request, fromData: data, completionHandler: handler)
                case .file(let file):
                    task = session.uploadTask(with: request, fromFile: file, completionHandler: handler)
                }
                if let progress { router.register(task, progress) }
                box.set(task)
                task.resume()
            }
        } onCancel: {
            box.cancel()
        }
    }

    /// One request, its failure thrown as a `RemoteError` about `path`.
    func send(_ method: String, _ url: URL, path: String, headers: [String: String] = [:], body: Body = .none,
              progress: ProgressHandler? = nil) async throws(RemoteError) -> Reply {
        let reply = await exchange(method, url, headers: headers, body: body, progress: progress)
        if let error = reply.error { throw Self.remoteError(error, response: reply.response, path: path, method: method) }
        return reply
    }

    /// PROPFIND with `depth` ("0" or "1"; always sent, since none means infinity), parsed.
    func propfind(_ path: String, depth: String) async throws(RemoteError) -> [WebDAVResource] {
        try await withRetries(idempotent: true) { () async throws(RemoteError) -> [WebDAVResource] in
            let url = try self.url(path, folder: depth != "0")
            let reply = try await self.send("PROPFIND", url, path: path, headers: ["Depth": depth, "Content-Type": "application/xml; charset=utf-8"],
                                            body: .data(Self.propfindBody))
            guard reply.status == 207 else {
                throw RemoteError.server(status: reply.status, detail: "PROPFIND answered \(reply.status), not a multistatus")
            }
            return try WebDAVMultistatus.parse(reply.body)
        }
    }

    /// The properties byteclub reads; `oc:fileid` is only answered by Nextcloud and ownCloud.
    static let propfindBody = Data("""
        <?xml version="1.0" encoding="utf-8"?>
        <d:propfind xmlns:d="DAV:" xmlns:oc="http://owncloud.org/ns"><d:prop>\
        <d:resourcetype/><d:getetag/><d:getcontentlength/><d:getlastmodified/><oc:fileid/>\
        </d:prop></d:propfind>
        """.utf8)

    // MARK: - Errors and retries

    /// The typed error an HTTP status or a transfer failure stands for.
    static func remoteError(_ error: TransferError, response: HTTPResponse?, path: String, method: String) -> RemoteError {
        guard case .httpStatus(let status, let body) = error else {
            return DropboxStore.remoteError(error, response: response, path: path)
        }
        switch status {
        case 401: return .unauthorized
        case 403: return .server(status: 403, detail: "the server refused \(method) on \(path.isEmpty ? "/" : path)")
        case 404, 410: return .notFound(path)
        // A write whose parent folder is missing answers 409; an existing name for MKCOL 405.
        case 409: return ["PUT", "MKCOL", "MOVE", "COPY", "LOCK"].contains(method) ? .notFound(path) : .conflict(path)
        case 405 where method == "MKCOL": return .conflict(path)
        case 412, 423: return .conflict(path)
        case 414: return .malformedPath(path)
        case 429, 503 where response?.value(forHeader: "Retry-After") != nil:
            return .rateLimited(retryAfter: DropboxStore.retryAfter(response: response, body: Data()))
        case 507: return .insufficientSpace
        default:
            let text = String(decoding: body.prefix(200), as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
            return .server(status: status, detail: text.isEmpty || text.hasPrefix("<") ? "\(method) answered HTTP \(status)" : text)
        }
    }

    /// Runs `attempt` until it succeeds, fails for good, or the retries run out: rate limits
    /// always, other transient failures only when `idempotent`.
    func withRetries<T>(idempotent: Bool, _ attempt: () async throws(RemoteError) -> T) async throws(RemoteError) -> T {
        var tries = 0
        while true {
            do {
                return try await attempt()
            } catch {
                if Task.isCancelled || error == .cancelled { throw .cancelled }
                tries += 1
                try await retry.pause(after: error, tries: tries, idempotent: idempotent, logger: logger)
            }
        }
    }
}

/// What a WebDAV server said it can do (its OPTIONS answer).
public struct WebDAVCapabilities: Sendable, Equatable {
    /// The `DAV:` header's compliance classes ("1", "2", "3", …).
    public var classes: Set<String>
    /// Class 2: LOCK and UNLOCK work.
    public var locking: Bool { classes.contains("2") }

    public init(davHeader: String?) {
        classes = Set((davHeader ?? "").split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty })
    }
}
