import ClubKit
import Foundation
import Synchronization
import Logging
import Remote
import Durable

/// swift-log to `$XDG_STATE_HOME/byteclub/byteclub.log`: the UI owns the screen, so nothing
/// may log to stdout or stderr while it runs.
///
/// The level comes from `BYTECLUB_LOG_LEVEL` (default `info`). If the file cannot be opened,
/// logs are dropped rather than shown.
public enum FileLog {
    public static func bootstrap(url: URL) {
        let level = Paths.variable("BYTECLUB_LOG_LEVEL").flatMap(Logger.Level.init(rawValue:)) ?? .info
        let sink = LogFile(url: url)
        LoggingSystem.bootstrap { label in
            guard let sink else { return SwiftLogNoOpLogHandler(label) }
            var handler = LineLogHandler(label: label, sink: .file(sink))
            handler.logLevel = level
            return handler
        }
    }
}

/// An append-only log file shared by every logger: each line goes to the file with write(2) as
/// it is logged, never flushed to disk (an OS crash may cut its last lines; the exit waits on nothing).
final class LogFile: Sendable {
    private let lock = NSLock()
    private let descriptor: Int32

    init?(url: URL) {
        try? PrivateFiles.folder(url.deletingLastPathComponent())
        let fd = PrivateFiles.open(url.path, O_WRONLY | O_CREAT | O_APPEND)
        guard fd >= 0 else { return nil }
        descriptor = fd
    }

    func write(_ line: String) {
        lock.withLock {
            var bytes = Array(line.utf8)
            bytes.append(UInt8(ascii: "\n"))
            _ = bytes.withUnsafeBytes { Foundation.write(descriptor, $0.baseAddress, $0.count) }
        }
    }
}

/// The scripting commands' log (ls, get, put, rm, mv, search …): stderr, each line through the
/// one sanitizer, since log lines carry names and error bodies from the server.
///
/// A command's stderr is for people and scripts, and says each thing as every failure is said:
/// one line, `byteclub: …` (docs/cli.md), from `notice` up. `BYTECLUB_LOG_LEVEL` asks for the
/// log itself instead: every line from that level, with its time, level and label.
enum StderrLog {
    /// Once per process, however many remote operations a command runs (swift-log traps on a
    /// second bootstrap).
    private static let done = Mutex(false)

    static func bootstrap() {
        guard done.withLock({ done in defer { done = true }; return !done }) else { return }
        let asked = Paths.variable("BYTECLUB_LOG_LEVEL").flatMap(Logger.Level.init(rawValue:))
        LoggingSystem.bootstrap { label in
            var handler = LineLogHandler(label: label, sink: asked == nil ? .sentences : .standardError)
            handler.logLevel = asked ?? .notice
            return handler
        }
    }
}

/// One line per message: time, level, label, message and metadata, with control characters
/// escaped (``TerminalSafe``): a log file is read with `tail -f` in a terminal too.
struct LineLogHandler: LogHandler {
    enum Sink: Sendable {
        case file(LogFile)
        case standardError
        /// stderr, a message as a command's sentence: `byteclub: …`, nothing else (``say``).
        case sentences
    }

    let label: String
    let sink: Sink
    var logLevel: Logger.Level = .info
    var metadata: Logger.Metadata = [:]

    init(label: String, sink: Sink) {
        self.label = label
        self.sink = sink
    }

    subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    func log(level: Logger.Level, message: Logger.Message, metadata extra: Logger.Metadata?, source: String,
             file: String, function: String, line: UInt) {
        if case .sentences = sink {
            FileHandle.standardError.write(Data("byteclub: \(TerminalSafe.escape(message.description))\n".utf8))
            return
        }
        var line = Self.timestamp() + " " + level.rawValue + " " + label + ": " + message.description
        let all = metadata.merging(extra ?? [:]) { $1 }
        if !all.isEmpty {
            line += " " + all.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }.joined(separator: " ")
        }
        line = TerminalSafe.escape(line)
        switch sink {
        case .file(let file): file.write(line)
        case .standardError, .sentences: FileHandle.standardError.write(Data((line + "\n").utf8))
        }
    }

    private static func timestamp() -> String {
        var now = timespec()
        clock_gettime(CLOCK_REALTIME, &now)
        var parts = tm()
        var seconds = now.tv_sec
        gmtime_r(&seconds, &parts)
        return String(format: "%04d-%02d-%02dT%02d:%02d:%02d.%03dZ", parts.tm_year + 1900, parts.tm_mon + 1, parts.tm_mday,
                      parts.tm_hour, parts.tm_min, parts.tm_sec, now.tv_nsec / 1_000_000)
    }
}
