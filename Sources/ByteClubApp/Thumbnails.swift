import Durable
import Foundation
import Imaging
import Remote

/// Photo thumbnails for the rows on screen: fetched with `get_thumbnail_v2`, or made here from
/// the photo when the store has no thumbnails (``ThumbnailSource``, WebDAV), kept on disk
/// (keyed by path, rev and size, so a changed photo gets a new one) and decoded in memory.
///
/// Drawing asks with ``image(for:)``, which never waits: it answers what is known and queues a
/// fetch for what is not. Fetches run a few at a time, newest request first, so the rows the
/// user scrolled to come before the rows they scrolled past. Results arrive on the UI queue.
@MainActor
public final class Thumbnails {
    public enum Look: Equatable, Sendable {
        case loading
        case ready(RGBImage)
        case failed(String)
    }

    public let size: ThumbnailSize
    /// Where fetched thumbnails (JPEGs) are kept between runs; nil keeps nothing on disk.
    public let directory: URL?
    /// Called on the UI queue when a thumbnail arrives or fails.
    public var onChange: (@MainActor () -> Void)?
    /// How many decoded thumbnails stay in memory.
    public var capacity = 400
    public var maxConcurrentFetches = 4

    private let store: any RemoteStore
    private let effects: any UIEffects
    private var images: [String: (image: RGBImage, used: UInt64)] = [:]
    private var failures: [String: String] = [:]
    private var pending: [(key: String, entry: RemoteEntry)] = []
    private var running = Set<String>()
    private var useCounter: UInt64 = 0
    private var startScheduled = false
    /// Counts for the benchmark and tests: fetched from the server, read from disk.
    public private(set) var fetchedCount = 0
    public private(set) var diskHits = 0

    init(store: any RemoteStore, directory: URL?, size: ThumbnailSize = .w128h128, effects: any UIEffects) {
        self.store = store
        self.effects = effects
        self.directory = directory
        self.size = size
    }

    nonisolated static func key(_ entry: RemoteEntry, size: ThumbnailSize) -> String {
        "\(entry.pathLower)\n\(entry.rev ?? entry.contentHash ?? "")\n\(size.rawValue)"
    }

    /// The thumbnail of `entry` as far as it is known; queues a fetch if it is not.
    public func image(for entry: RemoteEntry) -> Look {
        let key = Self.key(entry, size: size)
        if var cached = images[key] {
            useCounter += 1
            cached.used = useCounter
            images[key] = cached
            return .ready(cached.image)
        }
        if let failure = failures[key] { return .failed(failure) }
        if !running.contains(key) {
            pending.removeAll { $0.key == key }
            pending.append((key, entry))
            scheduleStart()
        }
        return .loading
    }

    /// Why `entry`'s thumbnail failed, if it did; unlike ``image(for:)``, fetches nothing.
    public func failure(for entry: RemoteEntry) -> String? {
        failures[Self.key(entry, size: size)]
    }

    /// Forgets failures, so the next frame tries them again (`r`).
    public func retryFailures() {
        failures.removeAll()
    }

    /// Drops queued fetches of rows no longer on screen; running ones finish into the cache.
    public func keepOnly(_ entries: [RemoteEntry]) {
        let wanted = Set(entries.map { Self.key($0, size: size) })
        pending.removeAll { !wanted.contains($0.key) }
    }

    private func scheduleStart() {
        guard !startScheduled else { return }
        startScheduled = true
        // Not from inside a frame: start fetches on the next turn of the UI queue.
        effects.after(.zero) { [weak self] in
            self?.startScheduled = false
            self?.startFetches()
        }
    }

    private func startFetches() {
        while running.count < maxConcurrentFetches, let next = pending.popLast() {
            running.insert(next.key)
            fetch(next.key, next.entry)
        }
    }

    private func fetch(_ key: String, _ entry: RemoteEntry) {
        let store = self.store, size = self.size
        let file = directory.map { $0.appendingPathComponent(Self.fileName(key)) }
        effects.perform({ () async throws(RemoteError) -> Fetched in
            if let file, let data = try? Data(contentsOf: file), let image = try? Picture.decode(data) {
                return Fetched(image: image, fromDisk: true)
            }
            let data = try await ThumbnailSource.jpeg(of: entry, size: size, from: store)
            if let file {
                // A cache: whole or old, private (its folder made 0700), unflushed.
                try? DurableFile.write(data, to: file, flush: false)
            }
            do {
                // A JPEG from the store or made here; a PNG from a server that answers one.
                return Fetched(image: try Picture.decode(data), fromDisk: false)
            } catch {
                throw .local("not a thumbnail (\(error))")
            }
        }) { [weak self] outcome in
            self?.finish(key, outcome)
        }
    }

    /// A decoded thumbnail and whether it came from the disk cache.
    private struct Fetched: Sendable {
        var image: RGBImage
        var fromDisk: Bool
    }

    private func finish(_ key: String, _ outcome: Result<Fetched, RemoteError>) {
        running.remove(key)
        switch outcome {
        case .success(let fetched):
            if fetched.fromDisk { diskHits += 1 } else { fetchedCount += 1 }
            useCounter += 1
            images[key] = (fetched.image, useCounter)
            evictIfNeeded()
        case .failure(let error):
            failures[key] = error.message
        }
        startFetches()
        onChange?()
    }

    private func evictIfNeeded() {
        guard images.count > capacity else { return }
        // Least recently drawn first; a quarter at a time keeps this rare.
        let victims = images.sorted { $0.value.used < $1.value.used }.prefix(images.count - capacity * 3 / 4)
        for (key, _) in victims { images.removeValue(forKey: key) }
    }

    /// The disk cache's file name for a key: a stable hash, so no path characters reach the disk.
    nonisolated static func fileName(_ key: String) -> String {
        String(format: "%016llx.jpg", UInt64(bitPattern: Int64(key.hashValueStable)))
    }
}

extension Thumbnails {
    /// The photos' two sets of pictures, for the list's rows and the preview pane (`p`): made by
    /// the app and shared by the photos' controller, which fetches them, and the screen, which
    /// draws them. Each asks for a frame when a picture arrives.
    static func forPhotos(_ context: AppContext) -> (thumbnails: Thumbnails, previews: Thumbnails) {
        let redraw: @MainActor () -> Void = { [compositor = context.compositor] in compositor.setNeedsRedraw() }
        let thumbnails = Thumbnails(store: context.store, directory: context.configuration.thumbnailsDirectory, effects: context.effects)
        thumbnails.onChange = redraw
        let previews = Thumbnails(store: context.store, directory: context.configuration.thumbnailsDirectory, size: .w1024h768,
                                  effects: context.effects)
        previews.capacity = 24
        previews.maxConcurrentFetches = 2
        previews.onChange = redraw
        return (thumbnails, previews)
    }
}
