import ArgumentParser
import ByteClubConfig
import DropboxWire
import ClubKit
import Foundation
import LocalClub
import Markdown
import Remote

/// Notes are `.md` and `.txt`; pictures what import moves under `photos/` (``VaultFiles/Kind``).
/// Every other file is an attachment: it comes in and goes out byte for byte, where it was.
enum ClubFiles {
    static func isNote(_ name: String) -> Bool { VaultFiles.kind(of: name) == .note }

    /// A note's file in an export: always `.md`, so Obsidian, zk and nb open it.
    static func exportedName(_ name: String) -> String {
        isNote(name) ? (name as NSString).deletingPathExtension + ".md" : name
    }
}

struct Export: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Write the club's notes as Markdown files with front matter, its photos and other files beside them.",
        discussion: """
            Each note becomes NAME.md in DIR (subfolders kept), opening with YAML front matter: \
            title, tags, pinned, created, modified, modified_by. A note that has front matter of its \
            own keeps it byte for byte, its tags and pinned lines written again only when the club's \
            differ, so an export imported into an empty club (byteclub import) exports again byte \
            for byte the same. Every other file (photos, PDFs, audio, JSON, canvas files) is copied \
            as it is, at its place; only the club's own .byteclub/ and .clubkeys/ stay out. A folder \
            a vault was imported into (byteclub import), exported alone or with the whole club, goes \
            back as the vault was: every file at its vault path, pictures where it had them, their \
            links as it wrote them, no front matter where it had none (FOLDER/.byteclub/import.json). \
            Files already the same in DIR are not fetched again, so an interrupted export resumes. \
            Obsidian, zk and nb open DIR as it is.
            """)
    @Argument(help: "What to export, when given before DIR: NAME: (a remote of config.toml), a folder in the club's folder, or NAME:FOLDER (default: the whole club's folder).")
    var source: String
    @Argument(help: "The folder to write (created if need be).") var directory: String?
    @Flag(help: "Say what would be written, and write nothing.") var dryRun = false
    @OptionGroup var backend: BackendOptions

    mutating func validate() throws {
        // `export DIR` as before; `export SOURCE DIR` names what to export first, as cp does.
        guard directory != nil else { return }
        source = try backend.takeRemote(from: source)
    }

    func run() async throws {
        let out = URL(fileURLWithPath: directory ?? source).standardizedFileURL
        let chosen = directory == nil ? nil : backend.clubPath(source)
        let dryRun = self.dryRun
        let problems = Carried(0)
        try await runRemote(backend) { backend in
            let store = backend.store
            let folder = chosen ?? backend.folder
            // Every file but the club's own (`.byteclub/`: import's manifests; `.clubkeys/`).
            let listed = try await store.listRecursively(folder).filter { $0.kind == .file }
            let places = try await VaultPlaces.load(in: folder, listed: listed, store: store)
            let own = listed.filter { !VaultFiles.isClubsOwn(Self.components($0.path, under: folder)) }
            // Pictures an import into this folder moved to the club's photos/, outside it.
            let outside = try await places.outsideEntries(of: folder, photos: backend.folder + "/photos", store: store)
            let entries = (own + outside).sorted { $0.pathLower < $1.pathLower }
            let notes = entries.filter { ClubFiles.isNote($0.name) }
            let tags = (try? await tagging(store).tags(of: notes.map(\.path))) ?? [:]
            let names = await MemberNames(store: store).names(for: notes.map(\.modifiedBy))
            var written = Set<String>()
            var refused: [String] = []
            var counts: [VaultFiles.Kind: Int] = [:]
            let progress = ProgressLine("export")
            for (index, entry) in entries.enumerated() {
                progress.update(Int64(index), Int64(entries.count))
                counts[VaultFiles.kind(of: entry.name), default: 0] += 1
                // Where a vault had it (an import's manifest says), else where it is in the club.
                let claimed = places.places[entry.pathLower] ?? []
                let targets = claimed.isEmpty ? [VaultPlaces.Place(components: Self.components(entry.path, under: folder), note: nil)] : claimed
                var text: String?
                for place in targets {
                    var components = place.components
                    guard let last = components.last, components.allSatisfy({ SafeName.problem($0) == nil }) else {
                        refused.append("\(entry.path): its name is not safe on this machine; not exported")
                        continue
                    }
                    // Where the vault had it, as it was named there; else as Obsidian, zk and nb open it.
                    if claimed.isEmpty { components[components.count - 1] = ClubFiles.exportedName(last) }
                    if !written.insert(components.joined(separator: "/").lowercased()).inserted {
                        // `Trip.txt` beside `Trip.md`: the second keeps its own name rather than overwrite.
                        components[components.count - 1] = last
                    }
                    let target = components.reduce(out) { $0.appendingPathComponent($1) }
                    if dryRun {
                        FileHandle.standardOutput.write(Data("would write \(TerminalSafe.escape(target.path))\n".utf8))
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
                    if text == nil { text = try await Self.fetch(entry.path, store: store) }
                    let noteTags = tags[entry.pathLower] ?? []
                    let exported = Data(try await Self.exported(text ?? "", entry: entry, tags: noteTags, names: names, store: store, vault: place.note).utf8)
                    if (try? Data(contentsOf: target)) != exported { try exported.write(to: target, options: .atomic) }
                }
            }
            progress.finish()
            for refusal in refused { say(refusal) }
            problems.set(refused.count)
            say("\(dryRun ? "would export" : "exported") \(VaultFiles.summary(counts)) to \(out.path)")
        }
        if problems.value > 0 { throw Exit.conflict.code }
    }

    /// `path`'s components under `folder` (a club path under it: "/byteclub/Trips/a.md" under
    /// "/byteclub" is ["Trips", "a.md"]).
    static func components(_ path: String, under folder: String) -> [String] {
        String(path.dropFirst(folder.count)).split(separator: "/").map(String.init)
    }

    /// A note's text as a file in the export: its own front matter, byte for byte when it names
    /// every tag and the pin the club has, else with the club's added (``FrontMatterTags``: the
    /// union, never dropping a tag the note has); or new front matter from what the club knows
    /// of it. A note imported from a vault (`vault`) gets its picture links back as the vault
    /// wrote them, and stays without front matter if it had none there and has no tags or pin
    /// in the club.
    static func exported(_ text: String, entry: RemoteEntry, tags: [String], names: [String: String], store: any RemoteStore,
                         vault: VaultManifest.Note? = nil) async throws -> String {
        let text = vault.map { VaultManifest.restoringPictures(in: text, $0.pictures) } ?? text
        let (own, body) = FrontMatter.split(text)
        // Inline `#tags` are said by the text itself: never written again into its front matter.
        let inline = Set(FrontMatterTags.inlineTags(in: String(body)))
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
        matter.set("tags", FrontMatter.list(visible))
        matter.set("pinned", pinned ? "true" : "false")
        if let created { matter.set("created", DropboxTimestamp.format(created)) }
        if let modified = entry.modified { matter.set("modified", DropboxTimestamp.format(modified)) }
        if let by = MemberNames.shown(entry.modifiedBy, names: names) { matter.set("modified_by", FrontMatter.quoted(by)) }
        return matter.text + body
    }

    static func fetch(_ path: String, store: any RemoteStore) async throws -> String {
        let scratch = FileManager.default.temporaryDirectory.appendingPathComponent("byteclub-export-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: scratch) }
        _ = try await store.download(path, to: scratch, resumeData: nil, progress: nil, onResumeData: nil)
        return String(decoding: try Data(contentsOf: scratch), as: UTF8.self)
    }
}

struct Import: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Bring a folder of notes (an Obsidian, zk or nb vault, or an export) into the club: every file in it.",
        discussion: """
            Every .md and .txt file becomes a note, as it is (front matter and [[links]] included), \
            and its front matter's tags and `pinned: true` become the note's tags and pin (a tag \
            the club cannot keep, or front matter that does not parse, is said; the note still \
            comes whole). Pictures \
            (JPEG, PNG, GIF, HEIC, WebP) go under the club's photos/ folder, where PanoPhotos shows \
            them, in an album named after the folder they came from (a vault's or an export's \
            photos/ folder stays as it is), and the notes' picture links (![](assets/x.jpg), \
            ![[x.jpg|300]]) are written to follow them, each in its own style. Every other file (PDFs, SVG icons, audio, \
            video, JSON, canvas files) comes byte for byte to its place beside the notes, so \
            [[paper.pdf]] still finds it. Subfolders are kept (--flatten puts every file in the \
            club's folder itself). Hidden files and folders are left out, with a line naming them \
            (.obsidian, .zk and .nb: the vault's settings). What cannot be brought is named, \
            never renamed, and the import exits 4: a name the club refuses, one --flatten makes \
            twice, a FIFO, a socket or a symbolic link, a file that cannot be read. The line at \
            the end counts the notes, pictures and other files; exit 0 means every file came. What import rewrote is kept in \
            FOLDER/.byteclub/import.json, so byteclub export gives the vault back byte for byte. \
            A file already in the club with the same content is skipped, so an interrupted import \
            resumes where it stopped; one that differs is reported and left alone (exit 4).
            """)
    @Argument(help: "The folder to import.") var directory: String
    @Argument(help: "Where in the club: a folder in the club's folder, NAME: (a remote of config.toml) or NAME:FOLDER (default: the club's folder).")
    var target: String = ""
    @Flag(help: "Put every file in the club's folder itself, not in subfolders.") var flatten = false
    @Flag(help: "Say what would be imported, and import nothing.") var dryRun = false
    @OptionGroup var backend: BackendOptions

    /// One file to bring in.
    struct Item {
        var local: URL
        var remote: String
        var kind: VaultFiles.Kind
        /// A note's text with its picture links following the pictures to `photos/`, when any moved.
        var text: Data?
        /// Where it is in the vault (its relative path there).
        var vault: String = ""
        /// A note's picture links as the vault had them and as written (``text``), first to last.
        var rewrites: [NoteLinks.PictureRewrite] = []
        /// A note that opened with front matter in the vault.
        var frontMatter = false

        var isNote: Bool { kind == .note }
    }

    mutating func validate() throws {
        target = try backend.takeRemote(from: target)
    }

    func run() async throws {
        let source = URL(fileURLWithPath: directory).standardizedFileURL
        let into = target.isEmpty ? nil : backend.clubPath(target)
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: source.path, isDirectory: &isDirectory), isDirectory.boolValue else {
            say("\(source.path) is not a folder")
            throw Exit.usage.code
        }
        let (flatten, dryRun) = (self.flatten, self.dryRun)
        let problems = Carried(0)
        // Every file of the vault, walked once: hidden ones are said here, what cannot come below.
        let vault = VaultFiles(walking: source)
        for line in vault.skippedLines() { say(line) }
        try await runRemote(backend) { backend in
            let folder = into ?? backend.folder
            let (items, planned) = Self.plan(vault, into: folder, photos: backend.folder + "/photos", flatten: flatten)
            var refused = planned
            var remote: [String: RemoteEntry] = [:]
            for entry in try await backend.store.listRecursivelyIfThere(folder) { remote[entry.pathLower] = entry }
            if !folder.lowercased().hasPrefix((backend.folder + "/photos").lowercased()) {
                for entry in try await backend.store.listRecursivelyIfThere(backend.folder + "/photos") { remote[entry.pathLower] = entry }
            }
            var tagger = backend.store as? any TaggingStore
            if tagger == nil && items.contains(where: \.isNote) { say("this remote keeps no tags: the notes come without their tags and pins") }
            var skipped = 0
            var untagged: [String] = []
            // Each item's fate, decided before anything is sent: already there, refused, or to send.
            var there = Set<Int>()
            var toSend: [Int] = []
            let progress = ProgressLine("import")
            for (index, item) in items.enumerated() {
                progress.update(Int64(index), Int64(items.count))
                if let existing = remote[item.remote.lowercased()] {
                    let same = item.text.map { text in existing.contentHash.map { ContentHasher.hash(text) == $0 } ?? (Int64(text.count) == existing.size) }
                        ?? FolderTransfer.identical(local: item.local, remote: existing)
                    guard same else {
                        refused.append("\(item.remote) is already in the club and differs; left alone")
                        continue
                    }
                    skipped += 1
                    there.insert(index)
                } else {
                    if dryRun {
                        FileHandle.standardOutput.write(Data("would import \(TerminalSafe.escape(item.local.path)) → \(TerminalSafe.escape(item.remote))\n".utf8))
                    }
                    toSend.append(index)
                }
            }
            let sending = dryRun ? Self.Sending(landed: Array(repeating: true, count: toSend.count))
                : try await Self.send(toSend.map { items[$0] }, store: backend.store, progress: progress)
            let sentIndices = Set(zip(toSend, sending.landed).compactMap { $1 ? $0 : nil })
            refused += sending.refused
            var landed: [Item] = []
            var counts: [VaultFiles.Kind: Int] = [:]
            for (index, item) in items.enumerated() where there.contains(index) || sentIndices.contains(index) {
                landed.append(item)
                counts[item.kind, default: 0] += 1
                guard item.isNote, !dryRun, let tagging = tagger else { continue }
                // Tags after the file, every run: an import interrupted between the two is mended by the next.
                do {
                    // Said, never a failure: the note came whole, its text still holds them.
                    untagged += try await Self.applyTags(of: item, store: tagging)
                } catch RemoteError.notSupported {
                    // A WebDAV server that keeps no dead properties (rclone): said once.
                    tagger = nil
                    say("this remote keeps no tags: the notes come without their tags and pins")
                }
            }
            progress.finish()
            if !dryRun { try await Self.record(landed, in: folder, store: backend.store) }
            for line in untagged + refused { say(line) }
            problems.set(refused.count)
            // What is (or would be) in the club from the vault: sent now, or there before.
            say("\(sentIndices.count) \(dryRun ? "would be imported" : "imported"), \(skipped) already in the club: \(VaultFiles.summary(counts))")
        }
        if problems.value > 0 { throw Exit.conflict.code }
    }

    /// What sending the files came to: whether each landed, at its position, and the names the
    /// club refused.
    struct Sending {
        var landed: [Bool] = []
        var refused: [String] = []
    }

    /// Sends the files to import: to a store that commits in batches (``BatchUploadStore``), the
    /// small ones (at most 4 MiB, every note) as closed upload sessions committed up to 1,000 at
    /// a time, and the others one by one; to any other store (WebDAV) one by one. A name the
    /// club refuses, or a file that can no longer be read here, is reported (``refusal(_:_:)``);
    /// any other failure stops the import (after the batch it was in).
    static func send(_ items: [Item], store: any RemoteStore, progress: ProgressLine) async throws -> Sending {
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
            let results = await batcher.uploadBatch(batch, mode: .add, progress: { progress.update($0, total) })
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
            do {
                if let text = item.text {
                    _ = try await store.upload(data: text, to: item.remote, mode: .add, autorename: false)
                } else {
                    _ = try await store.put(file: item.local, to: item.remote, mode: .add, autorename: false, progress: nil, streams: nil)
                }
                sending.landed[index] = true
            } catch {
                guard let refused = refusal(item, error) else { throw error }
                sending.refused.append(refused)
            }
        }
        return sending
    }

    /// The line for a file that `error` kept out of the club, when it is about that file alone: a
    /// name the club refuses, or the file on this machine that could not be read (gone, or its
    /// permissions changed, since the walk). Nil for an error that stops the import.
    static func refusal(_ item: Item, _ error: RemoteError) -> String? {
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
    static func plan(_ vault: VaultFiles, into folder: String, photos: String, flatten: Bool) -> ([Item], refused: [String]) {
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
        for index in items.indices where items[index].isNote {
            guard let data = FileManager.default.contents(atPath: items[index].local.path), let text = String(validating: data, as: UTF8.self) else { continue }
            items[index].frontMatter = NoteFrontMatter(text) != nil
            let noteFolder = (items[index].remote as NSString).deletingLastPathComponent
            let (moved, rewrites) = NoteLinks.relocatedPictures(in: text, folder: noteFolder, moves: moves)
            if !rewrites.isEmpty { (items[index].text, items[index].rewrites) = (Data(moved.utf8), rewrites) }
        }
        return (items, refused)
    }

    /// What export needs to give the vault back (``VaultManifest``), added to the folder's
    /// manifest: pictures and other files that moved, notes that moved, were renamed by export's `.md`, had no
    /// front matter or had picture links written again.
    static func record(_ items: [Item], in folder: String, store: any RemoteStore) async throws {
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

    /// The note's front matter tags and pin, added to the note in the club by the rule every
    /// path that writes a note follows (``FrontMatterTags``); tags the club cannot keep, and
    /// front matter that does not parse (imported as it is), are answered as refusals.
    static func applyTags(of item: Item, store: any TaggingStore) async throws(RemoteError) -> [String] {
        guard let data = try? Data(contentsOf: item.local) else { return [] }
        return try await FrontMatterTags.adopt(String(decoding: data, as: UTF8.self), at: item.remote, store: store).refused
    }
}
