import CCurl
import Dispatch
import Foundation

/// The curl side of one running task: its easy handle, body source, sink and progress.
///
/// `@unchecked Sendable` is safe because an `EasyTransfer` is created, used and torn down
/// only on its session's serial queue; curl calls its callbacks from inside
/// `curl_multi_socket_action`, which runs only on that queue too. Closures that capture it
/// are scheduled on that same queue.
final class EasyTransfer: @unchecked Sendable {
    private enum Source {
        case none
        case memory(Data, position: Int)
        /// Bytes `start ..< start + length` of a file; `position` is relative to `start`.
        case file(fd: Int32, path: String, start: Int64, length: Int64, position: Int64)
    }

    private enum Sink {
        /// Collect the body for a completion handler.
        case memory
        /// Pass the body to the delegate in coalesced chunks.
        case delegate
        /// Write the body to the download file.
        case file(fd: Int32, path: String)
    }

    let task: TransferTask
    let easy: EasyHandle
    private let session: Session
    private let configuration: SessionConfiguration
    private let url: URL
    private var headerList: CurlHeaderList?
    private let errorBuffer: UnsafeMutablePointer<CChar>
    private let startTime = DispatchTime.now()

    private var source: Source = .none
    private var sink: Sink
    private var body = Data()
    private var pendingData = Data()

    private var currentStatus = 0
    private var currentHeaders: [(name: String, value: String)] = []
    private(set) var finalResponse: HTTPResponse?
    private(set) var errorBody = Data()
    /// Set by a callback that aborted the transfer; wins over curl's own code.
    private(set) var callbackError: TransferError?

    // Downloads
    private(set) var downloadPath: String?
    private var resumeOffset: Int64 = 0
    private var requestedRange = false
    private var resumedFrom: ResumeData?
    private var bytesWritten: Int64 = 0
    private var fileBuffer: [UInt8] = []
    static let fileBufferSize = 1 << 20

    // Progress, as last seen and as last delivered
    private var sent: Int64 = 0
    private var expectedSend: Int64 = 0
    private var deliveredSent: Int64 = 0
    private var deliveredWritten: Int64 = 0
    // Counting from the start, the first report comes one interval in: a transfer that ends
    // sooner reports only its final value.
    private var lastDelivery: UInt64 = DispatchTime.now().uptimeNanoseconds
    private var progressScheduled = false
    private(set) var isFinished = false

    // Our own receive limit (see `throttle`)
    private var throttleStart: UInt64 = 0
    private var throttleBytes: Int64 = 0
    private var throttled = false
    /// For the idle watchdog: bytes moved (down and up) when it last looked, and when they last changed.
    private var idleMoved: Int64 = -1
    private var lastActivity = DispatchTime.now().uptimeNanoseconds

    static let maxErrorBody = 1 << 20
    static let maxPendingData = 1 << 20

    /// Builds the easy handle for `task`. Throws the typed error the task should end with
    /// when it cannot even start (a missing file, an unwritable temp dir, bad resume data).
    init(task: TransferTask, session: Session, driver: MultiDriver) throws(TransferError) {
        guard ensureCurlInitialized(), let raw = curl_easy_init() else {
            throw .curl(code: Int(CURLE_FAILED_INIT.rawValue), detail: "curl_easy_init failed")
        }
        self.task = task
        self.session = session
        self.configuration = session.configuration
        self.easy = EasyHandle(raw: raw)
        self.errorBuffer = .allocate(capacity: Int(BC_CURL_ERROR_SIZE) + 1)
        errorBuffer.initialize(repeating: 0, count: Int(BC_CURL_ERROR_SIZE) + 1)

        var request = task.originalRequest
        switch task.completion {
        case .data: sink = .memory
        default: sink = .delegate
        }

        // Work out the body and, for downloads, the file.
        var bodyLength: Int64? = nil
        switch task.body {
        case .none:
            if let data = request.body {
                source = .memory(data, position: 0)
                bodyLength = Int64(data.count)
            }
        case .data(let data):
            source = .memory(data, position: 0)
            bodyLength = Int64(data.count)
        case .file(let fileURL, let offset, let length):
            let path = fileURL.path
            let fd = open(path, O_RDONLY | O_CLOEXEC)
            guard fd >= 0 else {
                let code = errno
                throw code == ENOENT ? .fileNotFound(path: path) : .cannotReadFile(path: path, reason: String(cString: strerror(code)))
            }
            var info = stat()
            guard fstat(fd, &info) == 0, (info.st_mode & S_IFMT) == S_IFREG else {
                close(fd)
                throw .cannotReadFile(path: path, reason: "not a regular file")
            }
            let size = Int64(info.st_size)
            guard offset >= 0, offset <= size, (length ?? 0) >= 0, offset + (length ?? 0) <= size else {
                close(fd)
                throw .cannotReadFile(path: path, reason: "the range \(offset)+\(length ?? 0) is outside the file (\(size) bytes)")
            }
            let count = length ?? (size - offset)
            guard lseek(fd, off_t(offset), SEEK_SET) >= 0 else {
                close(fd)
                throw .cannotReadFile(path: path, reason: String(cString: strerror(errno)))
            }
            source = .file(fd: fd, path: path, start: offset, length: count, position: 0)
            bodyLength = count
        case .resume(let result):
            let resume: ResumeData
            switch result {
            case .success(let value): resume = value
            case .failure(let error): throw error
            }
            resumedFrom = resume
        }

        if task.kind == .download {
            let (fd, path) = try Self.openDownloadFile(resume: resumedFrom, directory: configuration.temporaryDirectory)
            sink = .file(fd: fd, path: path)
            downloadPath = path
            if let resumedFrom, resumedFrom.offset > 0 {
                resumeOffset = resumedFrom.offset
                requestedRange = true
                request.headers["Range"] = "bytes=\(resumedFrom.offset)-"
                if let validator = resumedFrom.ifRange {
                    request.headers["If-Range"] = validator
                }
            }
        }
        self.url = request.url
        expectedSend = bodyLength ?? 0
        task.shared.withLock { $0.bytesExpectedToSend = expectedSend }

        configure(request: request, bodyLength: bodyLength, driver: driver)
    }

    deinit {
        errorBuffer.deallocate()
    }

    private static func openDownloadFile(resume: ResumeData?, directory: URL) throws(TransferError) -> (Int32, String) {
        if let resume {
            let path = resume.temporaryPath
            let fd = open(path, O_WRONLY | O_CLOEXEC)
            guard fd >= 0 else {
                throw .invalidResumeData(reason: "the partial file \(path) is gone")
            }
            var info = stat()
            guard fstat(fd, &info) == 0, Int64(info.st_size) >= resume.offset else {
                close(fd)
                throw .invalidResumeData(reason: "the partial file \(path) is shorter than the resume data says")
            }
            // Drop anything past the offset we know was complete, then append from there.
            guard ftruncate(fd, off_t(resume.offset)) == 0, lseek(fd, off_t(resume.offset), SEEK_SET) >= 0 else {
                let reason = String(cString: strerror(errno))
                close(fd)
                throw .cannotWriteFile(path: path, reason: reason)
            }
            return (fd, path)
        }
        let path = directory.appendingPathComponent("byteclub-\(UUID().uuidString).download").path
        let fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
        guard fd >= 0 else {
            throw .cannotWriteFile(path: path, reason: String(cString: strerror(errno)))
        }
        return (fd, path)
    }

    private func configure(request: Request, bodyLength: Int64?, driver: MultiDriver) {
        let me = Unmanaged.passUnretained(self).toOpaque()
        easy.set(CURLOPT_URL, request.url.absoluteString)
        easy.set(CURLOPT_NOSIGNAL, true)
        easy.set(CURLOPT_PRIVATE, pointer: me)
        easy.set(CURLOPT_ERRORBUFFER, pointer: UnsafeMutableRawPointer(errorBuffer))
        easy.set(CURLOPT_FOLLOWLOCATION, configuration.followsRedirects)
        easy.set(CURLOPT_MAXREDIRS, 10)
        easy.set(CURLOPT_SSL_VERIFYPEER, configuration.verifiesTLSCertificates)
        easy.set(CURLOPT_SSL_VERIFYHOST, configuration.verifiesTLSCertificates ? 2 : 0)
        easy.set(CURLOPT_BUFFERSIZE, configuration.receiveBufferSize)
        easy.set(CURLOPT_UPLOAD_BUFFERSIZE, min(configuration.uploadBufferSize, 2 * 1024 * 1024))
        if let share = driver.share { easy.set(CURLOPT_SHARE, pointer: share) }
        if configuration.sharesCookies { easy.set(CURLOPT_COOKIEFILE, "") }

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
        if case .file(let fd, _, _, _, _) = source { close(fd) }
        source = .none
        if case .file(let fd, let path) = sink {
            close(fd)
            if !keepDownloadFile { return path }
        }
        return nil
    }

    /// Resume data for the bytes already on disk, if the server gave a validator to resume against.
    func makeResumeData() -> ResumeData? {
        guard task.kind == .download, let downloadPath, let response = finalResponse, response.isSuccess else { return nil }
        // Resume data promises every byte up to its offset is on disk.
        guard flushDownload() else { return nil }
        let offset = resumeOffset + bytesWritten
        let etag = response.value(forHeader: "ETag") ?? resumedFrom?.etag
        let lastModified = response.value(forHeader: "Last-Modified") ?? resumedFrom?.lastModified
        guard offset > 0, etag != nil || lastModified != nil else { return nil }
        let total: Int64? = {
            if response.statusCode == 206, let range = response.value(forHeader: "Content-Range"),
               let slash = range.lastIndex(of: "/"), let value = Int64(range[range.index(after: slash)...]) {
                return value
            }
            let length = response.expectedContentLength
            return length >= 0 ? resumeOffset + length : nil
        }()
        var headers = resumedFrom?.headers ?? task.originalRequest.headers
        for name in headers.keys where ["authorization", "range", "if-range"].contains(name.lowercased()) {
            headers[name] = nil
        }
        return ResumeData(
            version: ResumeData.currentVersion, url: resumedFrom?.url ?? task.originalRequest.url,
            method: resumedFrom?.method ?? task.originalRequest.method, headers: headers,
            offset: offset, expectedLength: total, etag: etag, lastModified: lastModified,
            temporaryPath: downloadPath)
    }

    /// Whether a resumed download's server ignored or refused the range.
    var rangeRefused: Bool { requestedRange && finalResponse?.statusCode == 416 }

    // MARK: - Progress

    /// Notes that counters changed; delivers at most once per progress interval, and
    /// schedules one trailing delivery so the latest value always arrives.
    private func noteProgress() {
        guard !isFinished else { return }
        let now = DispatchTime.now().uptimeNanoseconds
        let interval = UInt64(max(0, configuration.progressInterval) * 1e9)
        if now >= lastDelivery &+ interval {
            deliverProgress(now: now)
        } else if !progressScheduled {
            progressScheduled = true
            session.queue.asyncAfter(deadline: DispatchTime(uptimeNanoseconds: lastDelivery &+ interval)) { [self] in
                progressScheduled = false
                // A busy queue may already have delivered on time; let noteProgress decide again.
                if !isFinished { noteProgress() }
            }
        }
    }

    /// Sends whatever changed since the last delivery. Also called once more before completion.
    func deliverProgress(now: UInt64 = DispatchTime.now().uptimeNanoseconds) {
        lastDelivery = now
        let task = self.task
        if sent != deliveredSent {
            let delta = sent - deliveredSent
            let total = sent
            let expected = expectedSend
            deliveredSent = sent
            session.deliver { session, delegate in
                delegate.session(session, task: task, didSendBodyData: delta, totalBytesSent: total, totalBytesExpectedToSend: expected)
            }
        }
        if task.kind == .download, bytesWritten != deliveredWritten {
            let delta = bytesWritten - deliveredWritten
            let total = resumeOffset + bytesWritten
            let expected = task.countOfBytesExpectedToReceive
            deliveredWritten = bytesWritten
            session.deliver { session, delegate in
                delegate.session(session, downloadTask: task, didWriteData: delta, totalBytesWritten: total, totalBytesExpectedToWrite: expected)
            }
        }
        flushData()
    }

    private func flushData() {
        guard !pendingData.isEmpty else { return }
        let chunk = pendingData
        pendingData = Data()
        let task = self.task
        session.deliver { session, delegate in
            delegate.session(session, task: task, didReceive: chunk)
        }
    }

    // MARK: - curl callbacks (on the session queue)

    fileprivate func progress(ulnow: Int64, ultotal: Int64) {
        guard ulnow != sent else { return }
        sent = ulnow
        if ultotal > 0 { expectedSend = ultotal }
        task.shared.withLock {
            $0.bytesSent = ulnow
            $0.bytesExpectedToSend = expectedSend
        }
        noteProgress()
    }

    /// The idle timeout, watched here: curl's low-speed check averages the speed over several
    /// seconds, so on its own a 1 s timeout fired after about 6 s. curl calls the progress
    /// callback at least once a second, so this fires within a second of the limit.
    fileprivate func idleExpired(moved: Int64) -> Bool {
        let now = DispatchTime.now().uptimeNanoseconds
        // Bytes moved, or our own receive limit holds the transfer back: not idle.
        if moved != idleMoved || throttled {
            idleMoved = moved
            lastActivity = now
            return false
        }
        let limit = configuration.timeoutIntervalForRequest
        guard limit > 0, Double(now - lastActivity) / 1e9 > limit else { return false }
        // A suspended task is not idle, it is waiting for its caller.
        guard task.shared.withLock({ $0.lifecycle.state }) == .running else {
            lastActivity = now
            return false
        }
        callbackError = .timedOut(.idle, seconds: limit)
        return true
    }

    fileprivate func write(_ buffer: UnsafeRawBufferPointer) -> Int {
        // A cancel is on its way: stop taking data so curl returns to the queue at once.
        if task.cancelRequested.load(ordering: .relaxed) { return Int(BC_CURL_WRITEFUNC_PAUSE) }
        let count = buffer.count
        guard let response = finalResponse, response.isSuccess else {
            if errorBody.count < Self.maxErrorBody {
                errorBody.append(contentsOf: buffer.prefix(Self.maxErrorBody - errorBody.count))
            }
            return count
        }
        if throttle(count) { return Int(BC_CURL_WRITEFUNC_PAUSE) }
        switch sink {
        case .file:
            // curl hands over at most 16 KiB per call; gather them so the disk sees 1 MiB writes.
            if fileBuffer.count + count > Self.fileBufferSize, !flushDownload() { return 0 }
            if count >= Self.fileBufferSize {
                guard writeToFile(buffer) else { return 0 }
            } else {
                fileBuffer.append(contentsOf: buffer)
            }
            bytesWritten += Int64(count)
            let total = resumeOffset + bytesWritten
            task.shared.withLock { $0.bytesReceived = total }
        case .memory:
            body.append(contentsOf: buffer)
            let total = Int64(body.count)
            task.shared.withLock { $0.bytesReceived = total }
        case .delegate:
            if session.hasDelegate {
                pendingData.append(contentsOf: buffer)
                if pendingData.count >= Self.maxPendingData { flushData() }
            }
            task.shared.withLock { $0.bytesReceived += Int64(count) }
        }
        noteProgress()
        return count
    }

    /// Writes what `write` gathered. False (with `callbackError` set) if the disk refused.
    @discardableResult
    func flushDownload() -> Bool {
        guard !fileBuffer.isEmpty else { return true }
        defer { fileBuffer.removeAll(keepingCapacity: true) }
        return fileBuffer.withUnsafeBytes { writeToFile($0) }
    }

    private func writeToFile(_ bytes: UnsafeRawBufferPointer) -> Bool {
        guard case .file(let fd, let path) = sink else { return false }
        var offset = 0
        while offset < bytes.count {
            let written = Glibc.write(fd, bytes.baseAddress! + offset, bytes.count - offset)
            if written < 0 {
                if errno == EINTR { continue }
                callbackError = .cannotWriteFile(path: path, reason: String(cString: strerror(errno)))
                return false
            }
            offset += written
        }
        return true
    }

    /// Enforces `maxReceiveBytesPerSecond`. curl 7.88 reads everything a socket has in one go
    /// before it checks its own limit, so on a fast link its limit does nothing; instead we
    /// pause the transfer from the write callback (curl keeps the chunk and hands it back)
    /// until the average rate is back under the limit. Returns true to pause.
    private func throttle(_ count: Int) -> Bool {
        guard let limit = configuration.maxReceiveBytesPerSecond, limit > 0 else { return false }
        let now = DispatchTime.now().uptimeNanoseconds
        if throttleStart == 0 { throttleStart = now }
        let elapsed = Double(now - throttleStart) / 1e9
        // Allow a tenth of a second's worth as a burst.
        let allowance = Double(limit) * (elapsed + 0.1)
        guard Double(throttleBytes + Int64(count)) > allowance, throttleBytes > 0 else {
            throttleBytes += Int64(count)
            return false
        }
        guard !throttled else { return true }
        throttled = true
        let wait = max(0.001, (Double(throttleBytes + Int64(count)) - allowance) / Double(limit))
        session.queue.asyncAfter(deadline: .now() + wait) { [self] in
            throttled = false
            // Leave a transfer alone that finished or that the caller suspended meanwhile.
            guard !isFinished, task.shared.withLock({ $0.lifecycle.state }) == .running else { return }
            setPaused(false)
            session.kick()
        }
        return true
    }

    fileprivate func header(_ line: String) {
        if line.hasPrefix("HTTP/") {
            // A new response starts (after a 100 Continue or a redirect): forget the last one.
            let parts = line.split(separator: " ", maxSplits: 2)
            currentStatus = parts.count > 1 ? Int(parts[1]) ?? 0 : 0
            currentHeaders = []
            return
        }
        let trimmed = line.trimmingCharacters(in: .whitespacesAndNewlines)
        if trimmed.isEmpty {
            headersEnded()
            return
        }
        guard let colon = trimmed.firstIndex(of: ":") else { return }
        let name = String(trimmed[..<colon]).trimmingCharacters(in: .whitespaces)
        let value = String(trimmed[trimmed.index(after: colon)...]).trimmingCharacters(in: .whitespaces)
        currentHeaders.append((name, value))
    }

    private func headersEnded() {
        let status = currentStatus
        if status < 200 { return }
        let isRedirect = [301, 302, 303, 307, 308].contains(status)
        if isRedirect, configuration.followsRedirects, currentHeaders.contains(where: { $0.name.lowercased() == "location" }) {
            return
        }
        let effective = easy.infoString(CURLINFO_EFFECTIVE_URL).flatMap(URL.init(string:)) ?? url
        let response = HTTPResponse(url: effective, statusCode: status, headerFields: currentHeaders)
        finalResponse = response
        var expected = response.expectedContentLength
        let task = self.task

        if task.kind == .download, response.isSuccess, case .file(let fd, _) = sink {
            if requestedRange && status == 200 {
                // The server sent the whole file again (the file changed, or it ignores ranges).
                fileBuffer.removeAll(keepingCapacity: true)
                _ = ftruncate(fd, 0)
                _ = lseek(fd, 0, SEEK_SET)
                resumeOffset = 0
            }
            if requestedRange && status == 206 {
                let start = response.value(forHeader: "Content-Range").flatMap(Self.contentRangeStart)
                if start != resumeOffset {
                    callbackError = .invalidResumeData(reason: "the server resumed at a different offset")
                }
            }
            if expected >= 0 { expected += resumeOffset }
            if requestedRange {
                let offset = resumeOffset
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

    static func contentRangeStart(_ value: String) -> Int64? {
        // "bytes 100-199/200"
        let trimmed = value.trimmingCharacters(in: .whitespaces)
        guard trimmed.lowercased().hasPrefix("bytes ") else { return nil }
        let range = trimmed.dropFirst(6)
        guard let dash = range.firstIndex(of: "-") else { return nil }
        return Int64(range[..<dash])
    }

    fileprivate func read(into buffer: UnsafeMutableRawBufferPointer) -> Int {
        if task.cancelRequested.load(ordering: .relaxed) { return Int(BC_CURL_READFUNC_PAUSE) }
        switch source {
        case .none:
            return 0
        case .memory(let data, let position):
            let count = min(buffer.count, data.count - position)
            guard count > 0 else { return 0 }
            data.withUnsafeBytes { bytes in
                buffer.baseAddress!.copyMemory(from: bytes.baseAddress! + position, byteCount: count)
            }
            source = .memory(data, position: position + count)
            return count
        case .file(let fd, let path, let start, let length, let position):
            let want = Int(min(Int64(buffer.count), length - position))
            guard want > 0 else { return 0 }
            while true {
                let count = Glibc.read(fd, buffer.baseAddress, want)
                if count > 0 {
                    source = .file(fd: fd, path: path, start: start, length: length, position: position + Int64(count))
                    return count
                }
                if count == 0 {
                    // The file shrank under us: fail rather than send a short body.
                    callbackError = .cannotReadFile(path: path, reason: "the file changed size during the upload")
                    return Int(BC_CURL_READFUNC_ABORT)
                }
                if errno == EINTR { continue }
                callbackError = .cannotReadFile(path: path, reason: String(cString: strerror(errno)))
                return Int(BC_CURL_READFUNC_ABORT)
            }
        }
    }

    /// curl rewinds the body when it must send it again (a redirect, or a reused connection
    /// that the server had closed).
    fileprivate func seek(to offset: Int64) -> Bool {
        switch source {
        case .none:
            return offset == 0
        case .memory(let data, _):
            guard offset >= 0, offset <= Int64(data.count) else { return false }
            source = .memory(data, position: Int(offset))
            return true
        case .file(let fd, let path, let start, let length, _):
            guard offset >= 0, offset <= length, lseek(fd, off_t(start + offset), SEEK_SET) >= 0 else { return false }
            source = .file(fd: fd, path: path, start: start, length: length, position: offset)
            return true
        }
    }
}

// MARK: - C callbacks

private func transfer(_ pointer: UnsafeMutableRawPointer?) -> EasyTransfer? {
    pointer.map { Unmanaged<EasyTransfer>.fromOpaque($0).takeUnretainedValue() }
}

private let easyWriteCallback: curl_write_callback = { data, size, count, userdata in
    guard let transfer = transfer(userdata), let data else { return 0 }
    return transfer.write(UnsafeRawBufferPointer(start: data, count: size * count))
}

private let easyHeaderCallback: curl_write_callback = { data, size, count, userdata in
    let length = size * count
    guard let transfer = transfer(userdata), let data else { return 0 }
    let line = String(decoding: UnsafeRawBufferPointer(start: data, count: length), as: UTF8.self)
    transfer.header(line)
    return length
}

private let easyReadCallback: curl_read_callback = { data, size, count, userdata in
    guard let transfer = transfer(userdata), let data else { return BC_CURL_READFUNC_ABORT }
    return transfer.read(into: UnsafeMutableRawBufferPointer(start: data, count: size * count))
}

private let easySeekCallback: curl_seek_callback = { userdata, offset, origin in
    guard let transfer = transfer(userdata), origin == SEEK_SET else { return BC_CURL_SEEKFUNC_FAIL }
    return transfer.seek(to: Int64(offset)) ? BC_CURL_SEEKFUNC_OK : BC_CURL_SEEKFUNC_FAIL
}

private let easyProgressCallback: curl_xferinfo_callback = { userdata, _, dlnow, ultotal, ulnow in
    guard let transfer = transfer(userdata) else { return 0 }
    transfer.progress(ulnow: Int64(ulnow), ultotal: Int64(ultotal))
    // A non-zero return aborts the transfer (CURLE_ABORTED_BY_CALLBACK).
    return transfer.idleExpired(moved: Int64(dlnow) + Int64(ulnow)) ? 1 : 0
}
