import DropboxWire
import Foundation
import HTTPTypes
import Hummingbird
import Imaging
import NIOCore
import Synchronization

/// `get_thumbnail_v2`: a JPEG scaled into a box, in bounded memory.
///
/// A thumbnail is cheap for most photos thanks to DCT scaling, but not for every JPEG: the
/// header is read first, and an image that would cost too much to decode is answered
/// `unsupported_image` before a pixel is touched. Decodes run off the async pool, at most one
/// per core at a time and within a shared memory budget.
extension ClubAPI {
    /// What one decode may cost. 100 megapixels covers a 16000×6000 panorama; a progressive
    /// (or multi-scan) JPEG must also fit its whole-image coefficient buffer in 128 MiB, which
    /// is about 44 megapixels at 4:2:0 (a 16000×16000 progressive would need 768 MB).
    static let thumbnailLimits = Thumbnail.Limits(maxPixels: 100_000_000, maxBufferedBytes: 128 << 20)
    /// Files larger than this are not read for a thumbnail.
    static let maxThumbnailSourceBytes: Int64 = 64 << 20
    /// The first bytes read for the header; a file whose first scan lies further in is read whole.
    static let thumbnailHeaderPrefix = 1 << 20
    /// Decodes at once in this process (all servers in it share the cores and the memory): one
    /// per core, and together no more than the largest single decode may take (the file's bytes
    /// plus a coefficient buffer), so two big progressive images take turns.
    static let decodeGate = DecodeGate(limit: max(1, ProcessInfo.processInfo.activeProcessorCount),
                                       budget: Int(maxThumbnailSourceBytes) + thumbnailLimits.maxBufferedBytes)

    func thumbnail(_ request: Request) async throws -> Response {
        let arguments = try argument(request, what: "get_thumbnail_v2")
        // format, size, mode and resource are unions: "jpeg" or {".tag":"jpeg"} alike.
        let thumbnail = try arguments.decode(ThumbnailArgument.self)
        guard case .path(let path) = thumbnail.resource else { throw APIError.badRequest("get_thumbnail_v2: only path resources are supported") }
        let target: DropboxPath
        do { target = try DropboxPath.checked(path) } catch { throw APIError.endpoint([.path, .malformedPath]) }
        guard thumbnail.format == .jpeg else { throw APIError.badRequest("get_thumbnail_v2: only the jpeg format is supported") }
        let ext = (target.name as NSString).pathExtension.lowercased()
        guard ["jpg", "jpeg"].contains(ext) else { throw APIError.endpoint([.unsupportedExtension]) }
        let opened = try await store.openForReading(target)
        guard opened.file.size <= Self.maxThumbnailSourceBytes else { throw APIError.endpoint([.unsupportedImage]) }
        let handle = opened.handle
        let size = Int(opened.file.size)

        // The header first, from the start of the file: a refusal costs no decode slot.
        // Not kept while waiting for the gate: a thousand waiting connections would hold a
        // megabyte each outside the decode budget. The decode reads the file again.
        let header = try? JPEG.header(of: try Self.read(handle, count: min(size, Self.thumbnailHeaderPrefix)))
        if let header {
            do {
                try Self.thumbnailLimits.check(header)
            } catch {
                configuration.logger.info("thumbnail of \(target) refused: \(error)")
                throw APIError.endpoint([.unsupportedImage])
            }
        }
        // A header beyond the prefix is unknown: it may cost the whole budget.
        let weight = header.map { size + ($0.buffersWholeImage ? $0.coefficientBytes : 0) } ?? Self.decodeGate.budget
        await Self.decodeGate.acquire(weight: weight)
        defer { Self.decodeGate.release(weight: weight) }
        // The client may have gone while this waited its turn.
        guard !Task.isCancelled else { throw APIError.cancelled }
        let (boxWidth, boxHeight) = (thumbnail.size.width, thumbnail.size.height)
        let fit = Self.fit(thumbnail.mode)
        let made: Result<Data, APIError> = await withCheckedContinuation { continuation in
            // A decode is long CPU work: keep it off the cooperative pool the handlers share.
            DispatchQueue.global(qos: .userInitiated).async {
                continuation.resume(returning: Result { () throws(APIError) in
                    let data = try Self.read(handle, count: size)
                    return try Self.makeThumbnail(of: data, boxWidth: boxWidth, boxHeight: boxHeight, fit: fit)
                })
            }
        }
        let jpeg: Data
        switch made {
        case .success(let data): jpeg = data
        case .failure(let error):
            configuration.logger.info("thumbnail of \(target) failed: \(String(decoding: error.body, as: UTF8.self))")
            throw error
        }
        return Response(status: .ok, headers: [
            .contentType: "image/jpeg",
            Self.resultHeader: JSON.resultHeader(.file(opened.file), under: "file_metadata"),
        ], body: .init(byteBuffer: ByteBuffer(bytes: jpeg)))
    }

    /// Checks the limits on the whole file's header, then scales it, with Dropbox's errors.
    static func makeThumbnail(of data: Data, boxWidth: Int, boxHeight: Int, fit: Thumbnail.Fit) throws(APIError) -> Data {
        do {
            return try Thumbnail.make(from: data, boxWidth: boxWidth, boxHeight: boxHeight, fit: fit, limits: thumbnailLimits)
        } catch {
            switch error {
            case .notJPEG, .tooLarge: throw .endpoint([.unsupportedImage])
            case .decodeFailed, .encodeFailed: throw .endpoint([.conversionError])
            }
        }
    }

    /// The first `count` bytes of an open file.
    static func read(_ handle: FileHandleBox, count: Int) throws(APIError) -> Data {
        var data = Data(count: count)
        let complete = data.withUnsafeMutableBytes { buffer -> Bool in
            var offset = 0
            while offset < count {
                let got = pread(handle.fd, buffer.baseAddress! + offset, count - offset, off_t(offset))
                if got < 0 && errno == EINTR { continue }
                guard got > 0 else { return false }
                offset += got
            }
            return true
        }
        guard complete else { throw .endpoint([.conversionError]) }
        return data
    }

    /// Dropbox's thumbnail modes as Imaging's fits.
    static func fit(_ mode: ThumbnailMode) -> Thumbnail.Fit {
        switch mode {
        case .strict: return .within
        case .bestfit: return .withinEitherWay
        case .fitoneBestfit: return .coverEitherWay
        }
    }
}

/// A counting semaphore for async code with a budget: at most `limit` holders whose weights
/// add up to at most `budget` (a holder heavier than the budget is let in alone). Waiters are
/// let in first come, first served, so a heavy one is not passed over forever.
final class DecodeGate: Sendable {
    private struct State {
        var running = 0
        var used = 0
        var waiting: [(weight: Int, continuation: CheckedContinuation<Void, Never>)] = []

        func admits(_ weight: Int, limit: Int, budget: Int) -> Bool {
            running < limit && (used == 0 || used + weight <= budget)
        }

        mutating func admit(_ weight: Int) {
            running += 1
            used += weight
        }
    }
    private let state = Mutex(State())
    let limit: Int
    let budget: Int

    init(limit: Int, budget: Int) {
        self.limit = limit
        self.budget = budget
    }

    func acquire(weight: Int) async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let admitted = state.withLock { state -> Bool in
                guard state.waiting.isEmpty, state.admits(weight, limit: limit, budget: budget) else {
                    state.waiting.append((weight, continuation))
                    return false
                }
                state.admit(weight)
                return true
            }
            if admitted { continuation.resume() }
        }
    }

    /// Gives back a holder's share and lets in as many waiters, in order, as now fit.
    func release(weight: Int) {
        let next = state.withLock { state -> [CheckedContinuation<Void, Never>] in
            state.running -= 1
            state.used -= weight
            var admitted: [CheckedContinuation<Void, Never>] = []
            while let first = state.waiting.first, state.admits(first.weight, limit: limit, budget: budget) {
                state.waiting.removeFirst()
                state.admit(first.weight)
                admitted.append(first.continuation)
            }
            return admitted
        }
        for continuation in next { continuation.resume() }
    }
}
