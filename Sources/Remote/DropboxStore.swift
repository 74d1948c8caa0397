import Dispatch
import DropboxWire
import Foundation
import Logging
import Synchronization
import Transfer

/// Where a Dropbox-v2 API lives. Real Dropbox splits RPC, content and notify (longpoll) hosts;
/// a club server has one.
public struct DropboxEndpoints: Sendable, Equatable {
    public var rpc: URL
    public var content: URL
    /// Where `list_folder/longpoll` goes, without the Authorization header.
    public var notify: URL

    /// `notify` defaults to the RPC host.
    public init(rpc: URL, content: URL, notify: URL? = nil) {
        self.rpc = rpc
        self.content = content
        self.notify = notify ?? rpc
    }

    public static let dropbox = DropboxEndpoints(rpc: URL(string: "https://api.dropboxapi.com")!, content: URL(string: "https://content.dropboxapi.com")!,
                                                 notify: URL(string: "https://notify.dropboxapi.com")!)

    public static func club(_ base: URL) -> DropboxEndpoints { DropboxEndpoints(rpc: base, content: base) }
}

/// Supplies the bearer token for each request.
public protocol AccessTokenProvider: Sendable {
    func accessToken() async throws(RemoteError) -> String
    /// Called when the server said the token expired; true if a fresh one is now available.
    func refreshAfterExpiry() async -> Bool
    /// What the token is, for the message when the server refuses it.
    var credential: RemoteError.Credential { get }
}

/// A fixed token: the embedded server and club servers.
public struct StaticToken: AccessTokenProvider {
    let token: String
    public init(_ token: String) { self.token = token }
    public func accessToken() async throws(RemoteError) -> String { token }
    public func refreshAfterExpiry() async -> Bool { false }
    /// A fixed token is a member's: a club's admin gives it, in an invite.
    public var credential: RemoteError.Credential { .memberToken }
}

/// How hard to try again after transient failures.
public struct RetryPolicy: Sendable {
    public var maxAttempts = 8
    public var baseDelay: TimeInterval = 0.2
    public var maxDelay: TimeInterval = 10
    /// The longest `Retry-After` we wait for before giving up with `.rateLimited`.
    public var maxRetryAfter: TimeInterval = 60
    /// Whether a server that cannot be reached (refused, reset, timed out, or a gateway answering
    /// 502/503/504 for it: ``RemoteError/isUnreachable``) is tried again. Scripts wait out short
    /// outages; the app says `offline` at once and its outbox takes over.
    public var retriesUnreachable = true
    /// How many tries in all a refused connection gets (nothing listens at the address:
    /// ``RemoteError/isRefused``): one more after 0.1 to 0.2 s, for a server that was restarting
    /// that moment, so a command says a server that is down within a second, not after waiting
    /// it out as an outage. Once one request gave up on a refusal, the others of the policy give
    /// up on theirs at once, until an answer (``RetryBudget``). The background agent, which no
    /// one waits for, tries as long as for any outage.
    public var refusedAttempts = 2
    /// The longest the tries may go on after the first failure since the last answer, the waits
    /// between them and the tries themselves, over every request of the stores this policy was
    /// given to (rate limits aside): a store sets it to its
    /// idle timeout (`--timeout`), so a server that fails at once, again and again (a gateway's
    /// 502, a reset), costs a command no longer than one that sends nothing.
    public var maxWaiting: TimeInterval = .infinity
    /// The waits so far (``RetryBudget``), shared by the copies of this policy.
    let budget = RetryBudget()

    public init() {}

    /// Exponential backoff with full jitter.
    func delay(afterAttempt attempt: Int) -> TimeInterval {
        let ceiling = min(maxDelay, baseDelay * pow(2, Double(attempt)))
        return Double.random(in: ceiling / 2...ceiling)
    }

    /// This policy with its waits bounded by a store's idle timeout (``maxWaiting``).
    func waiting(atMost seconds: TimeInterval) -> RetryPolicy {
        var bounded = self
        bounded.maxWaiting = min(maxWaiting, seconds)
        return bounded
    }
}

/// The Dropbox v2 client, over one shared Transfer session.
///
/// Works against real Dropbox and against `byteclub serve` alike.
public final class DropboxStore: RemoteStore, Sendable {
    public let displayName: String
    /// Dropbox and a club server keep every revision, of deleted files too.
    public var keepsHistory: Bool { true }
    public let endpoints: DropboxEndpoints
    let tokens: any AccessTokenProvider
    /// What a 401 refused (the tokens' kind), for its message.
    let credential: RemoteError.Credential
    let session: Session
    /// The session's configuration, from which longpolls get theirs (a longer idle timeout).
    let configuration: SessionConfiguration
    /// The longpolls' own session, and the backoff the server last asked for.
    let longpolls = LongpollState()
    let router: ProgressRouter
    let retry: RetryPolicy
    /// Files above this go through upload sessions.
    public let singleUploadLimit: Int64
    /// Upload-session chunk size, a multiple of 4 MiB.
    public let chunkSize: Int64
    /// When a listing or a search stops following cursors.
    public let listingLimits: ListingLimits
    let logger: Logger
    /// Whether this store may ask a club server's own routes (`/2/byteclub/…`: batch downloads,
    /// who deleted a file): a club server or the embedded one; never Dropbox, nor a stand-in for
    /// it (`--dropbox --dropbox-api URL`: Dropbox mode asks only what Dropbox answers).
    public let speaksClub: Bool
    /// Set once a server answered that it has no batch download (DropboxStore+BatchDownload).
    let batchReadsRefused = Mutex(false)
    /// Set once a club server answered that it has no `/2/byteclub/files/list_revisions` (an
    /// older byteclub): revisions are then asked on Dropbox's route (DropboxStore+Revisions).
    let clubRevisionsRefused = Mutex(false)
    /// Set once a club server answered that it has no `/2/byteclub/files/search` (an older
    /// byteclub): contents are then searched on Dropbox's route, without lines.
    let clubSearchRefused = Mutex(false)
    /// Set once a club server answered that it has no `/2/byteclub/files/tags/*` (an older
    /// byteclub, which took nested tags on Dropbox's routes): tags then go by Dropbox's routes.
    let clubTagsRefused = Mutex(false)
    /// A club server from before `tags/add_batch` (404): its tags are added one call a tag.
    let clubTagsBatchRefused = Mutex(false)
    /// A club server from before `upload_batch` (404): small files go as closed sessions.
    let clubUploadBatchRefused = Mutex(false)

    public init(displayName: String, endpoints: DropboxEndpoints, tokens: any AccessTokenProvider,
                configuration: SessionConfiguration = .default, retry: RetryPolicy = RetryPolicy(),
                singleUploadLimit: Int64 = 8 << 20, chunkSize: Int64 = 32 << 20, logger: Logger = Logger(label: "byteclub.remote"),
                listingLimits: ListingLimits = .standard, speaksClub: Bool? = nil) {
        self.displayName = displayName
        self.listingLimits = listingLimits
        self.endpoints = endpoints
        // By default a store on any host but Dropbox's is a club's.
        self.speaksClub = speaksClub ?? (endpoints != .dropbox)
        self.tokens = tokens
        self.credential = tokens.credential
        // A request's tries wait no longer in all than a request may go without a byte.
        self.retry = retry.waiting(atMost: configuration.timeoutIntervalForRequest)
        self.singleUploadLimit = min(singleUploadLimit, 150 << 20)
        // Dropbox wants every chunk but the last to be a multiple of 4 MiB, and at most 150 MiB.
        let block: Int64 = 4 << 20
        self.chunkSize = min(max(block, (chunkSize / block) * block), 148 << 20)
        self.logger = logger
        self.configuration = configuration
        let router = ProgressRouter()
        self.router = router
        self.session = Session(configuration: configuration, delegate: router, delegateQueue: DispatchQueue(label: "byteclub.remote.callbacks"))
    }

    deinit {
        session.invalidateAndCancel()
        longpolls.invalidate()
    }

    // MARK: - Requests

    /// What came back from one HTTP exchange.
    struct Reply: Sendable {
        var body: Data
        var response: HTTPResponse?
        var error: TransferError?
    }

    enum Body: Sendable {
        case none
        case data(Data)
        case file(URL, offset: Int64, length: Int64)
        /// A range of a body made as it is sent.
        case source(any UploadSource, offset: Int64, length: Int64)
    }

    /// Sends one request and waits, cancelling the transfer if the Swift task is cancelled.
    /// `session` is the store's own unless given (longpolls have theirs).
    func exchange(_ request: Request, body: Body, progress: ProgressHandler? = nil, on session: Session? = nil) async -> Reply {
        let session = session ?? self.session
        let box = TaskBox()
        return await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Reply, Never>) in
                let handler: @Sendable (Data?, HTTPResponse?, TransferError?) -> Void = { data, response, error in
                    continuation.resume(returning: Reply(body: data ?? Data(), response: response, error: error))
                }
                let task: TransferTask
                switch body {
                case .none, .data:
                    var withBody = request
                    if case .data(let data) = body { withBody.body = data } else if withBody.body == nil { withBody.body = Data() }
                    task = session.dataTask(with: withBody, completionHandler: handler)
                case .file(let url, let offset, let length):
                    task = session.uploadTask(with: request, fromFile: url, offset: offset, length: length, completionHandler: handler)
                case .source(let source, let offset, let length):
                    task = session.uploadTask(with: request, fromSource: source, offset: offset, length: length, completionHandler: handler)
                }
                if let progress { router.register(task, progress) }
                box.set(task)
                task.resume()
            }
        } onCancel: {
            box.cancel()
        }
    }

    /// Where `endpoint` lives on this account's hosts.
    func url(for endpoint: Endpoint) -> URL {
        let base = switch endpoint.host {
        case .api: endpoints.rpc
        case .content: endpoints.content
        case .notify: endpoints.notify
        }
        return base.appendingPathComponent(endpoint.relativePath)
    }

    /// Builds a request with the current token.
    func request(_ endpoint: Endpoint, arg: Any? = nil, json: Bool = false) async throws(RemoteError) -> Request {
        let token = try await tokens.accessToken()
        var headers = ["Authorization": "Bearer \(token)"]
        if let arg {
            headers["Dropbox-API-Arg"] = try Self.asciiJSON(arg)
            headers["Content-Type"] = "application/octet-stream"
        } else if json {
            headers["Content-Type"] = "application/json"
        }
        return Request(url: url(for: endpoint), method: "POST", headers: headers)
    }

    /// JSON with every non-ASCII character escaped, as HTTP headers require. `object` is a
    /// wire type (Encodable) or a JSONSerialization value.
    static func asciiJSON(_ object: Any) throws(RemoteError) -> String {
        if let value = object as? any Encodable {
            guard let text = try? DropboxJSON.headerValue(value) else { throw .local("cannot encode the request argument") }
            return text
        }
        guard let data = try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys, .withoutEscapingSlashes]) else {
            throw .local("cannot encode the request argument")
        }
        return DropboxJSON.asciiEscaped(String(decoding: data, as: UTF8.self))
    }

    /// An RPC call: JSON in, its answer decoded as `T` inside the retries (a garbled answer is
    /// retried). Retried when `idempotent`, or only on 429 otherwise.
    func rpc<T: Decodable & Sendable>(_ endpoint: Endpoint, _ argument: [String: Any], path: String, idempotent: Bool,
                                       decoding type: T.Type) async throws(RemoteError) -> T {
        try await rpc(endpoint, argument, path: path, idempotent: idempotent) { (data: Data) throws(RemoteError) -> T in
            try Self.decode(T.self, from: data)
        }
    }

    /// An RPC call, JSON in, whose answer `answer` makes of the body inside the retries.
    func rpc<T: Sendable>(_ endpoint: Endpoint, _ argument: [String: Any], path: String, idempotent: Bool,
                          answer: (Data) throws(RemoteError) -> T) async throws(RemoteError) -> T {
        let body: Data
        do { body = try JSONSerialization.data(withJSONObject: argument) } catch { throw .local("cannot encode the request") }
        return try await rpc(endpoint, body: body, path: path, idempotent: idempotent, answer: answer)
    }

    /// An RPC call with its JSON body as bytes (`null` for calls that take no argument).
    func rpc<T: Decodable & Sendable>(_ endpoint: Endpoint, body: Data, path: String, idempotent: Bool,
                                       decoding type: T.Type) async throws(RemoteError) -> T {
        try await rpc(endpoint, body: body, path: path, idempotent: idempotent) { (data: Data) throws(RemoteError) -> T in
            try Self.decode(T.self, from: data)
        }
    }

    /// An RPC call whose answer `answer` makes of the body, inside the retries.
    func rpc<T: Sendable>(_ endpoint: Endpoint, body: Data, path: String, idempotent: Bool,
                          answer: (Data) throws(RemoteError) -> T) async throws(RemoteError) -> T {
        try await withRetries(idempotent: idempotent) { () async throws(RemoteError) -> T in
            let request = try await self.request(endpoint, json: true)
            let reply = await self.exchange(request, body: .data(body))
            try self.check(reply, path: path)
            return try answer(reply.body)
        }
    }

    static func object(_ data: Data) throws(RemoteError) -> [String: Any] {
        guard let object = (try? JSONSerialization.jsonObject(with: data, options: [.fragmentsAllowed])) as? [String: Any] else {
            // A cut-off or garbled answer: the server (or a proxy) failed; worth retrying.
            throw .server(status: 0, detail: "the server's answer was not valid JSON")
        }
        return object
    }

    // MARK: - Errors and retries

    /// Throws the typed error a failed reply stands for.
    func check(_ reply: Reply, path: String) throws(RemoteError) {
        guard let error = reply.error else { return }
        throw Self.remoteError(error, response: reply.response, path: path, credential: credential)
    }

    /// The typed error for a failed exchange; `credential` is what a 401 refused.
    static func remoteError(_ error: TransferError, response: HTTPResponse?, path: String, credential: RemoteError.Credential) -> RemoteError {
        switch error {
        case .cancelled:
            return .cancelled
        case .httpStatus(let status, let body):
            // A proxy's page for a server it cannot reach: offline, with its Retry-After.
            if let gateway = gatewayError(status, response: response, body: body) { return gateway }
            let summary = errorSummary(body)
            switch status {
            case 400:
                return .server(status: 400, detail: String(decoding: body.prefix(300), as: UTF8.self))
            case 401:
                if summary.hasPrefix("user_suspended") { return .forbidden(suspended(body, credential: credential)) }
                return summary.hasPrefix("expired_access_token") ? .server(status: 401, detail: "expired_access_token") : .unauthorized(credential)
            case 409:
                return endpointError(summary, path: path)
            case 429:
                return .rateLimited(retryAfter: retryAfter(response: response, body: body))
            case 503 where response?.value(forHeader: "Retry-After") != nil:
                // A server that says when to come back (the club server's "too many
                // connections") is busy, not gone: wait as for a 429, never go offline for it.
                return .rateLimited(retryAfter: retryAfter(response: response, body: body))
            case 507:
                return .insufficientSpace
            default:
                let detail = summary.isEmpty ? String(decoding: body.prefix(200), as: UTF8.self) : summary
                return .server(status: status, detail: detail.isEmpty ? "HTTP \(status)" : detail)
            }
        case .fileNotFound(let local):
            return .local("No such file: \(local)")
        case .cannotReadFile(let local, let reason):
            return .local("Cannot read \(local): \(reason)")
        case .cannotWriteFile(let local, let reason):
            return .local("Cannot write \(local): \(reason)")
        case .malformedResponse(let detail):
            return .server(status: 0, detail: detail)
        case .invalidResumeData(let reason):
            return .local("Cannot resume: \(reason)")
        case .timedOut(.idle, let seconds):
            return .stalled(seconds: seconds)
        default:
            return .network(error.message)
        }
    }

    /// The sentence for an account that may no longer sign in (`user_suspended`): the club
    /// server's own ("You (bob) were removed from this club"), one line of at most 200
    /// characters, or ours when it said none. A refusal, not a login to renew: never retried.
    static func suspended(_ body: Data, credential: RemoteError.Credential) -> String {
        let said = (dropboxError(body)?.userMessage ?? "").split(whereSeparator: \.isNewline).first.map(String.init) ?? ""
        let sentence = said.trimmingCharacters(in: .whitespaces)
        if !sentence.isEmpty { return String(sentence.prefix(200)) }
        return credential == .dropboxLogin ? "Dropbox suspended this account" : "You were removed from this club"
    }

    static func errorSummary(_ body: Data) -> String {
        dropboxError(body)?.errorSummary ?? ""
    }

    static func endpointError(_ summary: String, path: String) -> RemoteError {
        let tags = summary.split(separator: "/").map(String.init)
        if tags.first == "reset" { return .cursorReset }
        // `no_account` is `users/get_account`'s "not found" (Dropbox's and the club server's).
        if tags.contains("not_found") || tags.contains("no_account") { return .notFound(path) }
        if tags.contains("conflict") { return .conflict(path) }
        if tags.contains("malformed_path") || tags.contains("disallowed_name") { return .malformedPath(path) }
        if tags.contains("insufficient_space") { return .insufficientSpace }
        if tags.contains("no_write_permission") { return .forbidden(RemoteError.readOnlyRefusal(path)) }
        if tags.contains("too_many_write_operations") { return .rateLimited(retryAfter: 1) }
        return .server(status: 409, detail: summary.isEmpty ? "conflict" : summary)
    }

    /// The error for a 502, 503 or 504 whose body is a page (HTML, as nginx, Caddy and load
    /// balancers write theirs) rather than the server's own answer: the proxy at the response's
    /// host and port speaking for a server it cannot reach, with the `Retry-After` it gave.
    /// Nil for any other answer. Both stores map gateway answers with it.
    static func gatewayError(_ status: Int, response: HTTPResponse?, body: Data) -> RemoteError? {
        guard RemoteError.gatewayStatuses.contains(status),
              body.prefix(512).first(where: { ![9, 10, 13, 32].contains($0) }) == UInt8(ascii: "<") else { return nil }
        let url = response?.url
        let proxy = url?.host.map { host in url?.port.map { "\(host):\($0)" } ?? host } ?? "the server's address"
        let retryAfter = response?.value(forHeader: "Retry-After").flatMap { Double($0.trimmingCharacters(in: .whitespaces)) }
        return .gateway(status: status, proxy: proxy, retryAfter: retryAfter.map { max(0, $0) })
    }

    /// `Retry-After` from the header, else Dropbox's JSON body, else one second.
    static func retryAfter(response: HTTPResponse?, body: Data) -> TimeInterval {
        if let header = response?.value(forHeader: "Retry-After"), let seconds = Double(header.trimmingCharacters(in: .whitespaces)) {
            return max(0, seconds)
        }
        if let seconds = dropboxError(body)?.retryAfter {
            return TimeInterval(max(0, seconds))
        }
        return 1
    }

    /// Runs `attempt` until it succeeds, fails for good, or the retries run out.
    ///
    /// Rate limits are always retried (the server did nothing); other transient failures only
    /// when the call is idempotent. An expired token is refreshed once.
    func withRetries<T>(idempotent: Bool, _ attempt: () async throws(RemoteError) -> T) async throws(RemoteError) -> T {
        var tries = 0
        var refreshed = false
        while true {
            do {
                let answer = try await attempt()
                retry.budget.answered()
                return answer
            } catch {
                if Task.isCancelled || error == .cancelled { throw .cancelled }
                if case .server(401, _) = error {
                    guard !refreshed, await tokens.refreshAfterExpiry() else { throw .unauthorized(credential) }
                    refreshed = true
                    continue
                }
                tries += 1
                try await retry.pause(after: error, tries: tries, idempotent: idempotent, logger: logger)
            }
        }
    }
}

/// Routes a session's progress callbacks to per-task handlers.
final class ProgressRouter: SessionDelegate {
    private let handlers = Mutex<[Int: ProgressHandler]>([:])
    /// Tasks whose answer goes to a receiver as it arrives (``ProgressRouter+Streams.swift``).
    let receivers = Mutex<[Int: StreamReceiver]>([:])

    func register(_ task: TransferTask, _ handler: @escaping ProgressHandler) {
        handlers.withLock { $0[task.taskIdentifier] = handler }
    }

    func session(_ session: Session, task: TransferTask, didSendBodyData bytesSent: Int64, totalBytesSent: Int64, totalBytesExpectedToSend: Int64) {
        handlers.withLock { $0[task.taskIdentifier] }?(totalBytesSent, totalBytesExpectedToSend)
    }

    func session(_ session: Session, downloadTask: TransferTask, didWriteData bytesWritten: Int64, totalBytesWritten: Int64, totalBytesExpectedToWrite: Int64) {
        handlers.withLock { $0[downloadTask.taskIdentifier] }?(totalBytesWritten, totalBytesExpectedToWrite)
    }

    func session(_ session: Session, task: TransferTask, didCompleteWithError error: TransferError?) {
        _ = handlers.withLock { $0.removeValue(forKey: task.taskIdentifier) }
        receivers.withLock { $0.removeValue(forKey: task.taskIdentifier) }?.completed(error)
    }
}

/// Hands a transfer task to a cancellation handler that may run before it exists.
final class TaskBox: Sendable {
    private let state = Mutex<(task: TransferTask?, cancelled: Bool, resumeData: (@Sendable (Data?) -> Void)?)>((nil, false, nil))

    var task: TransferTask? { state.withLock { $0.task } }

    /// `resumeData`, if set, makes a cancel produce resume data (downloads).
    func set(_ task: TransferTask, resumeData: (@Sendable (Data?) -> Void)? = nil) {
        let cancelled = state.withLock { state in
            state.task = task
            state.resumeData = resumeData
            return state.cancelled
        }
        if cancelled { cancel(task, resumeData) }
    }

    func cancel() {
        let (task, handler) = state.withLock { state in
            state.cancelled = true
            return (state.task, state.resumeData)
        }
        if let task { cancel(task, handler) }
    }

    private func cancel(_ task: TransferTask, _ handler: (@Sendable (Data?) -> Void)?) {
        if let handler { task.cancel(byProducingResumeData: handler) } else { task.cancel() }
    }
}
