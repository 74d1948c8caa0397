import Dispatch
import Foundation
import Imaging
import Remote
import Synchronization

/// Where a thumbnail's JPEG comes from: the store's thumbnail endpoint (a club server,
/// Dropbox), or, for a store that has none or makes none of this format and says so
/// (`.notSupported`: WebDAV; Dropbox's SVGs), made here from the photo itself.
///
/// Making one here is the app's work, not the store's: a store only moves bytes, and Remote
/// does not link Imaging. The photo is downloaded whole (at most ``maxSourceBytes``, checked
/// against the listing's size and again as the bytes arrive, so a server that lies about the
/// size is stopped too), decoded whatever its format (``Picture``: a JPEG with libjpeg-turbo's
/// DCT scaling, a PNG or GIF a row at a time, a WebP scaled by libwebp, an SVG rasterised at
/// the box: only as many pixels as the box needs) within the club server's decode limits, and
/// encoded as a JPEG. The decode is long
/// CPU work, so it runs on a Dispatch queue, neither on the UI queue nor on Swift's
/// cooperative pool.
enum ThumbnailSource {
    /// The largest photo downloaded to make a thumbnail from.
    static let maxSourceBytes: Int64 = 64 << 20
    /// The club server's limits on one decode (see ClubAPI+Thumbnail.swift).
    static let limits = Thumbnail.Limits(maxPixels: 100_000_000, maxBufferedBytes: 128 << 20)

    /// The thumbnail of `entry` in `size`, from the store, or made here when it has no endpoint.
    static func jpeg(of entry: RemoteEntry, size: ThumbnailSize, from store: any RemoteStore) async throws(RemoteError) -> Data {
        do throws(RemoteError) {
            return try await store.thumbnail(entry.path, size: size)
        } catch .notSupported(_) {
            return try await make(of: entry, size: size, from: store)
        }
    }

    /// Downloads the photo and scales it into `size`'s box.
    static func make(of entry: RemoteEntry, size: ThumbnailSize, from store: any RemoteStore) async throws(RemoteError) -> Data {
        let ext = (entry.name as NSString).pathExtension.lowercased()
        guard PictureFormat.fileExtensions.contains(ext) else { throw .local("no preview of \(entry.name): not a picture") }
        guard entry.size <= maxSourceBytes else { throw .local("no preview of \(entry.name): larger than \(maxSourceBytes >> 20) MiB") }
        let data = try await download(entry, from: store)
        let box = size.box
        let made: Result<Data, ImagingError> = await withCheckedContinuation { continuation in
            DispatchQueue.global(qos: .userInitiated).async {
                continuation.resume(returning: Result { () throws(ImagingError) in
                    try Thumbnail.make(from: data, boxWidth: box.width, boxHeight: box.height, fit: .within, limits: limits)
                })
            }
        }
        switch made {
        case .success(let jpeg): return jpeg
        case .failure(let error): throw .local("no preview of \(entry.name): \(error)")
        }
    }

    /// The photo's bytes, through a private temporary file that is removed afterwards; a
    /// download that passes ``maxSourceBytes`` is cancelled.
    private static func download(_ entry: RemoteEntry, from store: any RemoteStore) async throws(RemoteError) -> Data {
        let temporary = FileManager.default.temporaryDirectory.appendingPathComponent("byteclub-thumbnail-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: temporary) }
        let tooLarge = Flag()
        let transfer = Task { () async -> Result<RemoteEntry, RemoteError> in
            do throws(RemoteError) {
                return .success(try await store.download(entry.path, to: temporary, resumeData: nil, progress: { done, _ in
                    if done > maxSourceBytes { tooLarge.raise() }
                }, onResumeData: nil))
            } catch {
                return .failure(error)
            }
        }
        tooLarge.onRaise { transfer.cancel() }
        let result = await withTaskCancellationHandler {
            await transfer.value
        } onCancel: {
            transfer.cancel()
        }
        if tooLarge.isRaised { throw .local("no preview of \(entry.name): larger than \(maxSourceBytes >> 20) MiB") }
        _ = try result.get()
        do {
            let data = try Data(contentsOf: temporary)
            guard Int64(data.count) <= maxSourceBytes else { throw RemoteError.local("no preview of \(entry.name): larger than \(maxSourceBytes >> 20) MiB") }
            return data
        } catch let error as RemoteError {
            throw error
        } catch {
            throw .local("cannot read the downloaded \(entry.name): \(error.localizedDescription)")
        }
    }

    /// A one-way flag set from the download's progress (any thread) with one action to run when
    /// it is set.
    private final class Flag: Sendable {
        private let state = Mutex<(raised: Bool, action: (@Sendable () -> Void)?)>((false, nil))

        var isRaised: Bool { state.withLock { $0.raised } }

        func raise() {
            let action: (@Sendable () -> Void)? = state.withLock { state in
                guard !state.raised else { return nil }
                state.raised = true
                return state.action
            }
            action?()
        }

        /// Runs `action` when the flag is raised (now, if it already is).
        func onRaise(_ action: @escaping @Sendable () -> Void) {
            let now = state.withLock { state -> Bool in
                state.action = action
                return state.raised
            }
            if now { action() }
        }
    }
}
