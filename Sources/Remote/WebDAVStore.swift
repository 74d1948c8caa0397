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
    /// A WebDAV server keeps no revisions: what is deleted or overwritten is gone.
    public var keepsHistory: Bool { false }
    public var cursorIsAWholeListing: Bool { true }
    public var namesIgnoreCase: Bool { false }
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
        // A request's tries wait no longer in all than a request may go without a byte.
        self.retry = retry.waiting(atMost: configuration.timeoutIntervalForRequest)
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

    /// The Dropbox-style path of an href below the root ("" for the root itself), or nil when
    /// it lies outside it: another path, or a whole URL naming another scheme, host or port.
    ///
    /// Compared with a trailing slash on both sides, so the folder's own entry is never taken
    /// for an intruder, not even when the root is the server's `/` (as `rclone serve webdav
    /// DIR` serves it), whose entry is the href `/`.
    func storePath(ofHref href: String) -> String? {
        guard isSameOrigin(href) else { return nil }
        let decoded = Self.decodedPath(href, folder: true)
        guard decoded.hasPrefix(rootPath) else { return nil }
        let rest = decoded.dropFirst(rootPath.count).dropLast()
        return rest.isEmpty ? "" : "/" + rest
    }

    /// Whether an href is a path (on the root's server, as RFC 4918 means) or a whole URL with
    /// the root's scheme, host and port (the scheme's default port when none is written).
    func isSameOrigin(_ href: String) -> Bool {
        guard let url = URL(string: href), let scheme = url.scheme?.lowercased() else { return !href.hasPrefix("//") }
        func port(_ url: URL) -> Int? { url.port ?? ["http": 80, "https": 443][url.scheme?.lowercased() ?? ""] }
        return scheme == root.scheme?.lowercased() && url.host?.lowercased() == root.host?.lowercased() && port(url) == port(root)
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
        /// A body made as it is sent.
        case source(any UploadSource)
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
                case .source(let source):
                    task = session.uploadTask(with: request, fromSource: source, offset: 0, length: source.length, completionHandler: handler)
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
        var resources: [WebDAVResource] = []
        try await propfind(path, depth: depth) { resources.append($0) }
        return resources
    }

    /// PROPFIND with `depth`, each response handed to `each` as it is parsed, while the answer
    /// is still arriving (``WebDAVMultistatus/parseArriving(_:batch:deliver:)``): the first
    /// entries of a 100,000-entry listing are handed over long before its last byte is in, and
    /// neither its XML nor a copy of it is held in memory.
    ///
    /// Only the request is retried, and only while no response was handed over (`each` would see
    /// them twice): an answer that arrived whole but does not parse would not parse the next
    /// time either, so it fails at once as a bad answer (a `.server` error).
    ///
    /// `body` asks for the properties (the listing's, ``propfindBody``, unless given).
    func propfind(_ path: String, depth: String, body: Data = WebDAVStore.propfindBody,
                  _ each: (WebDAVResource) throws(RemoteError) -> Void) async throws(RemoteError) {
        let url = try self.url(path, folder: depth != "0")
        var tries = 0
        while true {
            var delivered = false, answered = false
            do throws(RemoteError) {
                try await propfindArriving(url, path: path, depth: depth, body: body, answered: &answered) { (resource) throws(RemoteError) -> Void in
                    delivered = true
                    try each(resource)
                }
                retry.budget.answered()
                return
            } catch {
                if delivered || answered || Task.isCancelled || error == .cancelled { throw Task.isCancelled ? .cancelled : error }
                tries += 1
                try await retry.pause(after: error, tries: tries, idempotent: true, logger: logger)
            }
        }
    }

    /// One PROPFIND, its answer parsed on a thread of its own as it arrives, the responses
    /// handed to `each` here, in order. An error `each` throws stops the request. `answered`
    /// says the server's answer came (what failed then was the answer, not the request).
    private func propfindArriving(_ url: URL, path: String, depth: String, body: Data, answered: inout Bool,
                                  _ each: (WebDAVResource) throws(RemoteError) -> Void) async throws(RemoteError) {
        let spool = try MultistatusSpool(directory: session.configuration.temporaryDirectory, limit: maxMultistatusBytes)
        let (batches, feed) = AsyncStream<[WebDAVResource]>.makeStream()
        let parsed = Mutex<RemoteError?>(nil)
        let parser = Thread {
            let failure = WebDAVMultistatus.parseArriving(spool) { feed.yield($0) }
            parsed.withLock { $0 = failure }
            feed.finish()
        }
        parser.name = "byteclub-propfind"
        parser.start()
        let request = Request(url: url, method: "PROPFIND", headers: ["Depth": depth, "Content-Type": "application/xml; charset=utf-8"],
                              body: body)
        let receiver = StreamReceiver(accept: { $0.statusCode == 207 }, write: { data, offset in try spool.write(data, at: offset) })
        async let received = Self.receive(session.dataTask(with: request), receiver, router: router, spool: spool)
        var stopped: RemoteError?
        for await batch in batches where stopped == nil {
            do throws(RemoteError) {
                for resource in batch { try each(resource) }
            } catch {
                // Stop the parser and the request; the stream still ends (the parser finishes it).
                stopped = error
                spool.abandon()
                receiver.cancel()
            }
        }
        // A cancelled task leaves the loop early: the parser is let go, the request cancels.
        if Task.isCancelled { spool.abandon() }
        let outcome = await received
        if let stopped { throw stopped }
        if Task.isCancelled { throw .cancelled }
        // An answer turned down (a success other than 207) is cancelled: it is said as what it
        // was, not as the cancellation.
        answered = outcome.error == nil || outcome.writeFailure != nil || !outcome.accepted
        if outcome.writeFailure is MultistatusSpool.TooLong {
            throw .server(status: 0, detail: "the answer to PROPFIND of \(path.isEmpty ? "/" : path) passed \(spool.limit >= 1 << 20 ? "\(spool.limit >> 20) MiB" : "\(spool.limit) bytes"); stopped")
        }
        if let failure = outcome.writeFailure { throw .local("cannot write the WebDAV answer: \(failure)") }
        if outcome.accepted, let error = outcome.error { throw Self.remoteError(error, response: outcome.response, path: path, method: "PROPFIND") }
        guard outcome.accepted, let response = outcome.response, response.statusCode == 207 else {
            let status = outcome.response?.statusCode ?? 0
            throw .server(status: status, detail: "PROPFIND answered \(status), not a multistatus")
        }
        if let failure = parsed.withLock({ $0 }) { throw failure }
    }

    /// Runs the request, then ends the spool, whole or not, so the parser reading it finishes.
    private static func receive(_ task: TransferTask, _ receiver: StreamReceiver, router: ProgressRouter,
                                spool: MultistatusSpool) async -> StreamReceiver.Outcome {
        let outcome = await receiver.run(task, router: router)
        spool.end()
        return outcome
    }

    /// The most bytes a multistatus answer may have: far more than any listing within the entry
    /// limit needs (a response is a few hundred bytes), but not a disk filled by a server that
    /// never stops answering.
    var maxMultistatusBytes: Int64 { Int64(listingLimits.maxEntries) * 8192 }

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
            return DropboxStore.remoteError(error, response: response, path: path, credential: .webdavPassword)
        }
        if let gateway = DropboxStore.gatewayError(status, response: response, body: body) { return gateway }
        switch status {
        case 401: return .unauthorized(.webdavPassword)
        case 403 where ["PUT", "MKCOL", "MOVE", "COPY", "DELETE", "PROPPATCH", "LOCK"].contains(method):
            return .forbidden("The WebDAV server does not let this user change \(path.isEmpty ? "/" : path) (\(method) refused: 403 Forbidden)")
        case 403: return .server(status: 403, detail: "the server refused \(method) on \(path.isEmpty ? "/" : path)")
        case 404, 410: return .notFound(path)
        // A write whose parent folder is missing answers 409; an existing name for MKCOL 405.
        case 409: return ["PUT", "MKCOL", "MOVE", "COPY", "LOCK"].contains(method) ? .notFound(path) : .conflict(path)
        case 405 where method == "MKCOL": return .conflict(path)
        // A GET the server will not answer is a folder's (rclone's answer): said as Dropbox says it.
        case 405 where method == "GET": return .server(status: 409, detail: "path/not_file/")
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
                let answer = try await attempt()
                retry.budget.answered()
                return answer
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
