import CMalloc
import DropboxWire
import Foundation
import HTTPTypes
import Hummingbird
import Imaging
import NIOCore
import Synchronization

/// `get_thumbnail_v2`: a picture (JPEG, PNG, GIF, WebP or SVG, told apart by its bytes) scaled
/// into a box and answered as a JPEG or a PNG, as the `format` asks, in bounded memory.
///
/// A thumbnail is cheap for most pictures thanks to scaling while decoding (a JPEG's DCT
/// scaling, WebP's scaler, PNG and GIF a row at a time, SVG rasterised at the box), but not for
/// every one: the header is read first, and a picture that would cost too much to decode is
/// answered `unsupported_image` before a pixel is touched. Decodes run off the async pool, at
/// most one per core at a time and within a shared memory budget.
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

    /// A decode at least this heavy gives its freed memory back to the system before the next
    /// one is let in (``giveBackFreedMemory()``).
    static let trimAfterDecodesOf = 32 << 20

    /// Returns what malloc holds freed, in every arena, to the system (glibc's `malloc_trim`).
    /// A progressive JPEG's buffers are freed when its decode ends, but some of them are not
    /// given back: glibc raises its mmap threshold to the size of the largest block freed
    /// (up to 32 MiB), so the next decode's chroma buffers (21 MB each at 7000×6000) come
    /// from an arena's heap, and freed heap memory stays there. With two arenas, a decode on
    /// one thread could find the other's 42 MB still resident: three big decodes taking turns
    /// peaked at 227 MB where one alone takes 184 (1 run in 5 under load). A fixed threshold
    /// (`MALLOC_MMAP_THRESHOLD_`) cured it too (10 runs of 10), but for every allocation.
    static func giveBackFreedMemory() {
        _ = malloc_trim(0)
    }

    func thumbnail(_ request: Request) async throws -> Response {
        let arguments = try argument(request, what: "get_thumbnail_v2")
        // format, size, mode and resource are unions: "jpeg" or {".tag":"jpeg"} alike.
        let thumbnail = try arguments.decode(ThumbnailArgument.self)
        guard case .path(let path) = thumbnail.resource else { throw APIError.badRequest("get_thumbnail_v2: only path resources are supported") }
        let target: DropboxPath
        do { target = try DropboxPath.checked(path) } catch { throw APIError.endpoint([.path, .malformedPath]) }
        let output: Thumbnail.Output
        switch thumbnail.format {
        case .jpeg: output = .jpeg
        case .png: output = .png
        case .webp: throw APIError.badRequest("get_thumbnail_v2: only the jpeg and png formats are supported")
        }
        let ext = (target.name as NSString).pathExtension.lowercased()
        guard PictureFormat.fileExtensions.contains(ext) else { throw APIError.endpoint([.unsupportedExtension]) }
        let opened = try await store.openForReading(target)
        guard opened.file.size <= Self.maxThumbnailSourceBytes else { throw APIError.endpoint([.unsupportedImage]) }
        let handle = opened.handle
        let size = Int(opened.file.size)

        // The header first, from the start of the file: a refusal costs no decode slot.
        // Not kept while waiting for the gate: a thousand waiting connections would hold a
        // megabyte each outside the decode budget. The decode reads the file again.
        let prefix = try Self.read(handle, count: min(size, Self.thumbnailHeaderPrefix))
        guard let format = PictureFormat.sniff(prefix) else {
            configuration.logger.info("thumbnail of \(target) refused: \(Picture.describe(prefix)), no picture")
            throw APIError.endpoint([.unsupportedImage])
        }
        // An SVG's size is known only once it is parsed, which the decode does.
        let header = format == .svg ? nil : try? Picture.header(of: prefix)
        if let header {
            do {
                try Self.thumbnailLimits.check(header)
            } catch {
                configuration.logger.info("thumbnail of \(target) refused: \(error)")
                throw APIError.endpoint([.unsupportedImage])
            }
        }
        let (boxWidth, boxHeight) = (thumbnail.size.width, thumbnail.size.height)
        let weight = min(Self.decodeGate.budget, Self.decodeWeight(format: format, header: header, fileSize: size, box: boxWidth * boxHeight))
        await Self.decodeGate.acquire(weight: weight)
        defer { Self.decodeGate.release(weight: weight) }
        // The client may have gone while this waited its turn.
        guard !Task.isCancelled else { throw APIError.cancelled }
        let fit = Self.fit(thumbnail.mode)
        let made: Result<Data, APIError> = await withCheckedContinuation { continuation in
            // A decode is long CPU work: keep it off the cooperative pool the handlers share.
            DispatchQueue.global(qos: .userInitiated).async {
                let made = Result { () throws(APIError) in
                    let data = try Self.read(handle, count: size)
                    return try Self.makeThumbnail(of: data, boxWidth: boxWidth, boxHeight: boxHeight, fit: fit, output: output)
                }
                if weight >= Self.trimAfterDecodesOf { Self.giveBackFreedMemory() }
                continuation.resume(returning: made)
            }
        }
        let picture: Data
        switch made {
        case .success(let data): picture = data
        case .failure(let error):
            configuration.logger.info("thumbnail of \(target) failed: \(String(decoding: error.body, as: UTF8.self))")
            throw error
        }
        return Response(status: .ok, headers: [
            .contentType: output == .png ? "image/png" : "image/jpeg",
            Self.resultHeader: JSON.resultHeader(.file(opened.file), under: "file_metadata"),
        ], body: .init(byteBuffer: ByteBuffer(bytes: picture)))
    }

    /// What one decode holds besides the file's bytes, from its header where the prefix had it:
    /// a progressive JPEG's coefficient buffer; an animated WebP's two canvases (8 bytes a
    /// pixel; a still one is decoded at the box's size); for PNG, GIF and SVG, the box's pixels
    /// and their sums (at most 20 bytes a pixel), a PNG's row. A header beyond the prefix is
    /// unknown: it may cost the whole budget.
    static func decodeWeight(format: PictureFormat, header: Picture.Header?, fileSize: Int, box: Int) -> Int {
        switch format {
        case .jpeg:
            guard let jpeg = header?.jpeg else { return decodeGate.budget }
            return fileSize + (jpeg.buffersWholeImage ? jpeg.coefficientBytes : 0)
        case .webp:
            guard let header else { return decodeGate.budget }
            return fileSize + 8 * header.pixels
        case .png, .gif:
            guard let header else { return decodeGate.budget }
            return fileSize + 20 * box + 4 * header.width
        case .svg:
            // The parsed document (a few times its text) and the surface it is drawn on.
            return 16 * fileSize + 20 * box
        }
    }

    /// Checks the limits on the whole file's header, then scales it, with Dropbox's errors.
    static func makeThumbnail(of data: Data, boxWidth: Int, boxHeight: Int, fit: Thumbnail.Fit,
                              output: Thumbnail.Output = .jpeg) throws(APIError) -> Data {
        do {
            return try Thumbnail.make(from: data, boxWidth: boxWidth, boxHeight: boxHeight, fit: fit, limits: thumbnailLimits, output: output)
        } catch {
            switch error {
            case .notJPEG, .notPicture, .tooLarge: throw .endpoint([.unsupportedImage])
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
