/// The state of one upload or download as the UI shows it: a small state machine fed with
/// progress events, plus the text the transfer modal and the status bar print.
///
/// It never reads a clock. Every event that moves time forward carries a timestamp in seconds
/// on any monotonic clock the owner chooses (`ProcessInfo.systemUptime`, say), so the rate and
/// the ETA are the same in a test as on a live screen.
///
/// ```
///                   start / progress                 finish
///   starting ───────────────────────────▶ running ───────────▶ finished
///       │                                  │   ▲
///       │ fail / cancel / pause            │   │ start (resume)
///       ▼                                  ▼   │
///   failed, cancelled, paused ◀────────── paused
/// ```
/// - `starting` and `running` accept every event.
/// - `paused` (a download cancelled with resume data) accepts only ``start(total:at:)``,
///   which resumes it from the bytes already done.
/// - `finished`, `failed` and `cancelled` are final.
///
/// Any other event is ignored and its method returns `false`, so a late progress callback
/// after a cancel cannot bring a closed transfer back to life.
public struct TransferProgress: Hashable, Sendable {
    public enum Direction: Hashable, Sendable {
        case upload, download
    }

    public enum Phase: Hashable, Sendable {
        /// Created; no bytes have moved yet.
        case starting
        case running
        case finished
        /// Stopped by an error, with the message to show.
        case failed(String)
        case cancelled
        /// Cancelled with resume data: ``start(total:at:)`` resumes from ``done``.
        case paused
    }

    /// One progress report, for the rate.
    private struct Sample: Hashable, Sendable {
        var time: Double
        var done: Int64
    }

    public let direction: Direction
    /// The file's name as shown in titles.
    public let name: String
    public private(set) var phase: Phase
    /// The size, once known.
    public private(set) var total: Int64?
    /// The bytes sent or received, counting those of a resumed download's earlier runs.
    public private(set) var done: Int64
    /// Where the current run started: 0, or the offset a download resumed at.
    public private(set) var resumedFrom: Int64
    /// When the current run started and when the transfer finished, on the owner's clock.
    public private(set) var startedAt: Double?
    public private(set) var finishedAt: Double?

    /// How far back the rate looks: long enough to smooth 60 Hz jitter, short enough to follow
    /// a change of speed within a couple of seconds.
    public var rateWindow: Double = 2
    /// The shortest span of samples that gives a rate; less is noise ("--" until then).
    public var minimumRateSpan: Double = 0.5
    private var samples: [Sample] = []

    /// A transfer about to begin.
    ///
    /// - Parameter resumedFrom: for a download resumed from resume data, the bytes already on
    ///   disk; the bar starts there and ``resumeMessage`` says so.
    public init(direction: Direction, name: String, total: Int64? = nil, resumedFrom: Int64 = 0) {
        self.direction = direction
        self.name = name
        self.total = total
        self.done = max(0, resumedFrom)
        self.resumedFrom = max(0, resumedFrom)
        self.phase = .starting
    }

    // MARK: Events

    /// Whether events still change the transfer (it is starting or running).
    public var isActive: Bool { phase == .starting || phase == .running }

    /// Whether the transfer is over for good: finished, failed or cancelled.
    public var isFinal: Bool {
        switch phase {
        case .finished, .failed, .cancelled: return true
        case .starting, .running, .paused: return false
        }
    }

    /// The transfer began (or a paused one resumed) at `time`.
    ///
    /// Legal while starting or paused; resuming keeps ``done`` and records it as ``resumedFrom``.
    @discardableResult
    public mutating func start(total: Int64? = nil, at time: Double) -> Bool {
        switch phase {
        case .starting: break
        case .paused: resumedFrom = done
        default: return false
        }
        if let total { self.total = max(0, total) }
        phase = .running
        startedAt = time
        samples = [Sample(time: time, done: done)]
        return true
    }

    /// `done` bytes have moved by `time`; `total` updates the size when the transport learns it.
    ///
    /// Legal while starting (it starts the transfer) or running. Reporting the same `done` again,
    /// say from a timer, lets the rate fall towards zero on a stalled connection. A smaller
    /// `done` than before (a retry starting over) restarts the rate.
    @discardableResult
    public mutating func progress(done: Int64, total: Int64? = nil, at time: Double) -> Bool {
        if phase == .starting { start(total: total, at: time) }
        guard phase == .running else { return false }
        if let total { self.total = max(0, total) }
        let done = max(0, done)
        if done < self.done || samples.last.map({ time < $0.time }) ?? false { samples.removeAll() }
        self.done = done
        samples.append(Sample(time: time, done: done))
        pruneSamples()
        return true
    }

    /// The transfer completed at `time`: ``done`` becomes the total (or the total becomes
    /// ``done`` when the size was never known).
    @discardableResult
    public mutating func finish(at time: Double) -> Bool {
        guard isActive else { return false }
        if let total { done = total } else { total = done }
        if startedAt == nil { startedAt = time }
        finishedAt = time
        phase = .finished
        return true
    }

    /// The transfer stopped with an error; `message` is shown in the modal.
    @discardableResult
    public mutating func fail(_ message: String) -> Bool {
        guard isActive else { return false }
        phase = .failed(message)
        return true
    }

    /// The user cancelled the transfer; there is nothing to resume.
    @discardableResult
    public mutating func cancel() -> Bool {
        guard isActive else { return false }
        phase = .cancelled
        return true
    }

    /// The transfer was cancelled with resume data; ``start(total:at:)`` resumes it.
    @discardableResult
    public mutating func pause() -> Bool {
        guard isActive else { return false }
        phase = .paused
        return true
    }

    /// Drops samples older than the window, keeping one at or before its start so the rate
    /// always covers the whole window once there is that much history.
    private mutating func pruneSamples() {
        guard let last = samples.last else { return }
        let cutoff = last.time - rateWindow
        var drop = 0
        while drop + 1 < samples.count, samples[drop + 1].time <= cutoff { drop += 1 }
        if drop > 0 { samples.removeFirst(drop) }
    }

    // MARK: Figures

    /// How much is done, 0…1; `nil` when the size is unknown. It reaches 1 only when finished
    /// or when every byte has moved.
    public var fraction: Double? {
        if phase == .finished { return 1 }
        guard let total else { return nil }
        guard total > 0 else { return 0 }
        return min(1, Double(done) / Double(total))
    }

    /// The whole percentage, rounded down: 100 only when finished or every byte has moved,
    /// so a bar never claims "100%" while the last bytes are still in flight. `nil` when the
    /// size is unknown.
    public var percent: Int? {
        if phase == .finished { return 100 }
        guard let total else { return nil }
        guard total > 0 else { return 0 }
        if done >= total { return 100 }
        return min(99, Self.wholePercent(done, of: total))
    }

    /// `part` of `whole` in whole percent, rounded down. Integer arithmetic, because a Double
    /// makes 29 of 100 into 28.999…%.
    private static func wholePercent(_ part: Int64, of whole: Int64) -> Int {
        guard whole > 0 else { return 0 }
        if part <= Int64.max / 100 { return Int(part * 100 / whole) }
        return Int(part / (whole / 100 + 1))  // beyond 92 PB a percent is close enough
    }

    /// The smoothed speed in bytes per second over the last ``rateWindow`` seconds; `nil`
    /// before there is ``minimumRateSpan`` of history or once the transfer is not running.
    public var rate: Double? {
        guard phase == .running, let first = samples.first, let last = samples.last else { return nil }
        let span = last.time - first.time
        guard span >= minimumRateSpan else { return nil }
        return Double(last.done - first.done) / span
    }

    /// The average speed of a finished transfer's last run.
    public var averageRate: Double? {
        guard phase == .finished, let startedAt, let finishedAt, finishedAt > startedAt else { return nil }
        return Double(done - resumedFrom) / (finishedAt - startedAt)
    }

    /// Seconds left at the current ``rate``; `nil` when the size or the rate is unknown, or
    /// the rate is zero.
    public var secondsLeft: Double? {
        guard let total, let rate, rate > 0 else { return nil }
        return Double(max(0, total - done)) / rate
    }

    // MARK: Text

    /// "Uploading photo.jpg" or "Downloading photo.jpg".
    public var title: String {
        (direction == .upload ? "Uploading " : "Downloading ") + name
    }

    /// "42%", or "" when the size is unknown.
    public var percentText: String { percent.map { "\($0)%" } ?? "" }

    /// "12.3 MB / 20.0 MB", or "12.3 MB" while the size is unknown.
    public var sizeText: String {
        let sent = ByteFormat.size(done)
        return total.map { sent + " / " + ByteFormat.size($0) } ?? sent
    }

    /// "1.0 MB/s", or "--".
    public var rateText: String { ByteFormat.rate(rate) }

    /// "0:17", "1:02:03", or "--".
    public var etaText: String { ByteFormat.duration(secondsLeft) }

    /// The line under the bar: "12.3 MB / 20.0 MB · 1.0 MB/s · 0:08 left" while running, and
    /// what it came to once finished.
    public var detailText: String {
        switch phase {
        case .finished:
            var text = ByteFormat.size(done)
            if let startedAt, let finishedAt { text += " in " + ByteFormat.duration(finishedAt - startedAt) }
            if let averageRate { text += " · " + ByteFormat.rate(averageRate) }
            return text
        case .starting, .running:
            return sizeText + " · " + rateText + " · " + etaText + " left"
        case .failed, .cancelled, .paused:
            return sizeText
        }
    }

    /// What happened, for a modal's body or the status bar: `nil` while starting or running.
    ///
    /// "Uploaded photo.jpg", "Upload failed: <message>", "Upload cancelled",
    /// "Download paused at 42%, Enter resumes".
    public var outcomeText: String? {
        let noun = direction == .upload ? "Upload" : "Download"
        switch phase {
        case .starting, .running: return nil
        case .finished: return (direction == .upload ? "Uploaded " : "Downloaded ") + name
        case .failed(let message): return "\(noun) failed: \(message)"
        case .cancelled: return "\(noun) cancelled"
        case .paused: return "\(noun) paused" + (percent.map { " at \($0)%" } ?? "") + ", Enter resumes"
        }
    }

    /// "Resuming at 42%" for a resumed download (by bytes when the size is unknown); `nil` for
    /// one that started from the beginning.
    public var resumeMessage: String? {
        guard resumedFrom > 0 else { return nil }
        if let total, total > 0 {
            return "Resuming at \(min(99, Self.wholePercent(resumedFrom, of: total)))%"
        }
        return "Resuming at " + ByteFormat.size(resumedFrom)
    }

    /// The compact form for the status bar while the transfer runs in the background:
    /// "↑ photo.jpg 42%", "↓ photo.jpg 3.1 MB" (size unknown), "↓ photo.jpg paused 42%".
    ///
    /// - Parameter nameWidth: the name is cut to this many columns, with "…".
    public func statusText(nameWidth: Int = 24) -> String {
        let arrow = direction == .upload ? "↑" : "↓"
        let figure = percent.map { "\($0)%" } ?? ByteFormat.size(done)
        let shortName = TextWidth.truncate(name, to: max(1, nameWidth))
        switch phase {
        case .starting, .running, .finished: return "\(arrow) \(shortName) \(figure)"
        case .paused: return "\(arrow) \(shortName) paused \(figure)"
        case .failed: return "\(arrow) \(shortName) failed"
        case .cancelled: return "\(arrow) \(shortName) cancelled"
        }
    }
}
