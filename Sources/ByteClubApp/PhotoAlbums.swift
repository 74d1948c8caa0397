import Foundation
import Remote
import TerminalUI

/// An album of PanoPhotos: a folder under `photos/`, with how many photos it holds (at any
/// depth) and the first of them, whose thumbnail stands for it; or the row that goes up.
public struct AlbumItem: Equatable, Sendable {
    public var path: String
    public var name: String
    public var count: Int
    public var cover: RemoteEntry?
    public var isParent = false
}

/// A row of the PanoPhotos list: a photo, or an album.
public enum PhotoItem: Equatable, Sendable {
    case photo(RemoteEntry)
    case album(AlbumItem)

    /// Its identity across listings.
    var key: String {
        switch self {
        case .photo(let entry): return entry.pathLower
        case .album(let album): return album.isParent ? "album:.." : "album:" + album.path.lowercased()
        }
    }
}

extension AppState {
    /// The photos folder ("/byteclub/photos").
    var photosRoot: String { notesFolder.root + "/photos" }

    /// The PanoPhotos list as shown: in the photos folder, its albums and then the photos
    /// directly in it; in an album, the way up and then its photos at any depth. Photos keep the
    /// list's order (newest first), and an album's cover is its first.
    public var photoItems: [PhotoItem] {
        let folder = (album ?? photosRoot).lowercased() + "/"
        var albums: [String: AlbumItem] = [:], order: [String] = []
        var items: [PhotoItem] = []
        for entry in photos.entries where entry.pathLower.hasPrefix(folder) {
            let rest = entry.pathLower.dropFirst(folder.count)
            guard album == nil, let slash = rest.firstIndex(of: "/") else {
                items.append(.photo(entry))
                continue
            }
            let key = String(rest[..<slash])
            if albums[key] == nil {
                let parts = entry.path.split(separator: "/"), depth = photosRoot.split(separator: "/").count
                let name = parts.indices.contains(depth) ? String(parts[depth]) : key
                albums[key] = AlbumItem(path: photosRoot + "/" + name, name: name, count: 0, cover: entry)
                order.append(key)
            }
            albums[key]?.count += 1
        }
        let sorted = order.compactMap { albums[$0] }.sorted { $0.name.localizedStandardCompare($1.name) == .orderedAscending }
        if album != nil { return [.album(AlbumItem(path: photosRoot, name: "..", count: 0, isParent: true))] + items }
        return sorted.map { PhotoItem.album($0) } + items
    }

    /// Shows `path`'s photos (nil: the photos folder and its albums); the selection goes to the
    /// album just left, or to the first row.
    public mutating func openAlbum(_ path: String?) {
        let left = album
        album = path
        photos.list.filter = ""
        photos.list.isEditingFilter = false
        photos.list.selected = 0
        photos.list.offset = 0
        guard let left, path == nil else { return }
        let items = photoItems
        if let index = items.firstIndex(where: { $0.key == "album:" + left.lowercased() }) { photos.list.select(row: index, in: photoRows(items)) }
    }

    /// The rows of `items`, for the list's filter and selection.
    func photoRows(_ items: [PhotoItem]) -> [ListRow] {
        items.map { item in
            switch item {
            case .photo(let entry): return ListRow([entry.name], searchText: entry.name)
            case .album(let album): return ListRow([album.name], searchText: album.name)
            }
        }
    }

    /// The item under the PanoPhotos selection.
    public var selectedPhotoItem: PhotoItem? {
        let items = photoItems
        guard let index = photos.list.selectedRow(in: photoRows(items)), items.indices.contains(index) else { return nil }
        return items[index]
    }
}
