import DropboxWire
import Foundation
import Markdown
import Remote

/// Notes are `.md` and `.txt`; pictures what import moves under `photos/` (``VaultFiles/Kind``).
/// Every other file is an attachment: it comes in and goes out byte for byte, where it was.
public enum ClubFiles {
    public static func isNote(_ name: String) -> Bool { VaultFiles.kind(of: name) == .note }

    /// A note's file in an export: always `.md`, so Obsidian, zk and nb open it.
    public static func exportedName(_ name: String) -> String {
        isNote(name) ? (name as NSString).deletingPathExtension + ".md" : name
    }
}

/// `byteclub export`: a club folder written to a folder on this machine as Markdown files with
/// front matter, its photos and other files beside them; a folder an import brought goes back
/// as the vault was (``VaultPlaces``).
///
/// The shell says what happens: each step is handed to `event` as it goes, and the ``Report``
/// holds what was refused and the counts. Files already the same in the destination are not
/// fetched again, so an interrupted export resumes.
public struct VaultExport: Sendable {
    public var store: any RemoteStore
    /// The club folder exported (the whole club's folder, or one in it).
    public var folder: String
    /// The club's own folder: an import into `folder` may have moved pictures to its `photos/`.
    public var clubFolder: String
    public var destination: URL
    public var dryRun: Bool

    public init(store: any RemoteStore, folder: String, clubFolder: String, destination: URL, dryRun: Bool = false) {
        self.store = store
        self.folder = folder
        self.clubFolder = clubFolder
        self.destination = destination
        self.dryRun = dryRun
    }

    /// What the shell is told while the export runs.
    public enum Event: Sendable, Equatable {
        /// `done` of `total` files looked at.
        case progress(done: Int, total: Int)
        /// A dry run's file that would be written.
        case wouldWrite(URL)
    }

    /// What an export came to.
    public struct Report: Sendable, Equatable {
        /// A line for each file not exported (a name not safe on this machine).
        public var refused: [String] = []
        /// The files exported, by kind.
        public var counts: [VaultFiles.Kind: Int] = [:]
        public var destination: URL
        public var dryRun: Bool

        /// "exported 3 notes and 1 picture to /tmp/out" (or "would export …").
        public var summary: String {
            "\(dryRun ? "would export" : "exported") \(VaultFiles.summary(counts)) to \(destination.path)"
        }
    }

    /// Exports, writing only what differs (``FolderTransfer/identical(local:remote:)``: a file
    /// already the same here is not fetched again).
    ///
    /// - Parameter names: members' names for the account ids of the notes' last writers (front
    ///   matter's `modified_by`); the shell asks the server.
    public func run(names: ([String?]) async -> [String: String] = { _ in [:] }, event: (Event) -> Void = { _ in }) async throws -> Report {
        // Every file but the club's own (`.byteclub/`: import's manifests; `.clubkeys/`).
        let listed = try await store.listRecursively(folder).filter { $0.kind == .file }
        let places = try await VaultPlaces.load(in: folder, listed: listed, store: store)
        let own = listed.filter { !VaultFiles.isClubsOwn(Self.components($0.path, under: folder)) }
        // Pictures an import into this folder moved to the club's photos/, outside it.
        let outside = try await places.outsideEntries(of: folder, photos: clubFolder + "/photos", store: store)
        let entries = (own + outside).sorted { $0.pathLower < $1.pathLower }
        let notes = entries.filter { ClubFiles.isNote($0.name) }
        let tags = (try? await (store as? any TaggingStore)?.tags(of: notes.map(\.path))) ?? [:]
        let names = await names(notes.map(\.modifiedBy))
        var written = Set<String>()
        var report = Report(destination: destination, dryRun: dryRun)
        for (index, entry) in entries.enumerated() {
            event(.progress(done: index, total: entries.count))
            report.counts[VaultFiles.kind(of: entry.name), default: 0] += 1
            // Where a vault had it (an import's manifest says), else where it is in the club.
            let claimed = places.places[entry.pathLower] ?? []
            let targets = claimed.isEmpty ? [VaultPlaces.Place(components: Self.components(entry.path, under: folder), note: nil)] : claimed
            var text: String?
            for place in targets {
                var components = place.components
                guard let last = components.last, components.allSatisfy({ SafeName.problem($0) == nil }) else {
                    report.refused.append("\(entry.path): its name is not safe on this machine; not exported")
                    continue
                }
                // Where the vault had it, as it was named there; else as Obsidian, zk and nb open it.
                if claimed.isEmpty { components[components.count - 1] = ClubFiles.exportedName(last) }
                if !written.insert(components.joined(separator: "/").lowercased()).inserted {
                    // `Trip.txt` beside `Trip.md`: the second keeps its own name rather than overwrite.
                    components[components.count - 1] = last
                }
                let target = components.reduce(destination) { $0.appendingPathComponent($1) }
                if dryRun {
                    event(.wouldWrite(target))
                    continue
                }
                try FileManager.default.createDirectory(at: target.deletingLastPathComponent(), withIntermediateDirectories: true)
                guard ClubFiles.isNote(entry.name) else {
                    // A photo or another file: its bytes as the club holds them.
                    if !FolderTransfer.identical(local: target, remote: entry) {
                        _ = try await store.get(entry.path, to: target, resumeData: nil, progress: nil, onResumeData: nil, streams: nil)
                    }
                    continue
                }
                if text == nil { text = try await Self.text(of: entry.path, store: store) }
                let noteTags = tags[entry.pathLower] ?? []
                let exported = Data(try await Self.exported(text ?? "", entry: entry, tags: noteTags, names: names, store: store, vault: place.note).utf8)
                if (try? Data(contentsOf: target)) != exported { try exported.write(to: target, options: .atomic) }
            }
        }
        return report
    }

    /// `path`'s components under `folder` (a club path under it: "/byteclub/Trips/a.md" under
    /// "/byteclub" is ["Trips", "a.md"]).
    public static func components(_ path: String, under folder: String) -> [String] {
        String(path.dropFirst(folder.count)).split(separator: "/").map(String.init)
    }

    /// A note's text as a file in the export: its own front matter, byte for byte when it names
    /// every tag and the pin the club has, else with the club's added (``FrontMatterTags``: the
    /// union, never dropping a tag the note has); or new front matter from what the club knows
    /// of it. A note imported from a vault (`vault`) gets its picture links back as the vault
    /// wrote them, and stays without front matter if it had none there and has no tags or pin
    /// in the club.
    public static func exported(_ text: String, entry: RemoteEntry, tags: [String], names: [String: String], store: any RemoteStore,
                                vault: VaultManifest.Note? = nil) async throws -> String {
        let text = vault.map { VaultManifest.restoringPictures(in: text, $0.pictures) } ?? text
        let (own, body) = FrontMatter.split(text)
        // Inline `#tags` are said by the text itself: never written again into its front matter.
        let inline = Set(FrontMatterTags.inlineTags(in: String(body)))
        let clubVisible = tags.filter { $0 != ItemTags.pinTag }.sorted()
        let tags = tags.filter { !inline.contains($0) }
        let visible = tags.filter { $0 != ItemTags.pinTag }.sorted()
        let pinned = tags.contains(ItemTags.pinTag)
        if var matter = own {
            // YAML that does not parse is kept as it is: nothing can be known, or changed, in it.
            guard let read = NoteFrontMatter(text), read.error == nil,
                  let merged = FrontMatterTags.exported(own: read.tags, ownPinned: read.pinned, club: tags) else { return text }
            matter.set("tags", FrontMatter.list(merged.tags + merged.unrecognised.map(FrontMatter.quoted)))
            matter.set("pinned", merged.pinned ? "true" : "false")
            return matter.text + body
        }
        if let vault, !vault.frontMatter, visible.isEmpty, !pinned { return text }
        // Created: the oldest revision the server keeps (its log holds up to 100).
        let history = try? await store.revisions(entry.path, limit: 100)
        let created = history?.entries.last?.modified ?? entry.modified
        var matter = FrontMatter(lines: [])
        matter.set("title", FrontMatter.quoted((entry.name as NSString).deletingPathExtension))
        // New front matter says every tag the club has, its text's own `#tags` too: a note whose
        // tags are all inline read `tags: []` beside the tags `byteclub tag` lists.
        matter.set("tags", FrontMatter.list(clubVisible))
        matter.set("pinned", pinned ? "true" : "false")
        if let created { matter.set("created", DropboxTimestamp.format(created)) }
        if let modified = entry.modified { matter.set("modified", DropboxTimestamp.format(modified)) }
        if let by = entry.modifiedBy.flatMap({ names[$0] }) { matter.set("modified_by", FrontMatter.quoted(by)) }
        return matter.text + body
    }

    /// A club file's text, downloaded through a scratch file.
    public static func text(of path: String, store: any RemoteStore) async throws -> String {
        let scratch = FileManager.default.temporaryDirectory.appendingPathComponent("byteclub-export-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: scratch) }
        _ = try await store.download(path, to: scratch, resumeData: nil, progress: nil, onResumeData: nil)
        return String(decoding: try Data(contentsOf: scratch), as: UTF8.self)
    }
}
