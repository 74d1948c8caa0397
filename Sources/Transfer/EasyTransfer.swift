import CCurl
import Dispatch
import Foundation

/// The curl side of one running task: its easy handle and the C callbacks that drive it.
///
/// What the callbacks consult are values this class owns and acts on: the request body
/// (`UploadBody`), the download file with its resume (`DownloadFile`), the response head
/// (`ResponseHeadParser`), and three policies that decide from the time they are given:
/// `ProgressCoalescer`, `ReceiveThrottle` and `IdleWatchdog`. Their clock is the uptime in
/// nanoseconds, read here once per callback.
///
/// `@unchecked Sendable` is safe because an `EasyTransfer` is created, used and torn down
/// only on its session's serial queue; curl calls its callbacks from inside
/// `curl_multi_socket_action`, which runs only on that queue too. Closures that capture it
/// are scheduled on that same queue.
final class EasyTransfer: @unchecked Sendable {
    private enum Sink {
        /// Collect the body for a completion handler.
        case memory
        /// Pass the body to the delegate in coalesced chunks.
        case delegate
        /// Write the body to the download file (`download`).
        case file
    }

    let task: TransferTask
    let easy: EasyHandle
    let session: Session
    /// Told when the byte counters move, so a writable socket's burst goes on (`SocketBurst`).
    private let driver: MultiDriver
    private let configuration: SessionConfiguration
    private let url: URL
    private var headerList: CurlHeaderList?
    private let errorBuffer: UnsafeMutablePointer<CChar>
    private let startTime = DispatchTime.now()

    private var upload = UploadBody()
    private var sink: Sink
    /// Set exactly for download tasks.
    private(set) var download: DownloadFile?
    private var body = Data()
    /// Body bytes for the delegate, sent with the next progress report.
    var pendingData = Data()

    private var responseHead: ResponseHeadParser
    private(set) var finalResponse: HTTPResponse?
    private(set) var errorBody = Data()
    /// Set by a callback that aborted the transfer; wins over curl's own code.
    private(set) var callbackError: TransferError?

    // Progress, as last seen and as last reported (EasyTransfer+Progress.swift)
    private(set) var sent: Int64 = 0
    private(set) var expectedSend: Int64 = 0
    var deliveredSent: Int64 = 0
    var deliveredWritten: Int64 = 0
    var progressPolicy: ProgressCoalescer
    private(set) var isFinished = false

    /// Nil without a receive limit.
    private var throttle: ReceiveThrottle?
    private var watchdog: IdleWatchdog

    static let maxErrorBody = 1 << 20
    static let maxPendingData = 1 << 20
    /// Body bytes handed to the delegate and not yet taken, past which the transfer pauses.
    static let maxDeliveryBacklog = 8 << 20

    /// The policies' clock.
    @inline(__always)
    static func uptime() -> UInt64 { DispatchTime.now().uptimeNanoseconds }

    /// Builds the easy handle for `task`. Throws the typed error the task should end with
    /// when it cannot even start (a missing file, an unwritable temp dir, bad resume data).
    init(task: TransferTask, session: Session, driver: MultiDriver) throws(TransferError) {
        guard ensureCurlInitialized(), let raw = curl_easy_init() else {
            throw .curl(code: Int(CURLE_FAILED_INIT.rawValue), detail: "curl_easy_init failed")
        }
        self.task = task
        self.session = session
        self.driver = driver
        let configuration = session.configuration
        self.configuration = configuration
        self.easy = EasyHandle(raw: raw)
        self.errorBuffer = .allocate(capacity: Int(BC_CURL_ERROR_SIZE) + 1)
        errorBuffer.initialize(repeating: 0, count: Int(BC_CURL_ERROR_SIZE) + 1)
        var request = task.originalRequest
        self.url = request.url
        let now = Self.uptime()
        progressPolicy = ProgressCoalescer(interval: configuration.progressInterval, now: now)
        throttle = ReceiveThrottle(limit: configuration.maxReceiveBytesPerSecond)
        watchdog = IdleWatchdog(limit: configuration.timeoutIntervalForRequest, now: now)
        responseHead = ResponseHeadParser(followsRedirects: configuration.followsRedirects)
        switch task.completion {
        case .data: sink = .memory
        default: sink = .delegate
        }

        // Work out the body and, for downloads, the file.
        var resumedFrom: ResumeData?
        switch task.body {
        case .none:
            if let data = request.body { upload = UploadBody(data: data) }
        case .data(let data):
            upload = UploadBody(data: data)
        case .file(let fileURL, let offset, let length):
            upload = try UploadBody(file: fileURL, offset: offset, length: length)
        case .source(let source, let offset, let length):
            upload = try UploadBody(source: source, offset: offset, length: length)
        case .resume(let result):
            switch result {
            case .success(let value): resumedFrom = value
            case .failure(let error): throw error
            }
        }
        if task.kind == .download {
            let file = try DownloadFile(resume: resumedFrom, directory: configuration.temporaryDirectory)
            sink = .file
            download = file
            for (name, value) in file.rangeHeaders { request.headers[name] = value }
        }
        expectedSend = upload.length ?? 0
        let expected = expectedSend
        task.shared.withLock { $0.bytesExpectedToSend = expected }

        configure(request: request, bodyLength: upload.length, driver: driver)
    }

    deinit {
        errorBuffer.deallocate()
    }

    private func configure(request: Request, bodyLength: Int64?, driver: MultiDriver) {
        let me = Unmanaged.passUnretained(self).toOpaque()
        easy.set(CURLOPT_URL, request.url.absoluteString)
        easy.set(CURLOPT_NOSIGNAL, true)
        easy.set(CURLOPT_PRIVATE, pointer: me)
        easy.set(CURLOPT_ERRORBUFFER, pointer: UnsafeMutableRawPointer(errorBuffer))
        easy.set(CURLOPT_FOLLOWLOCATION, configuration.followsRedirects)
        easy.set(CURLOPT_MAXREDIRS, 10)
        easy.setTLS(configuration)
        easy.set(CURLOPT_BUFFERSIZE, configuration.receiveBufferSize)
        easy.set(CURLOPT_UPLOAD_BUFFERSIZE, min(configuration.uploadBufferSize, 2 * 1024 * 1024))
        if let share = driver.share { easy.set(CURLOPT_SHARE, pointer: share) }
        if configuration.sharesCookies { easy.set(CURLOPT_COOKIEFILE, "") }
        if let credentials = configuration.credentials {
            // curl answers the challenge itself, and only to this host (not after a redirect elsewhere).
            easy.set(CURLOPT_USERNAME, credentials.user)
            easy.set(CURLOPT_PASSWORD, credentials.password)
            easy.set(CURLOPT_HTTPAUTH, credentials.curlMask)
        }

        // Timeouts: curl's low-speed check is our idle timeout, CURLOPT_TIMEOUT the total one.
        let idle = max(0.001, configuration.timeoutIntervalForRequest)
        easy.set(CURLOPT_CONNECTTIMEOUT_MS, Int(idle * 1000))
        easy.set(CURLOPT_LOW_SPEED_LIMIT, 1)
        easy.set(CURLOPT_LOW_SPEED_TIME, max(1, Int(idle.rounded(.up))))
        if configuration.timeoutIntervalForResource < Double(Int32.max) / 1000 {
            easy.set(CURLOPT_TIMEOUT_MS, max(1, Int(configuration.timeoutIntervalForResource * 1000)))
        }
        if let limit = configuration.maxSendBytesPerSecond, limit > 0 {
            easy.set(CURLOPT_MAX_SEND_SPEED_LARGE, int64: limit)
        }
        if let limit = configuration.maxReceiveBytesPerSecond, limit > 0 {
            easy.set(CURLOPT_MAX_RECV_SPEED_LARGE, int64: limit)
        }

        bc_easy_set_write_function(easy.raw, easyWriteCallback)
        easy.set(CURLOPT_WRITEDATA, pointer: me)
        bc_easy_set_header_function(easy.raw, easyHeaderCallback)
        easy.set(CURLOPT_HEADERDATA, pointer: me)
        bc_easy_set_xferinfo_function(easy.raw, easyProgressCallback)
        easy.set(CURLOPT_XFERINFODATA, pointer: me)
        easy.set(CURLOPT_NOPROGRESS, false)
        bc_easy_set_closesocket_function(easy.raw, easyCloseSocketCallback)
        easy.set(CURLOPT_CLOSESOCKETDATA, pointer: driver.callbackPointer)

        let method = request.method.uppercased()
        if let bodyLength {
            // Every body, from memory or a file, streams through the read callback.
            easy.set(CURLOPT_UPLOAD, true)
            easy.set(CURLOPT_INFILESIZE_LARGE, int64: bodyLength)
            bc_easy_set_read_function(easy.raw, easyReadCallback)
            easy.set(CURLOPT_READDATA, pointer: me)
            bc_easy_set_seek_function(easy.raw, easySeekCallback)
            easy.set(CURLOPT_SEEKDATA, pointer: me)
            if method != "PUT" { easy.set(CURLOPT_CUSTOMREQUEST, method) }
        } else if method == "HEAD" {
            easy.set(CURLOPT_NOBODY, true)
        } else if method == "GET" {
            easy.set(CURLOPT_HTTPGET, true)
        } else {
            // A body-less POST and the like: send an explicit empty body.
            easy.set(CURLOPT_UPLOAD, true)
            easy.set(CURLOPT_INFILESIZE_LARGE, int64: 0)
            bc_easy_set_read_function(easy.raw, easyReadCallback)
            easy.set(CURLOPT_READDATA, pointer: me)
            if method != "PUT" { easy.set(CURLOPT_CUSTOMREQUEST, method) }
        }

        var headers = configuration.additionalHeaders
        for (name, value) in request.headers {
            if let existing = headers.keys.first(where: { $0.caseInsensitiveCompare(name) == .orderedSame }) {
                headers[existing] = nil
            }
            headers[name] = value
        }
        var lines = headers.sorted { $0.key < $1.key }.map { "\($0.key): \($0.value)" }
        if !headers.keys.contains(where: { $0.caseInsensitiveCompare("User-Agent") == .orderedSame }) {
            lines.append("User-Agent: \(configuration.userAgent)")
        }
        // No "Expect: 100-continue": it costs a round trip (or a 1 s wait) on every large upload.
        lines.append("Expect:")
        let list = CurlHeaderList(lines)
        headerList = list
        easy.set(CURLOPT_HTTPHEADER, pointer: UnsafeMutableRawPointer(list.list))
    }

    var curlErrorDetail: String {
        errorBuffer[Int(BC_CURL_ERROR_SIZE)] = 0
        return String(cString: errorBuffer)
    }

    var elapsed: Double {
        Double(DispatchTime.now().uptimeNanoseconds - startTime.uptimeNanoseconds) / 1e9
    }

    /// The collected body for a completion handler.
    func takeBody() -> Data {
        defer { body = Data() }
        return body
    }

    // MARK: - Pausing

    func setPaused(_ paused: Bool) {
        curl_easy_pause(easy.raw, paused ? BC_CURLPAUSE_ALL : BC_CURLPAUSE_CONT)
    }

    // MARK: - Finishing

    /// Releases curl and the file descriptors. Returns the path of a download file that is
    /// not kept, for the caller to delete once the completion is on its way: unlinking a
    /// large file can take tens of milliseconds, which would delay the cancel callback.
    @discardableResult
    func tearDown(driver: MultiDriver, keepDownloadFile: Bool) -> String? {
        guard !isFinished else { return nil }
        isFinished = true
        driver.remove(easy.raw)
        curl_easy_cleanup(easy.raw)
        headerList = nil
        upload.close()
        if let download {
            download.close()
            if !keepDownloadFile { return download.path }
        }
        return nil
    }

    /// The download file, kept after `tearDown` for the completion to hand over.
    var downloadPath: String? { download?.path }

    /// Writes what the download gathered. False (with `callbackError` set) if the disk refused.
    @discardableResult
    func flushDownload() -> Bool {
        do {
            try download?.flush()
            return true
        } catch {
            callbackError = error
            return false
        }
    }

    /// Resume data for the bytes already on disk, if the server gave a validator to resume against.
    func makeResumeData() -> ResumeData? {
        guard download != nil, let response = finalResponse, response.isSuccess else { return nil }
        guard flushDownload() else { return nil }
        return download?.resumeData(after: response, original: task.originalRequest)
    }

    /// Whether a resumed download's server ignored or refused the range.
    var rangeRefused: Bool { download?.requestedRange == true && finalResponse?.statusCode == 416 }

    // MARK: - curl callbacks (on the session queue)

    func progress(ulnow: Int64, ultotal: Int64) {
        guard ulnow != sent else { return }
        sent = ulnow
        if ultotal > 0 { expectedSend = ultotal }
        task.shared.withLock {
            $0.bytesSent = ulnow
            $0.bytesExpectedToSend = expectedSend
        }
        noteProgress()
    }

    /// Asks `watchdog` whether the transfer stalled; true (with `callbackError` set) to abort.
    /// Bytes that moved since it last looked also go to the driver.
    func idleExpired(moved: Int64) -> Bool {
        if moved != watchdog.lastMoved { driver.noteMoved() }
        let task = self.task
        let decision = watchdog.check(moved: moved, throttled: throttle?.isPausing ?? false, now: Self.uptime(),
                                      isRunning: task.shared.withLock { $0.lifecycle.state } == .running)
        guard decision == .expired else { return false }
        callbackError = .timedOut(.idle, seconds: watchdog.limit)
        return true
    }

    /// Resume data to the task's checkpoint sink once `total` passes its next mark.
    private func checkpoint(at total: Int64) {
        let due = task.checkpoint.withLock { checkpoint -> (@Sendable (Data) -> Void)? in
            guard let current = checkpoint, total >= current.next else { return nil }
            checkpoint?.next = total + TransferTask.Checkpoint.interval
            return current.sink
        }
        guard let due, let resume = makeResumeData() else { return }
        due(resume.encoded())
    }

    func write(_ buffer: UnsafeRawBufferPointer) -> Int {
        // A cancel is on its way: stop taking data so curl returns to the queue at once.
        if task.cancelRequested.load(ordering: .relaxed) { return Int(BC_CURL_WRITEFUNC_PAUSE) }
        let count = buffer.count
        guard finalResponse?.isSuccess == true else {
            if errorBody.count < Self.maxErrorBody {
                errorBody.append(contentsOf: buffer.prefix(Self.maxErrorBody - errorBody.count))
            }
            return count
        }
        if holdBack(count) { return Int(BC_CURL_WRITEFUNC_PAUSE) }
        switch sink {
        case .file:
            do {
                try download!.append(buffer)
            } catch {
                callbackError = error
                return 0
            }
            let total = download!.total
            task.shared.withLock { $0.bytesReceived = total }
            checkpoint(at: total)
        case .memory:
            body.append(contentsOf: buffer)
            let total = Int64(body.count)
            task.shared.withLock { $0.bytesReceived = total }
        case .delegate:
            if session.hasDelegate {
                if holdForDelegate() { return Int(BC_CURL_WRITEFUNC_PAUSE) }
                pendingData.append(contentsOf: buffer)
                if pendingData.count >= Self.maxPendingData { flushData() }
            }
            task.shared.withLock { $0.bytesReceived += Int64(count) }
        }
        noteProgress()
        return count
    }

    /// Carries out `throttle`'s decision on a chunk: true to pause the transfer, which curl
    /// answers by handing the same chunk back once it is unpaused.
    private func holdBack(_ count: Int) -> Bool {
        guard let decision = throttle?.admit(count, now: Self.uptime()) else { return false }
        switch decision {
        case .accept:
            return false
        case .stayPaused:
            return true
        case .pause(let nanoseconds):
            session.queue.asyncAfter(deadline: .now() + .nanoseconds(Int(nanoseconds))) { [self] in
                throttle?.pauseEnded()
                // Leave a transfer alone that finished or that the caller suspended meanwhile.
                guard !isFinished, task.shared.withLock({ $0.lifecycle.state }) == .running else { return }
                setPaused(false)
                session.kick()
            }
            return true
        }
    }

    func header(_ line: String) {
        guard let head = responseHead.consume(line) else { return }
        let effective = easy.infoString(CURLINFO_EFFECTIVE_URL).flatMap(URL.init(string:)) ?? url
        let response = HTTPResponse(url: effective, statusCode: head.statusCode, headerFields: head.fields)
        finalResponse = response
        var expected = response.expectedContentLength
        let task = self.task

        if response.isSuccess, download != nil {
            if let error = download!.responseBegan(response) { callbackError = error }
            let offset = download!.resumeOffset
            if expected >= 0 { expected += offset }
            if download!.requestedRange {
                let total = expected
                session.deliver { session, delegate in
                    delegate.session(session, downloadTask: task, didResumeAtOffset: offset, expectedTotalBytes: total)
                }
            }
        }
        let expectedTotal = expected
        task.shared.withLock {
            $0.response = response
            $0.bytesExpectedToReceive = expectedTotal
        }
        if task.kind != .download, case .delegate = sink {
            session.deliver { session, delegate in
                delegate.session(session, task: task, didReceive: response)
            }
        }
    }

    func read(into buffer: UnsafeMutableRawBufferPointer) -> Int {
        if task.cancelRequested.load(ordering: .relaxed) { return Int(BC_CURL_READFUNC_PAUSE) }
        do {
            return try upload.read(into: buffer)
        } catch {
            callbackError = error
            return Int(BC_CURL_READFUNC_ABORT)
        }
    }

    func seek(to offset: Int64) -> Bool {
        upload.seek(to: offset)
    }
}
