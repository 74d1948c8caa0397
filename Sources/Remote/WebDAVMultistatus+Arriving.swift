import Foundation
#if canImport(FoundationXML)
import FoundationXML
#endif

/// A PROPFIND answer parsed while it arrives (issue 56): the body is written to a private spool
/// file as the network delivers it (``MultistatusSpool``), and the XML parser, on a thread of its
/// own, reads that file behind the writer (``MultistatusTail``), so the first responses of a
/// 100,000-entry listing are entries long before its last byte is in. Memory stays that of a
/// chunk and one response; the file holds the XML.
extension WebDAVMultistatus {
    /// Parses the answer `spool` receives, handing responses to `deliver` in batches of up to
    /// `batch`, in the server's order, until the answer ends; blocks the calling thread (a thread
    /// of the caller's). Answers why the answer is not a multistatus, or nil.
    static func parseArriving(_ spool: MultistatusSpool, batch: Int = 256, chunk: Int = 1 << 20,
                              deliver: @escaping ([WebDAVResource]) -> Void) -> RemoteError? {
        var pending: [WebDAVResource] = []
        pending.reserveCapacity(batch)
        // What is parsed goes out before the parser waits for the network: a slow server's
        // first entries are not held for a batch to fill.
        let tail = MultistatusTail(spool, chunk: chunk) {
            guard !pending.isEmpty else { return }
            deliver(pending)
            pending.removeAll(keepingCapacity: true)
        }
        do throws(RemoteError) {
            try parse(tail) { (resource) throws(RemoteError) -> Void in
                pending.append(resource)
                if pending.count >= batch {
                    deliver(pending)
                    pending.removeAll(keepingCapacity: true)
                }
            }
        } catch {
            // What the screen refused says why better than the parser's error it caused.
            return tail.failure ?? error
        }
        if let failure = tail.failure { return failure }
        if !pending.isEmpty { deliver(pending) }
        return nil
    }
}

extension WebDAVMultistatus {
    /// `data` parsed as an answer arriving `chunk` bytes at a time (the fuzz target's way in: the
    /// screen and the parser see the chunks the network would give them).
    package static func parseArriving(_ data: Data, chunk: Int) throws(RemoteError) -> [WebDAVResource] {
        let spool = try MultistatusSpool(directory: FileManager.default.temporaryDirectory, limit: .max)
        do {
            try spool.write(data, at: 0)
        } catch {
            throw .local("cannot spool the answer: \(error)")
        }
        spool.end()
        var resources: [WebDAVResource] = []
        if let failure = parseArriving(spool, chunk: chunk, deliver: { resources += $0 }) { throw failure }
        return resources
    }
}

/// The rules ``WebDAVMultistatus/checkedBody(_:)`` gives a whole answer, given to one that
/// arrives a chunk at a time, before the parser sees it (each guards a crash a fuzzer found in
/// FoundationXML on libxml2): a byte-order mark and an XML declaration are blanked (spaces
/// before the root element are allowed where a declaration is not), and the rest must be
/// UTF-8 with no processing instruction.
struct MultistatusScreen {
    /// The first bytes, held until the declaration can be told (at most ``declarationLimit``).
    private var start = Data()
    private var started = false
    /// A UTF-8 sequence the last chunk's end cut short.
    private var carried = Data()
    private var lastByte: UInt8?

    /// The most bytes waited for before a declaration must have ended.
    static let declarationLimit = 1 << 20

    /// The bytes of `chunk` (the answer's next ones) the parser is to see, or none yet while
    /// the declaration cannot be told; `atEnd` says the answer has ended after it.
    mutating func pass(_ chunk: Data, atEnd: Bool) throws(RemoteError) -> Data {
        var chunk = chunk
        if !started {
            start.append(chunk)
            guard atEnd || Self.canTellDeclaration(start) else { return Data() }
            let length = try Self.declarationLength(of: start)
            chunk = start
            chunk.replaceSubrange(0..<length, with: Data(repeating: UInt8(ascii: " "), count: length))
            start = Data()
            started = true
        }
        try screen(chunk)
        if atEnd, !carried.isEmpty { throw Self.refusal("it is not UTF-8 text") }
        return chunk
    }

    private mutating func screen(_ chunk: Data) throws(RemoteError) {
        guard !chunk.isEmpty else { return }
        if lastByte == UInt8(ascii: "<"), chunk.first == UInt8(ascii: "?") { throw Self.refusal("it holds a processing instruction") }
        if chunk.firstRange(of: Data("<?".utf8)) != nil { throw Self.refusal("it holds a processing instruction") }
        lastByte = chunk.last
        var text = carried
        text.append(chunk)
        let cut = Self.completeUTF8Prefix(text)
        carried = text.subdata(in: cut..<text.count)
        guard String(validating: text.prefix(cut), as: UTF8.self) != nil else { throw Self.refusal("it is not UTF-8 text") }
    }

    /// Whether `start` says whether it has a declaration, and where that ends.
    private static func canTellDeclaration(_ start: Data) -> Bool {
        if start.count >= declarationLimit { return true }
        let mark: [UInt8] = [0xEF, 0xBB, 0xBF]
        let opening = Array("<?xml".utf8)
        var rest = start[...]
        if rest.starts(with: mark) {
            rest = rest.dropFirst(3)
        } else if mark.starts(with: rest) {
            return false  // a mark's first bytes: more to come
        }
        if rest.starts(with: opening) { return rest.firstRange(of: Data("?>".utf8)) != nil }
        return !opening.starts(with: rest)
    }

    /// How many bytes at the start are a byte-order mark and an XML declaration.
    static func declarationLength(of body: Data) throws(RemoteError) -> Int {
        var length = body.starts(with: [0xEF, 0xBB, 0xBF]) ? 3 : 0
        let rest = body.dropFirst(length)
        if rest.starts(with: Data("<?xml".utf8)) {
            guard let end = rest.firstRange(of: Data("?>".utf8)) else { throw refusal("its XML declaration does not end") }
            length = end.upperBound - body.startIndex
        }
        return length
    }

    /// The length of `data` without a last UTF-8 sequence its end cuts short (at most 3 bytes).
    static func completeUTF8Prefix(_ data: Data) -> Int {
        let bytes = [UInt8](data.suffix(3))
        for back in 1...max(1, bytes.count) where back <= bytes.count {
            let byte = bytes[bytes.count - back]
            if byte & 0xC0 == 0x80 { continue }  // a continuation byte: look further back
            let needed = byte >= 0xF0 ? 4 : byte >= 0xE0 ? 3 : byte >= 0xC0 ? 2 : 1
            return needed > back ? data.count - back : data.count
        }
        return data.count
    }

    static func refusal(_ why: String) -> RemoteError {
        .server(status: 0, detail: "the server's PROPFIND answer was not a WebDAV multistatus (\(why))")
    }
}

/// The spool file a PROPFIND's answer is written to as it arrives, and read from behind the
/// writer: the network's side writes (``write(_:at:)``) and ends it (``end()``); the parser's
/// side waits for bytes (``wait(after:)``); either side may give up.
///
/// `@unchecked Sendable`: the counters are read and written only under `condition`'s lock, and
/// each file handle is used by one side only (the writer's by the session's callback queue, the
/// reader's by the parser's thread).
final class MultistatusSpool: @unchecked Sendable {
    /// Thrown by ``write(_:at:)`` past the limit (the session then cancels the request).
    struct TooLong: Error {}
    struct Abandoned: Error {}

    let file: URL
    let limit: Int64
    private let writer: FileHandle
    let reader: FileHandle
    private let condition = NSCondition()
    private var written: Int64 = 0
    private var ended = false
    private var abandoned = false

    init(directory: URL, limit: Int64) throws(RemoteError) {
        file = directory.appendingPathComponent("byteclub-multistatus-\(UUID().uuidString).xml")
        self.limit = limit
        guard FileManager.default.createFile(atPath: file.path, contents: nil, attributes: [.posixPermissions: 0o600]),
              let writer = try? FileHandle(forWritingTo: file), let reader = try? FileHandle(forReadingFrom: file) else {
            throw .local("cannot write the WebDAV answer to \(directory.path)")
        }
        self.writer = writer
        self.reader = reader
        // Both ends are open: the name goes now, and the bytes with the last handle, so a
        // process killed mid-listing leaves no spool behind.
        unlink(file.path)
    }

    deinit {
        try? writer.close()
        try? reader.close()
    }

    /// The network's side: the answer's next bytes, at `offset` (the bytes so far).
    func write(_ data: Data, at offset: Int64) throws {
        condition.lock()
        let stop: (any Error)? = abandoned ? Abandoned() : offset + Int64(data.count) > limit ? TooLong() : nil
        condition.unlock()
        if let stop { throw stop }
        try writer.write(contentsOf: data)
        condition.lock()
        written = offset + Int64(data.count)
        condition.broadcast()
        condition.unlock()
    }

    /// The answer has ended, whole or not.
    func end() {
        condition.lock()
        ended = true
        condition.broadcast()
        condition.unlock()
    }

    /// The reader stops: later writes throw, and a waiting read returns.
    func abandon() {
        condition.lock()
        abandoned = true
        condition.broadcast()
        condition.unlock()
    }

    /// Whether bytes past `offset` are written, or the answer ended: a read would not wait.
    func hasBytes(after offset: Int64) -> Bool {
        condition.lock()
        defer { condition.unlock() }
        return written > offset || ended || abandoned
    }

    /// Waits until bytes past `offset` are written (how far the file goes then), or the answer
    /// ended (`offset` itself once everything is read); nil once abandoned.
    func wait(after offset: Int64) -> Int64? {
        condition.lock()
        defer { condition.unlock() }
        while written <= offset && !ended && !abandoned { condition.wait() }
        return abandoned ? nil : written
    }
}

/// What the XML parser reads: the spool file behind its writer, through the screen. A read
/// waits for the network when it has caught up with it; the end of the answer is the end of
/// the stream. Used by the parser's thread alone.
final class MultistatusTail: InputStream {
    private let spool: MultistatusSpool
    private var offset: Int64 = 0
    private var screen = MultistatusScreen()
    /// Screened bytes, read up to `readFrom` (a chunk is longer than the parser's reads).
    private var ready = Data()
    private var readFrom = 0
    private var atEnd = false
    /// Why the answer was refused, or that the reader was abandoned.
    private(set) var failure: RemoteError?
    /// Called before a read waits for the network.
    private let beforeWaiting: () -> Void
    /// The most bytes read from the spool at once.
    private let chunk: Int

    init(_ spool: MultistatusSpool, chunk: Int = 1 << 20, beforeWaiting: @escaping () -> Void = {}) {
        self.spool = spool
        self.chunk = max(1, chunk)
        self.beforeWaiting = beforeWaiting
        super.init(data: Data())
    }

    override func open() {}
    override func close() {}
    override var hasBytesAvailable: Bool { !(atEnd && readFrom == ready.count) && failure == nil }
    /// Read by the parser after a read of -1 (the base class's would trap: no stream behind it).
    override var streamError: (any Error)? {
        failure.map { NSError(domain: "byteclub.webdav", code: 1, userInfo: [NSLocalizedDescriptionKey: $0.message]) }
    }
    override var streamStatus: Stream.Status { failure != nil ? .error : atEnd && readFrom == ready.count ? .atEnd : .open }

    override func read(_ buffer: UnsafeMutablePointer<UInt8>, maxLength length: Int) -> Int {
        guard failure == nil else { return -1 }
        while readFrom == ready.count && !atEnd {
            if !spool.hasBytes(after: offset) { beforeWaiting() }
            guard let available = spool.wait(after: offset) else {
                failure = .cancelled
                return -1
            }
            do throws(RemoteError) {
                if available == offset {
                    atEnd = true
                    ready = try screen.pass(Data(), atEnd: true)
                } else {
                    let count = Int(min(available - offset, Int64(chunk)))
                    guard let chunk = try? spool.reader.read(upToCount: count), !chunk.isEmpty else {
                        failure = .local("cannot read the spooled WebDAV answer \(spool.file.path)")
                        return -1
                    }
                    offset += Int64(chunk.count)
                    ready = try screen.pass(chunk, atEnd: false)
                }
            } catch {
                failure = error
                return -1
            }
        }
        let count = min(length, ready.count - readFrom)
        guard count > 0 else { return 0 }
        ready.withUnsafeBytes { bytes in buffer.update(from: bytes.bindMemory(to: UInt8.self).baseAddress! + readFrom, count: count) }
        readFrom += count
        if readFrom == ready.count {
            ready = Data()
            readFrom = 0
        }
        return count
    }
}
