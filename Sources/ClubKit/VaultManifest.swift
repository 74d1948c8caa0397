import Foundation
import Markdown
import Remote

/// What `import` changed on the way in, so that `export` gives the vault back as it was: kept in
/// the club as `FOLDER/.byteclub/import.json` (FOLDER: where the vault went), JSON:
///
/// ```json
/// {"version": 1,
///  "notes": {"trips/2026/day one.md": {"path": "Trips/2026/Day one.md", "front_matter": false,
///            "pictures": [{"original": "![the deck](../../assets/deck.jpg)",
///                          "written": "![the deck](<../../photos/assets/deck.jpg>)"}]}},
///  "pictures": {"photos/assets/deck.jpg": "assets/deck.jpg"}}
/// ```
///
/// Keys are club paths relative to FOLDER, lower case (a picture outside FOLDER: its whole club
/// path); values are paths in the vault. `files` (other files, attachments) is there only when
/// `--flatten` moved one from its vault path. Another import into the same folder adds to it.
public struct VaultManifest: Codable, Equatable, Sendable {
    public static let name = ".byteclub/import.json"

    public struct Note: Codable, Equatable, Sendable {
        /// Where the note was in the vault.
        public var path: String
        /// Whether it opened with front matter there.
        public var frontMatter: Bool
        /// The picture links import wrote again, first to last.
        public var pictures: [NoteLinks.PictureRewrite]

        public init(path: String, frontMatter: Bool, pictures: [NoteLinks.PictureRewrite]) {
            (self.path, self.frontMatter, self.pictures) = (path, frontMatter, pictures)
        }

        enum CodingKeys: String, CodingKey {
            case path
            case frontMatter = "front_matter"
            case pictures
        }
    }

    public var version = 1
    public var notes: [String: Note] = [:]
    public var pictures: [String: String] = [:]
    /// Other files (PDFs, audio, JSON…) that are not at their vault path in the club.
    public var files: [String: String] = [:]

    enum CodingKeys: String, CodingKey {
        case version, notes, pictures, files
    }

    public init() {}

    /// A manifest written before `files` was kept reads as one without any.
    public init(from decoder: any Decoder) throws {
        let object = try decoder.container(keyedBy: CodingKeys.self)
        version = try object.decodeIfPresent(Int.self, forKey: .version) ?? 1
        notes = try object.decodeIfPresent([String: Note].self, forKey: .notes) ?? [:]
        pictures = try object.decodeIfPresent([String: String].self, forKey: .pictures) ?? [:]
        files = try object.decodeIfPresent([String: String].self, forKey: .files) ?? [:]
    }

    public func encode(to encoder: any Encoder) throws {
        var object = encoder.container(keyedBy: CodingKeys.self)
        try object.encode(version, forKey: .version)
        try object.encode(notes, forKey: .notes)
        try object.encode(pictures, forKey: .pictures)
        if !files.isEmpty { try object.encode(files, forKey: .files) }
    }

    /// The key of `path` (a club path) in a manifest kept in `folder`.
    public static func key(_ path: String, folder: String) -> String {
        let lower = path.lowercased()
        let prefix = folder.lowercased() + "/"
        return lower.hasPrefix(prefix) ? String(lower.dropFirst(prefix.count)) : lower
    }

    /// The manifest in `folder`, empty when there is none (or it cannot be read: an export then
    /// writes what the club holds, as for notes that never came from a vault).
    public static func load(from folder: String, store: any RemoteStore) async throws -> VaultManifest {
        let text: String
        do {
            text = try await VaultExport.text(of: folder + "/" + name, store: store)
        } catch RemoteError.notFound {
            return VaultManifest()
        }
        return (try? JSONDecoder().decode(VaultManifest.self, from: Data(text.utf8))) ?? VaultManifest()
    }

    public func save(in folder: String, store: any RemoteStore) async throws {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        _ = try await store.upload(data: try encoder.encode(self), to: folder + "/" + Self.name, mode: .overwrite, autorename: false)
    }

    /// `text` with import's picture links put back as the vault wrote them, each found after the
    /// one before; a link edited since import stays as it is now.
    public static func restoringPictures(in text: String, _ rewrites: [NoteLinks.PictureRewrite]) -> String {
        var text = text
        var from = text.startIndex
        for rewrite in rewrites {
            guard let found = text.range(of: rewrite.written, range: from..<text.endIndex) else { continue }
            let offset = text.distance(from: text.startIndex, to: found.lowerBound) + rewrite.original.count
            text.replaceSubrange(found, with: rewrite.original)
            from = text.index(text.startIndex, offsetBy: offset)
        }
        return text
    }
}

/// Where export writes each file of the folder it exports: for the files an import brought
/// (every manifest in that folder or below it, `X/.byteclub/import.json`), their vault paths
/// under X's place in the export, so an export of the folder an import went to, or of the whole
/// club, gives the vault back; for the others, their place in the club.
public struct VaultPlaces: Sendable {
    /// One place a file goes in the export.
    public struct Place: Sendable, Equatable {
        /// Its path in the export, by component.
        public var components: [String]
        /// A note's manifest entry (its picture links as the vault wrote them, its front matter).
        public var note: VaultManifest.Note?
    }

    /// By club path, lower case: where the manifests put each file they know. A picture two
    /// imports found already there goes back to both vaults.
    public var places: [String: [Place]] = [:]

    /// The manifests in `folder` and below it (found in `listed`, its recursive listing), read.
    public static func load(in folder: String, listed: [RemoteEntry], store: any RemoteStore) async throws -> VaultPlaces {
        let suffix = "/" + VaultManifest.name.lowercased()
        var result = VaultPlaces()
        // Shallow first, so a place is listed once whichever manifests name it.
        let manifests = listed.filter { $0.pathLower.hasSuffix(suffix) }.sorted { $0.pathLower.count < $1.pathLower.count }
        for file in manifests {
            let directory = String(file.path.dropLast(suffix.count))
            let manifest = try await VaultManifest.load(from: directory, store: store)
            let base = VaultExport.components(directory, under: folder)
            let lower = directory.lowercased()
            func add(_ key: String, _ vault: String, _ note: VaultManifest.Note?) {
                let path = key.hasPrefix("/") ? key : lower + "/" + key
                let place = Place(components: base + vault.split(separator: "/").map(String.init), note: note)
                let taken = result.places[path, default: []].contains { $0.components.joined(separator: "/").lowercased() == place.components.joined(separator: "/").lowercased() }
                if !taken { result.places[path, default: []].append(place) }
            }
            for (key, note) in manifest.notes { add(key, note.path, note) }
            for (key, vault) in manifest.pictures { add(key, vault, nil) }
            for (key, vault) in manifest.files { add(key, vault, nil) }
        }
        return result
    }

    /// The files the manifests place that are outside `folder`: the pictures an import into it
    /// moved to the club's `photos` folder (listed once, as the server spells them), else each
    /// by its path; one deleted from the club since is not there to export.
    public func outsideEntries(of folder: String, photos: String, store: any RemoteStore) async throws(RemoteError) -> [RemoteEntry] {
        let inside = folder.lowercased() + "/"
        let outside = places.keys.filter { !$0.hasPrefix(inside) }.sorted()
        guard !outside.isEmpty else { return [] }
        var found: [String: RemoteEntry] = [:]
        let album = photos.lowercased() + "/"
        if outside.contains(where: { $0.hasPrefix(album) }) {
            for entry in try await store.listRecursivelyIfThere(photos) where entry.kind == .file { found[entry.pathLower] = entry }
        }
        var entries: [RemoteEntry] = []
        for path in outside {
            if let entry = found[path] {
                entries.append(entry)
            } else if let entry = try await Self.entryIfThere(store, path), entry.kind == .file {
                entries.append(entry)
            }
        }
        return entries
    }

    private static func entryIfThere(_ store: any RemoteStore, _ path: String) async throws(RemoteError) -> RemoteEntry? {
        do { return try await store.metadata(path) } catch .notFound { return nil }
    }
}
