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
/// path); values are paths in the vault. Another import into the same folder adds to it.
struct VaultManifest: Codable, Equatable {
    static let name = ".byteclub/import.json"

    struct Note: Codable, Equatable {
        /// Where the note was in the vault.
        var path: String
        /// Whether it opened with front matter there.
        var frontMatter: Bool
        /// The picture links import wrote again, first to last.
        var pictures: [NoteLinks.PictureRewrite]

        enum CodingKeys: String, CodingKey {
            case path
            case frontMatter = "front_matter"
            case pictures
        }
    }

    var version = 1
    var notes: [String: Note] = [:]
    var pictures: [String: String] = [:]

    /// The key of `path` (a club path) in a manifest kept in `folder`.
    static func key(_ path: String, folder: String) -> String {
        let lower = path.lowercased()
        let prefix = folder.lowercased() + "/"
        return lower.hasPrefix(prefix) ? String(lower.dropFirst(prefix.count)) : lower
    }

    /// The manifest in `folder`, empty when there is none (or it cannot be read: an export then
    /// writes what the club holds, as for notes that never came from a vault).
    static func load(from folder: String, store: any RemoteStore) async throws -> VaultManifest {
        let text: String
        do {
            text = try await Export.fetch(folder + "/" + name, store: store)
        } catch RemoteError.notFound {
            return VaultManifest()
        }
        return (try? JSONDecoder().decode(VaultManifest.self, from: Data(text.utf8))) ?? VaultManifest()
    }

    func save(in folder: String, store: any RemoteStore) async throws {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        _ = try await store.upload(data: try encoder.encode(self), to: folder + "/" + Self.name, mode: .overwrite, autorename: false)
    }

    /// `text` with import's picture links put back as the vault wrote them, each found after the
    /// one before; a link edited since import stays as it is now.
    static func restoringPictures(in text: String, _ rewrites: [NoteLinks.PictureRewrite]) -> String {
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

    /// The vault's own metadata folders at the top of `source`: left out, each with a line.
    static let metadataFolders = [".obsidian": "Obsidian's settings", ".zk": "zk's settings", ".nb": "nb's settings"]

    static func sayMetadataSkipped(in source: URL) {
        for (folder, what) in metadataFolders.sorted(by: { $0.key < $1.key }) {
            var isDirectory: ObjCBool = false
            if FileManager.default.fileExists(atPath: source.appendingPathComponent(folder).path, isDirectory: &isDirectory), isDirectory.boolValue {
                say("skipped \(folder)/ (\(what), not notes)")
            }
        }
    }
}
