import DropboxWire
import Foundation
import Markdown
import Remote

/// `byteclub import`: a folder of notes on this machine (an Obsidian, zk or nb vault, or an
/// export) brought into the club, every file in it.
///
/// Notes and other files keep their vault path; pictures go under the club's `photos/`, the
/// notes' picture links following them; tags and pins come from the notes' front matter. What
/// cannot come is named, never renamed (``Report/refused``). What import rewrote is kept in the
/// folder's ``VaultManifest``, so an export gives the vault back. A file already in the club
/// with the same content is skipped, so an interrupted import resumes.
public struct VaultImport: Sendable {
    public var store: any RemoteStore
    /// The vault, walked.
    public var vault: VaultFiles
    /// Where in the club it goes.
    public var folder: String
    /// The club's `photos` folder, where pictures go.
    public var photos: String
    /// Every file in `folder` itself, not in subfolders.
    public var flatten: Bool
    public var dryRun: Bool
    /// The write path the vault's notes land through, in order with the outbox's queue
    /// (``OutboxSender/Direct/importVault(_:event:)``); nil: as they come.
    var writes: OutboxSender.Direct?

    public init(store: any RemoteStore, vault: VaultFiles, folder: String, photos: String, flatten: Bool = false, dryRun: Bool = false) {
        self.store = store
        self.vault = vault
        self.folder = folder
        self.photos = photos
        self.flatten = flatten
        self.dryRun = dryRun
    }

    /// One file to bring in.
    public struct Item: Sendable, Equatable {
        public var local: URL
        public var remote: String
        public var kind: VaultFiles.Kind
        /// A note's text with its picture links following the pictures to `photos/`, when any moved.
        public var text: Data?
        /// Where it is in the vault (its relative path there).
        public var vault: String = ""
        /// A note's picture links as the vault had them and as written (``text``), first to last.
        public var rewrites: [NoteLinks.PictureRewrite] = []
        /// A note that opened with front matter in the vault.
        public var frontMatter = false

        public var isNote: Bool { kind == .note }
    }

    /// What the shell is told while the import runs.
    public enum Event: Sendable, Equatable {
        /// Progress, in files while deciding, then in bytes while sending.
        case progress(done: Int64, total: Int64)
        /// A dry run's file that would be sent.
        case wouldImport(local: URL, remote: String)
        /// A line to say at once (the store keeps no tags).
        case said(String)
    }

    /// What an import came to.
    public struct Report: Sendable, Equatable {
        /// Files sent now (or that would be).
        public var sent = 0
        /// Files already in the club, the same.
        public var skipped = 0
        /// What is (or would be) in the club from the vault, by kind: sent now, or there before.
        public var counts: [VaultFiles.Kind: Int] = [:]
        /// Front matter tags the club could not keep (the notes came whole).
        public var untagged: [String] = []
        /// What could not come: each is a problem (exit 4).
        public var refused: [String] = []
        public var dryRun = false

        /// "2 imported, 1 already in the club: 2 notes and 1 picture".
        public var summary: String {
            "\(sent) \(dryRun ? "would be imported" : "imported"), \(skipped) already in the club: \(VaultFiles.summary(counts))"
        }
    }

    static let keepsNoTags = "this remote keeps no tags: the notes come without their tags and pins"

    /// Imports. A file already in the club is compared by its content hash
    /// (``FolderTransfer/identical(local:remote:)``; a note whose links were rewritten, by the
    /// text it would send): the same is skipped, one that differs refused.
    public func run(event: @escaping @Sendable (Event) -> Void = { _ in }) async throws -> Report {
        let (items, planned) = Self.plan(vault, into: folder, photos: photos, flatten: flatten)
        var report = Report(refused: planned, dryRun: dryRun)
        var remote: [String: RemoteEntry] = [:]
        for entry in try await store.listRecursivelyIfThere(folder) { remote[entry.pathLower] = entry }
        if !folder.lowercased().hasPrefix(photos.lowercased()) {
            for entry in try await store.listRecursivelyIfThere(photos) { remote[entry.pathLower] = entry }
        }
        var tagger = store as? any TaggingStore
        if tagger == nil && items.contains(where: \.isNote) { event(.said(Self.keepsNoTags)) }
        // Each item's fate, decided before anything is sent: already there, refused, or to send.
        var there = Set<Int>()
        var toSend: [Int] = []
        for (index, item) in items.enumerated() {
            event(.progress(done: Int64(index), total: Int64(items.count)))
            if let existing = remote[item.remote.lowercased()] {
                let same = item.text.map { text in existing.contentHash.map { ContentHasher.hash(text) == $0 } ?? (Int64(text.count) == existing.size) }
                    ?? FolderTransfer.identical(local: item.local, remote: existing)
                guard same else {
                    report.refused.append("\(item.remote) is already in the club and differs; left alone")
                    continue
                }
                report.skipped += 1
                there.insert(index)
            } else {
                if dryRun { event(.wouldImport(local: item.local, remote: item.remote)) }
                toSend.append(index)
            }
        }
        let sending = dryRun ? Sending(landed: Array(repeating: true, count: toSend.count))
            : try await Self.send(toSend.map { items[$0] }, store: store, writes: writes, progress: { event(.progress(done: $0, total: $1)) })
        let sentIndices = Set(zip(toSend, sending.landed).compactMap { $1 ? $0 : nil })
        report.sent = sentIndices.count
        report.refused += sending.refused
        var landed: [Item] = []
        for (index, item) in items.enumerated() where there.contains(index) || sentIndices.contains(index) {
            landed.append(item)
            report.counts[item.kind, default: 0] += 1
        }
        // Tags after the files, every run: an import interrupted between the two is mended by
        // the next. A thousand notes' tags at a time (``FrontMatterTags/adoptAll(_:store:)``).
        let notes = dryRun || tagger == nil ? [] : landed.filter(\.isNote)
        for first in stride(from: 0, to: notes.count, by: Self.notesTaggedTogether) {
            guard let tagging = tagger else { break }
            do throws(RemoteError) {
                // Said, never a failure: the note came whole, its text still holds them.
                report.untagged += try await Self.applyTags(of: Array(notes[first..<min(notes.count, first + Self.notesTaggedTogether)]), store: tagging)
            } catch {
                guard case .notSupported = error else { throw error }
                // A WebDAV server that keeps no dead properties (rclone): said once.
                tagger = nil
                event(.said(Self.keepsNoTags))
            }
        }
        if !dryRun { try await Self.record(landed, in: folder, store: store) }
        return report
    }

    /// What sending the files came to: whether each landed, at its position, and the names the
    /// club refused.
    public struct Sending: Sendable, Equatable {
        public var landed: [Bool] = []
        public var refused: [String] = []
    }

    /// Sends the files to import: to a store that commits in batches (``BatchUploadStore``), the
    /// small ones (at most 4 MiB, every note) as closed upload sessions committed up to 1,000 at
    /// a time, and the others one by one; to any other store (WebDAV) one by one. A name the
    /// club refuses, or a file that can no longer be read here, is reported (``refusal(_:_:)``);
    /// any other failure stops the import (after the batch it was in).
    /// With `writes`, a batch that holds a note, and each note sent alone, land under the
    /// outbox's send lock.
    static func send(_ items: [Item], store: any RemoteStore, writes: OutboxSender.Direct? = nil,
                     progress: @escaping @Sendable (_ sent: Int64, _ total: Int64) -> Void) async throws -> Sending {
        var sending = Sending(landed: Array(repeating: false, count: items.count))
        let sizes = items.map { item in
            item.text.map { Int64($0.count) } ?? Int64((try? FileManager.default.attributesOfItem(atPath: item.local.path)[.size] as? Int) ?? 0)
        }
        let total = sizes.reduce(0, +)
        var oneByOne = Array(items.indices)
        if let batcher = store as? any BatchUploadStore {
            let small = items.indices.filter { sizes[$0] <= BatchUpload.maxFileSize }
            oneByOne = items.indices.filter { sizes[$0] > BatchUpload.maxFileSize }
            let batch = small.map { BatchUpload.Item(source: items[$0].text.map { .data($0) } ?? .file(items[$0].local), path: items[$0].remote) }
            let results = if let writes, small.contains(where: { items[$0].isNote }) {
                try await writes.inOrderWithTheQueue { () async -> [Result<RemoteEntry, RemoteError>] in
                    await batcher.uploadBatch(batch, mode: .add, progress: { progress($0, total) })
                }
            } else {
                await batcher.uploadBatch(batch, mode: .add, progress: { progress($0, total) })
            }
            var failure: RemoteError?
            for (index, result) in zip(small, results) {
                switch result {
                case .success:
                    sending.landed[index] = true
                case .failure(let error):
                    if let refused = refusal(items[index], error) { sending.refused.append(refused) } else { failure = failure ?? error }
                }
            }
            if let failure { throw failure }
        }
        for index in oneByOne {
            let item = items[index]
            let land = { () async -> Result<RemoteEntry, RemoteError> in
                do throws(RemoteError) {
                    if let text = item.text { return .success(try await store.upload(data: text, to: item.remote, mode: .add, autorename: false)) }
                    return .success(try await store.put(file: item.local, to: item.remote, mode: .add, autorename: false, progress: nil, streams: nil))
                } catch {
                    return .failure(error)
                }
            }
            // A note under the send lock: the lock's own failure is about no file, and stops the import.
            let landed = if let writes, item.isNote { try await writes.inOrderWithTheQueue(land) } else { await land() }
            switch landed {
            case .success:
                sending.landed[index] = true
            case .failure(let error):
                guard let refused = refusal(item, error) else { throw error }
                sending.refused.append(refused)
            }
        }
        return sending
    }

    /// The line for a file that `error` kept out of the club, when it is about that file alone: a
    /// name the club refuses, or the file on this machine that could not be read (gone, or its
    /// permissions changed, since the walk). Nil for an error that stops the import.
    public static func refusal(_ item: Item, _ error: RemoteError) -> String? {
        switch error {
        case .malformedPath: return "\(item.remote): the club refuses this name; not imported"
        case .local(let detail): return "\(item.local.path): \(detail); not imported"
        default: return nil
        }
    }

    /// The files to import and where each goes, and what cannot come, found before anything is
    /// sent: what the walk left out (``VaultFiles/leftOut``: a FIFO, a link, a file that cannot
    /// be read), a name the club refuses, one `--flatten` makes twice.
    ///
    /// Notes and other files (attachments) keep their vault path under `folder`, so a note's
    /// `[[paper.pdf]]` and `![](icons/x.svg)` still find them. Pictures go under the club's
    /// `photos` folder (`photos`), where PanoPhotos looks, in an album named after the vault
    /// folder they came from (the vault's own name for those at its top); a vault's `photos/`
    /// folder, an export's, stays as it is. Each note's picture links follow their pictures
    /// (``NoteLinks/relocatingPictures(in:folder:moves:)``).
    public static func plan(_ vault: VaultFiles, into folder: String, photos: String, flatten: Bool) -> ([Item], refused: [String]) {
        var items: [Item] = []
        var refused = vault.leftOut.map { "\($0.url.path): \($0.reason); not imported" }
        var taken = Set<String>()
        /// Where each picture would have been in the club, lower case, and where it goes.
        var moves: [String: String] = [:]
        for file in vault.files {
            let name = file.url.lastPathComponent
            let components = flatten ? [name] : file.components
            if let bad = components.first(where: { SafeName.problem($0) != nil }), let problem = SafeName.problem(bad) {
                refused.append(SafeName.Refusal(name: bad, problem: problem).message + "; \(file.url.path) not imported")
                continue
            }
            var remote = folder + "/" + components.joined(separator: "/")
            if file.kind == .picture, !remote.lowercased().hasPrefix(photos.lowercased() + "/") {
                let album = components.count > 1 ? Array(components.dropLast()) : [SafeName.sanitized(vault.name)]
                let moved = photos + "/" + (album + [name]).joined(separator: "/")
                moves[remote.lowercased()] = moved
                remote = moved
            }
            guard taken.insert(remote.lowercased()).inserted else {
                refused.append("\(file.url.path) would be \(remote) a second time (--flatten); not imported")
                continue
            }
            items.append(Item(local: file.url, remote: remote, kind: file.kind, vault: file.relative))
        }
        let pictureMoves = NoteLinks.PictureMoves(moves)
        for index in items.indices where items[index].isNote {
            guard let data = FileManager.default.contents(atPath: items[index].local.path), let text = String(validating: data, as: UTF8.self) else { continue }
            items[index].frontMatter = NoteFrontMatter(text) != nil
            let noteFolder = (items[index].remote as NSString).deletingLastPathComponent
            let (moved, rewrites) = NoteLinks.relocatedPictures(in: text, folder: noteFolder, moves: pictureMoves)
            if !rewrites.isEmpty { (items[index].text, items[index].rewrites) = (Data(moved.utf8), rewrites) }
        }
        return (items, refused)
    }

    /// What export needs to give the vault back (``VaultManifest``), added to the folder's
    /// manifest: pictures and other files that moved, notes that moved, were renamed by export's `.md`, had no
    /// front matter or had picture links written again.
    public static func record(_ items: [Item], in folder: String, store: any RemoteStore) async throws {
        var manifest = try await VaultManifest.load(from: folder, store: store)
        let before = manifest
        for item in items {
            let key = VaultManifest.key(item.remote, folder: folder)
            if item.kind == .picture {
                if key != item.vault.lowercased() { manifest.pictures[key] = item.vault }
            } else if item.kind == .other {
                // Beside the notes at its vault path, unless --flatten moved it.
                if key != item.vault.lowercased() { manifest.files[key] = item.vault }
            } else if !item.frontMatter || !item.rewrites.isEmpty || key != item.vault.lowercased() || ClubFiles.exportedName(item.vault) != item.vault {
                manifest.notes[key] = VaultManifest.Note(path: item.vault, frontMatter: item.frontMatter, pictures: item.rewrites)
            }
        }
        if manifest != before { try await manifest.save(in: folder, store: store) }
    }

    /// Notes whose texts are read and whose tags are added together: one `tags/add_batch` of
    /// a club server's thousand, and a bound on the texts held at once.
    static let notesTaggedTogether = 1000

    /// The notes' front matter tags and pins, added to the notes in the club by the rule every
    /// path that writes a note follows (``FrontMatterTags``), all in a few calls; tags the club
    /// cannot keep, and front matter that does not parse (imported as it is), are answered as
    /// refusals.
    public static func applyTags(of items: [Item], store: any TaggingStore) async throws(RemoteError) -> [String] {
        var notes: [(text: String, path: String)] = []
        for item in items {
            guard let data = try? Data(contentsOf: item.local) else { continue }
            notes.append((String(decoding: data, as: UTF8.self), item.remote))
        }
        return try await FrontMatterTags.adoptAll(notes, store: store).flatMap(\.refused)
    }
}
