import CCurl
import Dispatch
import Foundation
import Synchronization

/// A URLSession-style session on libcurl's multi interface.
///
/// All curl work happens on one private serial queue. Delegate callbacks and completion
/// handlers are delivered on `delegateQueue`, in order; the app passes `DispatchQueue.main`.
/// The session keeps a strong reference to its delegate until it is invalidated.
///
/// `@unchecked Sendable` is safe because the mutable state (`delegate`, `active`,
/// `invalidation`, the driver) is read and written only on `queue`; the rest is immutable or
/// atomic.
public final class Session: @unchecked Sendable {
    public let configuration: SessionConfiguration
    /// Where every delegate callback and completion handler runs. Must be serial.
    public let delegateQueue: DispatchQueue
    let queue: DispatchQueue

    private enum Invalidation { case none, finishing, invalidated }

    // Queue-confined state.
    private var delegate: (any SessionDelegate)?
    private let driver: MultiDriver?
    private var active: [Int: EasyTransfer] = [:]
    private var invalidation = Invalidation.none

    private let nextIdentifier = Atomic<Int>(1)
    private static let sessionCounter = Atomic<Int>(0)

    /// - Parameters:
    ///   - delegate: receives events; kept until the session is invalidated.
    ///   - delegateQueue: a serial queue for callbacks; by default a new serial queue.
    public init(configuration: SessionConfiguration = .default, delegate: (any SessionDelegate)? = nil, delegateQueue: DispatchQueue? = nil) {
        let number = Self.sessionCounter.wrappingAdd(1, ordering: .relaxed).newValue
        self.configuration = configuration
        self.queue = DispatchQueue(label: "byteclub.transfer.session-\(number)", qos: .userInitiated)
        self.delegateQueue = delegateQueue ?? DispatchQueue(label: "byteclub.transfer.delegate-\(number)")
        self.delegate = delegate
        self.driver = MultiDriver(queue: queue, maximumConnectionsPerHost: configuration.maximumConnectionsPerHost, sharesCookies: configuration.sharesCookies)
        driver?.onDone = { [unowned self] easy, code in
            self.transferDone(easy: easy, code: code)
        }
    }

    deinit {
        // Tasks keep their session alive while they run, so nothing is active here; the
        // driver may still watch idle cached connections, so clean up on its queue.
        if let driver {
            driver.onDone = nil
            driver.queue.async {
                driver.shutdown()
            }
        }
    }

    // MARK: - Making tasks

    private func makeTask(_ kind: TransferTask.Kind, _ request: Request, body: TransferTask.Body, completion: TransferTask.Completion) -> TransferTask {
        let identifier = nextIdentifier.wrappingAdd(1, ordering: .relaxed).oldValue
        return TransferTask(session: self, identifier: identifier, kind: kind, request: request, body: body, completion: completion)
    }

    /// A task whose body (if any) comes from `request.body`, and whose response body goes to the delegate.
    public func dataTask(with request: Request) -> TransferTask {
        makeTask(.data, request, body: .none, completion: .none)
    }

    public func dataTask(with url: URL) -> TransferTask {
        dataTask(with: Request(url: url))
    }

    /// Collects the response body in memory and hands it to `completionHandler` on the delegate queue.
    public func dataTask(with request: Request, completionHandler: @escaping @Sendable (Data?, HTTPResponse?, TransferError?) -> Void) -> TransferTask {
        makeTask(.data, request, body: .none, completion: .data(completionHandler))
    }

    /// Uploads `data` as the request body (method from the request; use POST or PUT).
    public func uploadTask(with request: Request, fromData data: Data) -> TransferTask {
        makeTask(.upload, request, body: .data(data), completion: .none)
    }

    public func uploadTask(with request: Request, fromData data: Data, completionHandler: @escaping @Sendable (Data?, HTTPResponse?, TransferError?) -> Void) -> TransferTask {
        makeTask(.upload, request, body: .data(data), completion: .data(completionHandler))
    }

    /// Streams the file as the request body, in constant memory.
    public func uploadTask(with request: Request, fromFile file: URL) -> TransferTask {
        makeTask(.upload, request, body: .file(file, offset: 0, length: nil), completion: .none)
    }

    public func uploadTask(with request: Request, fromFile file: URL, completionHandler: @escaping @Sendable (Data?, HTTPResponse?, TransferError?) -> Void) -> TransferTask {
        makeTask(.upload, request, body: .file(file, offset: 0, length: nil), completion: .data(completionHandler))
    }

    /// Streams `length` bytes of the file starting at `offset`: one chunk of a large upload.
    public func uploadTask(with request: Request, fromFile file: URL, offset: Int64, length: Int64,
                           completionHandler: @escaping @Sendable (Data?, HTTPResponse?, TransferError?) -> Void) -> TransferTask {
        makeTask(.upload, request, body: .file(file, offset: offset, length: length), completion: .data(completionHandler))
    }

    /// Sends `length` bytes of `source` from `offset`, made as curl asks for them.
    public func uploadTask(with request: Request, fromSource source: any UploadSource, offset: Int64, length: Int64,
                           completionHandler: @escaping @Sendable (Data?, HTTPResponse?, TransferError?) -> Void) -> TransferTask {
        makeTask(.upload, request, body: .source(source, offset: offset, length: length), completion: .data(completionHandler))
    }

    /// Writes the response body to a temporary file and hands it to `didFinishDownloadingTo`.
    public func downloadTask(with request: Request) -> TransferTask {
        makeTask(.download, request, body: .none, completion: .none)
    }

    /// The file passed to `completionHandler` is deleted when the handler returns.
    public func downloadTask(with request: Request, completionHandler: @escaping @Sendable (URL?, HTTPResponse?, TransferError?) -> Void) -> TransferTask {
        makeTask(.download, request, body: .none, completion: .download(completionHandler))
    }

    /// Continues a download from data produced by `cancel(byProducingResumeData:)`, possibly
    /// in an earlier process. Corrupt or stale data makes the task fail with `.invalidResumeData`.
    public func downloadTask(withResumeData data: Data) -> TransferTask {
        let (request, body) = Self.resumeRequest(data)
        return makeTask(.download, request, body: body, completion: .none)
    }

    public func downloadTask(withResumeData data: Data, completionHandler: @escaping @Sendable (URL?, HTTPResponse?, TransferError?) -> Void) -> TransferTask {
        let (request, body) = Self.resumeRequest(data)
        return makeTask(.download, request, body: body, completion: .download(completionHandler))
    }

    private static func resumeRequest(_ data: Data) -> (Request, TransferTask.Body) {
        let result = ResumeData.decode(data)
        switch result {
        case .success(let resume):
            return (Request(url: resume.url, method: resume.method, headers: resume.headers), .resume(result))
        case .failure:
            return (Request(url: URL(fileURLWithPath: "/")), .resume(result))
        }
    }

    // MARK: - Invalidation

    /// Lets running tasks finish, refuses new ones, then delivers `didBecomeInvalidWithError(nil)` last.
    public func finishTasksAndInvalidate() {
        queue.async {
            guard self.invalidation == .none else { return }
            self.invalidation = .finishing
            self.invalidateIfIdle()
        }
    }

    /// Cancels every running task, then invalidates as `finishTasksAndInvalidate()` does.
    public func invalidateAndCancel() {
        queue.async {
            guard self.invalidation != .invalidated else { return }
            self.invalidation = .finishing
            for transfer in self.active.values.sorted(by: { $0.task.taskIdentifier < $1.task.taskIdentifier }) {
                let action = transfer.task.shared.withLock { $0.lifecycle.cancel() }
                if action == .abort {
                    self.finish(transfer.task, transfer: transfer, error: .cancelled, keepDownload: false)
                }
            }
            self.invalidateIfIdle()
        }
    }

    private func invalidateIfIdle() {
        guard invalidation == .finishing, active.isEmpty else { return }
        invalidation = .invalidated
        deliver { session, delegate in
            delegate.session(session, didBecomeInvalidWithError: nil)
        }
        // The delivery above holds its own reference; dropping ours breaks the session–delegate cycle.
        delegate = nil
    }

    // MARK: - Delivery

    /// Queues a delegate call on the delegate queue, if there is a delegate.
    func deliver(_ body: @escaping @Sendable (Session, any SessionDelegate) -> Void) {
        guard let delegate else { return }
        delegateQueue.async {
            body(self, delegate)
        }
    }

    var hasDelegate: Bool { delegate != nil }

    /// What the driver has done so far. Blocks on the session queue, so never call it there.
    func driverCounters() -> DriverCounters {
        dispatchPrecondition(condition: .notOnQueue(queue))
        return queue.sync { driver?.counters ?? DriverCounters() }
    }

    // MARK: - Task actions (on `queue`)

    func start(_ task: TransferTask) {
        dispatchPrecondition(condition: .onQueue(queue))
        // Queue order decides: a task resumed before finishTasksAndInvalidate() still runs.
        guard invalidation == .none else {
            finish(task, transfer: nil, error: .sessionInvalidated, keepDownload: false)
            return
        }
        guard let driver else {
            finish(task, transfer: nil, error: .curl(code: Int(CURLE_FAILED_INIT.rawValue), detail: "curl could not be initialised"), keepDownload: false)
            return
        }
        let transfer: EasyTransfer
        do {
            transfer = try EasyTransfer(task: task, session: self, driver: driver)
        } catch {
            finish(task, transfer: nil, error: error, keepDownload: false)
            return
        }
        let code = driver.add(transfer.easy.raw)
        guard code == CURLM_OK else {
            if let leftover = transfer.tearDown(driver: driver, keepDownloadFile: false) { unlink(leftover) }
            finish(task, transfer: nil, error: .curl(code: Int(code.rawValue), detail: String(cString: curl_multi_strerror(code))), keepDownload: false)
            return
        }
        active[task.taskIdentifier] = transfer
        // A suspend() that raced ahead of the start is applied now.
        if task.shared.withLock({ $0.lifecycle.state }) == .paused {
            transfer.setPaused(true)
        }
    }

    func setPaused(_ task: TransferTask, _ paused: Bool) {
        guard let transfer = active[task.taskIdentifier] else { return }
        transfer.setPaused(paused)
        if !paused { driver?.kick() }
    }

    /// Unpauses a transfer that waited for its delegate (``EasyTransfer/holdForDelegate()``),
    /// unless the caller suspended it meanwhile.
    func continueAfterBacklog(_ task: TransferTask) {
        guard task.shared.withLock({ $0.lifecycle.state }) == .running else { return }
        setPaused(task, false)
    }

    /// Lets curl look at its timers now, after a transfer was unpaused.
    func kick() {
        driver?.kick()
    }

    func cancelUnstarted(_ task: TransferTask, resumeDataHandler: (@Sendable (Data?) -> Void)?) {
        if let resumeDataHandler { delegateQueue.async { resumeDataHandler(nil) } }
        finish(task, transfer: nil, error: .cancelled, keepDownload: false)
    }

    func abort(_ task: TransferTask, resumeDataHandler: (@Sendable (Data?) -> Void)?) {
        guard let transfer = active[task.taskIdentifier] else {
            // Not started yet on this queue (cancel raced the start), or already finished.
            if let resumeDataHandler { delegateQueue.async { resumeDataHandler(nil) } }
            finish(task, transfer: nil, error: .cancelled, keepDownload: false)
            return
        }
        var resumeData: Data?
        if resumeDataHandler != nil {
            resumeData = transfer.makeResumeData()?.encoded()
        }
        if let resumeDataHandler {
            let data = resumeData
            delegateQueue.async { resumeDataHandler(data) }
        }
        finish(task, transfer: transfer, error: .cancelled, keepDownload: resumeData != nil)
    }

    private func transferDone(easy: UnsafeMutableRawPointer, code: CURLcode) {
        var pointer: UnsafeMutableRawPointer?
        guard bc_easy_getinfo_pointer(easy, CURLINFO_PRIVATE, &pointer) == CURLE_OK, let pointer else { return }
        let transfer = Unmanaged<EasyTransfer>.fromOpaque(pointer).takeUnretainedValue()
        let task = transfer.task

        var error: TransferError?
        // Write out the last gathered bytes before deciding how the task ended.
        if code == CURLE_OK { transfer.flushDownload() }
        if let callbackError = transfer.callbackError {
            error = callbackError
        } else if code != CURLE_OK {
            error = TransferError.from(code: code, detail: transfer.curlErrorDetail, osErrno: Int32(transfer.easy.infoLong(CURLINFO_OS_ERRNO)), url: task.originalRequest.url, elapsed: transfer.elapsed, configuration: configuration)
        } else if transfer.rangeRefused {
            error = .invalidResumeData(reason: "the server no longer has that part of the file")
        } else if let response = transfer.finalResponse, !response.isSuccess {
            error = .httpStatus(response.statusCode, body: transfer.errorBody)
        } else if transfer.finalResponse == nil {
            error = .malformedResponse(detail: "no HTTP response")
        }

        // A download cut off by the network keeps its partial file for a later resume.
        var keep = false
        if let error, task.kind == .download, error.isTransient, let resume = transfer.makeResumeData() {
            keep = true
            task.shared.withLock { $0.resumeData = resume.encoded() }
        }
        guard task.shared.withLock({ $0.lifecycle.finish() }) == .deliver else {
            if let driver, let leftover = transfer.tearDown(driver: driver, keepDownloadFile: false) { unlink(leftover) }
            active[task.taskIdentifier] = nil
            return
        }
        finishDelivering(task, transfer: transfer, error: error, keepDownload: keep)
    }

    /// Ends a task from a cancel or a setup failure, moving its lifecycle to completed.
    private func finish(_ task: TransferTask, transfer: EasyTransfer?, error: TransferError?, keepDownload: Bool) {
        guard task.shared.withLock({ $0.lifecycle.finish() }) == .deliver else { return }
        finishDelivering(task, transfer: transfer, error: error, keepDownload: keepDownload)
    }

    private func finishDelivering(_ task: TransferTask, transfer: EasyTransfer?, error: TransferError?, keepDownload: Bool) {
        var downloadedFile: URL?
        var leftover: String?
        var body = Data()
        if let transfer, let driver {
            transfer.deliverProgress()
            if error == nil, task.kind == .download, let path = transfer.downloadPath {
                downloadedFile = URL(fileURLWithPath: path)
            }
            body = transfer.takeBody()
            // Keep a finished download until the delegate or handler has had it; it is deleted below.
            leftover = transfer.tearDown(driver: driver, keepDownloadFile: keepDownload || downloadedFile != nil)
            active[task.taskIdentifier] = nil
        }
        task.shared.withLock { $0.error = error }
        let response = task.response
        let file = downloadedFile
        let collected = body

        switch task.completion {
        case .none:
            if let file {
                deliver { session, delegate in
                    delegate.session(session, downloadTask: task, didFinishDownloadingTo: file)
                }
                delegateQueue.async {
                    try? FileManager.default.removeItem(at: file)
                }
            }
            deliver { session, delegate in
                delegate.session(session, task: task, didCompleteWithError: error)
            }
        case .data(let handler):
            delegateQueue.async {
                handler(error == nil ? collected : nil, response, error)
            }
        case .download(let handler):
            delegateQueue.async {
                handler(file, response, error)
                if let file { try? FileManager.default.removeItem(at: file) }
            }
        }
        // Only now, with the completion queued: the delegate hears of a cancel at once.
        if let leftover { unlink(leftover) }
        invalidateIfIdle()
    }
}
