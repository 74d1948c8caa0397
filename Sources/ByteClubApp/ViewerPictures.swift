import Durable
import Foundation
import Imaging
import Remote
import TerminalUI

/// The viewer's pictures: a rendition from `get_thumbnail_v2` (up to w2048h1536, cached on
/// disk like the thumbnails), and the full file when the zoom wants more pixels than that.
///
/// Each is decoded once into a ``PanoramaPicture`` (which then scales once per zoom and crops
/// per pan step). Like ``Thumbnails``, asking never waits: it answers what is known and
/// starts what is missing; results arrive on the UI queue and call ``onChange``.
@MainActor
final class ViewerPictures {
    enum Look {
        case loading
        /// The best picture at hand, and whether it is the full file.
        case ready(PanoramaPicture, full: Bool)
        case failed(String)
    }

    /// The renditions (JPEGs on disk beside the thumbnails, decoded ones in memory).
    let renditions: Thumbnails
    var onChange: (@MainActor () -> Void)? {
        didSet { renditions.onChange = onChange }
    }

    private let store: any RemoteStore
    private let effects: any UIEffects
    private let directory: URL?
    /// Decoded pictures by key (rendition or full), the few most recent kept.
    private var pictures: [(key: String, picture: PanoramaPicture)] = []
    private var fullRunning = Set<String>()
    private var fullFailures: [String: String] = [:]
    /// How many full files were fetched (tests read it).
    private(set) var fullFetches = 0

    init(store: any RemoteStore, directory: URL?, effects: any UIEffects) {
        self.store = store
        self.effects = effects
        self.directory = directory
        renditions = Thumbnails(store: store, directory: directory, size: .w2048h1536, effects: effects)
        renditions.capacity = 3
        renditions.maxConcurrentFetches = 1
    }

    /// The picture of `entry`; `neededHeight` is how many pixels high the zoom shows it, which
    /// decides whether the full file is worth fetching.
    func picture(for entry: RemoteEntry, neededHeight: Int) -> Look {
        let fullKey = Thumbnails.key(entry, size: renditions.size) + "\nfull"
        if let full = cached(fullKey) { return .ready(full, full: true) }
        switch renditions.image(for: entry) {
        case .loading:
            return .loading
        case .failed(let why):
            // No rendition (a server without thumbnails): the full file is the only picture.
            if let failure = fullFailures[fullKey] { return .failed(failure.isEmpty ? why : failure) }
            fetchFull(entry, key: fullKey)
            return .loading
        case .ready(let image):
            let key = Thumbnails.key(entry, size: renditions.size)
            let picture = cached(key) ?? remember(key, PanoramaPicture(PixelImage(width: image.width, height: image.height, bytes: image.pixels)))
            // A rendition that touches its box was made smaller than the photo: more pixels exist.
            // Not so for an SVG: its rendition is drawn at the box from the vector itself.
            let box = renditions.size.box
            let isVector = (entry.name as NSString).pathExtension.lowercased() == "svg"
            let isReduced = !isVector && (image.width >= box.width || image.height >= box.height)
            if isReduced, image.height < neededHeight * 9 / 10, fullFailures[fullKey] == nil { fetchFull(entry, key: fullKey) }
            return .ready(picture, full: !isReduced)
        }
    }

    private func cached(_ key: String) -> PanoramaPicture? {
        guard let index = pictures.firstIndex(where: { $0.key == key }) else { return nil }
        let found = pictures.remove(at: index)
        pictures.append(found)
        return found.picture
    }

    private func remember(_ key: String, _ picture: PanoramaPicture) -> PanoramaPicture {
        pictures.append((key, picture))
        // A 16000×2000 photo is 96 MB decoded: keep the current one and the two before it.
        if pictures.count > 3 { pictures.removeFirst(pictures.count - 3) }
        return picture
    }

    /// Downloads the photo into the cache (or reads it from there) and decodes it off the UI queue.
    private func fetchFull(_ entry: RemoteEntry, key: String) {
        guard !fullRunning.contains(key) else { return }
        fullRunning.insert(key)
        let store = self.store
        let keep = directory.map { $0.appendingPathComponent("full-" + Thumbnails.fileName(key)) }
        let file = keep ?? FileManager.default.temporaryDirectory.appendingPathComponent("byteclub-view-\(UUID().uuidString).jpg")
        let path = entry.path
        effects.perform({ () async throws(RemoteError) -> PanoramaPicture in
            if keep == nil || !FileManager.default.fileExists(atPath: file.path) {
                if keep != nil { try? PrivateFiles.folder(file.deletingLastPathComponent()) }
                _ = try await store.download(path, to: file, resumeData: nil, progress: nil, onResumeData: nil)
                // A download lands as the user's files do (0666 less the umask); this one is a cache.
                PrivateFiles.protect(file.path)
            }
            defer { if keep == nil { try? FileManager.default.removeItem(at: file) } }
            guard let data = try? Data(contentsOf: file) else { throw .local("cannot read the downloaded photo") }
            do {
                let image = try Picture.decode(data)
                return PanoramaPicture(PixelImage(width: image.width, height: image.height, bytes: image.pixels))
            } catch {
                if let keep { try? FileManager.default.removeItem(at: keep) }
                throw .local("not a picture (\(error))")
            }
        }) { [weak self] result in
            guard let self else { return }
            self.fullRunning.remove(key)
            switch result {
            case .success(let picture):
                self.fullFetches += 1
                _ = self.remember(key, picture)
            case .failure(let error):
                self.fullFailures[key] = error.message
            }
            self.onChange?()
        }
    }
}
