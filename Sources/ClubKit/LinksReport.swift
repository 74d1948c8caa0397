import DropboxWire
import Foundation
import Markdown
import Remote
import SearchIndex

/// A note's links and backlinks, as `links` shows them: where each link leads, by the app's
/// rules (the core's ``NoteResolver``), and the notes that link to it, from the club's index.
/// Encoded, it is what `links --json` prints: one object, snake_case as every `--json`
/// (docs/schemas/links.schema.json).
public struct LinksReport: Encodable, Sendable {
    public struct Outgoing: Encodable, Sendable {
        /// From 1 (an autolink: the first line holding its address).
        public var line: Int
        public var text: String
        public var destination: String
        /// The heading or block after `#` (`[[Trip#Day 2]]` → "Day 2"), or nil.
        public var fragment: String?
        /// "wiki", "markdown" or "autolink".
        public var syntax: String
        public var isImage: Bool
        /// "note", "file" (another file of the club: a PDF, a canvas), "photo", "web" or "elsewhere".
        public var target: String
        /// The club path it leads to (a missing note: the path or nil for a title), else nil.
        public var pathDisplay: String?
        /// Whether that note or photo is in the club; nil where not known (web, offline photos).
        public var exists: Bool?

        enum CodingKeys: String, CodingKey {
            case line, text, destination, fragment, syntax, isImage = "is_image", target, pathDisplay = "path_display", exists
        }

        init(_ link: NoteLink, target: NoteLinkTarget, path: String?, exists: Bool?) {
            line = link.line + 1
            text = link.text
            destination = link.destination
            fragment = link.fragment
            switch link.syntax {
            case .wiki: syntax = "wiki"
            case .markdown: syntax = "markdown"
            case .autolink: syntax = "autolink"
            }
            isImage = link.isImage
            switch target {
            case .note, .path, .here: self.target = "note"
            case .photo: self.target = "photo"
            case .web: self.target = "web"
            case .elsewhere: self.target = "elsewhere"
            }
            pathDisplay = path
            self.exists = exists
        }

        public func encode(to encoder: any Encoder) throws {
            var object = encoder.container(keyedBy: CodingKeys.self)
            try object.encode(line, forKey: .line)
            try object.encode(text, forKey: .text)
            try object.encode(destination, forKey: .destination)
            try object.encode(fragment, forKey: .fragment)
            try object.encode(syntax, forKey: .syntax)
            try object.encode(isImage, forKey: .isImage)
            try object.encode(target, forKey: .target)
            try object.encode(pathDisplay, forKey: .pathDisplay)
            try object.encode(exists, forKey: .exists)
        }

        /// "[[Trip plan]]", "[x](y)", "![a](photos/b.jpg)" or the address, as written in short.
        public var written: String {
            switch syntax {
            case "wiki": return (isImage ? "!" : "") + "[[" + destination + (fragment.map { "#" + $0 } ?? "") + "]]"
            case "markdown": return (isImage ? "!" : "") + "[" + text + "](" + destination + ")"
            default: return destination
            }
        }
    }

    public struct Incoming: Encodable, Sendable {
        public var pathDisplay: String
        public var title: String
        /// From 1: the line of its first link here.
        public var line: Int
        public var context: String
        /// How many of its links lead here.
        public var links: Int
        public var modified: Date?
        /// The member's name, or nil where the server names no one (the id is `modified_by_id`).
        public var modifiedBy: String?
        public var modifiedById: String?

        enum CodingKeys: String, CodingKey {
            case pathDisplay = "path_display", title, line, context, links, modified, modifiedBy = "modified_by", modifiedById = "modified_by_id"
        }

        init(_ link: Backlink, name: String?) {
            pathDisplay = link.path
            title = link.title
            line = link.line + 1
            context = link.context
            links = link.count
            modified = link.modified
                // A name, never an account id where a name belongs (nil when none is known).
            modifiedBy = name
            modifiedById = link.modifiedBy
        }

        public func encode(to encoder: any Encoder) throws {
            var object = encoder.container(keyedBy: CodingKeys.self)
            try object.encode(pathDisplay, forKey: .pathDisplay)
            try object.encode(title, forKey: .title)
            try object.encode(line, forKey: .line)
            try object.encode(context, forKey: .context)
            try object.encode(links, forKey: .links)
            try object.encode(modified, forKey: .modified)
            try object.encode(modifiedBy, forKey: .modifiedBy)
            try object.encode(modifiedById, forKey: .modifiedById)
        }
    }

    public var pathDisplay: String
    public var title: String
    /// The server could not be reached: the note and its backlinks are the index's.
    public var offline: Bool
    public var outgoing: [Outgoing]
    public var backlinks: [Incoming]

    enum CodingKeys: String, CodingKey { case pathDisplay = "path_display", title, offline, outgoing, backlinks }

    /// For people: the note, its links with where each leads, then its backlinks; every name escaped.
    public func text(formatter: DateFormatter) -> String {
        var out = TerminalSafe.escape(title) + "  " + TerminalSafe.escape(pathDisplay) + "\n"
        out += "Links (\(outgoing.count)):\n"
        for link in outgoing {
            let leads: String
            switch (link.target, link.exists) {
            case ("note", false?): leads = "missing note"
            case ("photo", false?): leads = "missing photo"
            case (_, _) where link.pathDisplay != nil: leads = link.pathDisplay ?? ""
            default: leads = link.target
            }
            out += "  \(link.line): " + TerminalSafe.escape(link.written) + " → " + TerminalSafe.escape(leads) + "\n"
        }
        out += "Backlinks (\(backlinks.count)):\n"
        for link in backlinks {
            let date = link.modified.map(formatter.string) ?? ""
            out += "  " + TerminalSafe.escape(link.title) + "  " + date + "  \(link.line): " + TerminalSafe.escape(link.context) + "\n"
        }
        return out
    }
}

extension LinksReport {
    /// The links in the order they are written: cmark gives autolinks no position (line -1, so
    /// first), so each is put on the first line that holds its address.
    public static func placed(_ links: [NoteLink], in text: String) -> [NoteLink] {
        let lines = text.split(separator: "\n", omittingEmptySubsequences: false)
        var placed = links.filter { $0.line >= 0 }
        for var link in links where link.line < 0 {
            link.line = lines.firstIndex { $0.contains(link.destination) } ?? 0
            placed.append(link)
        }
        // Stable: links on one line keep their order.
        return placed.enumerated().sorted { ($0.element.line, $0.offset) < ($1.element.line, $1.offset) }.map(\.element)
    }

    /// The note's text (from the server, else the index's copy), its links resolved, and its backlinks.
    ///
    /// - Parameters:
    ///   - names: members' names for the account ids of the backlinks' last writers.
    ///   - say: what there is to say on the way (notes the index could not fetch; the server
    ///     unreachable, the index answering).
    ///   - progress: the index being brought current, as ``ClubSearch/bringCurrent(_:backend:say:progress:)`` tells it.
    public static func make(_ path: String, backend: Backend, names: ([String?]) async -> [String: String], say: (String) -> Void,
                            progress: @escaping @Sendable (Int, Int) -> Void = { _, _ in }) async throws -> LinksReport {
        let index = try backend.searchIndex()
        var offline = false
        // Nil while the index, brought current through the changes since it last was, answers
        // for the club on its own: the notes a link may lead to are then asked of it, a few rows
        // (issue 71), and the club is listed only for a link that may name another kind of file.
        var notes: [RemoteEntry]?
        if await !ClubIndexSync.catchUp(index, layout: ClubLayout(folder: backend.folder), store: backend.store) {
            do {
                notes = try await ClubSearch.bringCurrent(index, backend: backend, say: say, progress: progress)
            } catch let error as RemoteError where error.isUnreachable {
                offline = true
                say("offline (\(error.message)): links and backlinks as indexed before")
                notes = ((try? index.paths()) ?? []).map { RemoteEntry(kind: .file, name: ($0 as NSString).lastPathComponent, path: $0) }
            }
        }
        let text: String, display: String
        if !offline {
            let (data, entry) = try await backend.store.read(path)
            (text, display) = (String(decoding: data, as: UTF8.self), entry.path)
        } else if let copy = try index.note(at: path) {
            (text, display) = (copy.text, copy.path)
        } else {
            throw RemoteError.notFound(path)
        }
        let folder = (display as NSString).deletingLastPathComponent
        let links = placed(NoteLinks.scan(text), in: text).map { (link: $0, target: $0.target(inFolder: folder)) }
        // A picture where its link says is found so, one request each; the club's files are
        // listed only when one is not there, for the resolver to find it as Obsidian would.
        var pictures: [String: RemoteEntry] = [:]
        var picturesElsewhere = false
        for case (_, .photo(let photo)) in links where !offline && pictures[photo.lowercased()] == nil && !picturesElsewhere {
            if let entry = try? await backend.store.metadata(photo) { pictures[photo.lowercased()] = entry } else { picturesElsewhere = true }
        }
        let resolver = try await Self.resolver(for: links.map(\.target), notes: notes, offline: offline, index: index, backend: backend,
                                               filesToo: picturesElsewhere)
        var outgoing: [Outgoing] = []
        for (link, target) in links {
            var exists: Bool?
            var targetPath: String?
            switch target {
            case .note, .path:
                let answer = resolver.resolve(target, from: display)
                switch answer {
                case .one(let entry): targetPath = entry.path
                // As near as each other: the app asks which; the first by path is one it offers.
                case .several(let entries): targetPath = entries.first?.path
                case .none: if case .path(let written) = target { targetPath = written }
                }
                exists = answer != .none
            case .photo(let photo):
                targetPath = photo
                if offline { break }
                if pictures[photo.lowercased()] != nil {
                    exists = true
                    break
                }
                switch resolver.resolvePicture(at: photo, from: display) {
                case .one(let entry): (targetPath, exists) = (entry.path, true)
                case .several(let entries): (targetPath, exists) = (entries.first?.path ?? photo, true)
                case .none: exists = false
                }
            case .here:
                targetPath = display
                exists = true
            case .web, .elsewhere:
                break
            }
            var out = Outgoing(link, target: target, path: targetPath, exists: exists)
            // A link that found an attachment (a PDF, a canvas) rather than a note.
            if exists == true, let found = targetPath, out.target == "note", !ClubLayout.hasExtension(found, in: ClubLayout.noteExtensions) {
                out.target = "file"
            }
            outgoing.append(out)
        }
        // By the resolver that follows links: those that lead here, aliases too.
        let found = try index.resolvedBacklinks(to: display, root: backend.folder)
        // Members by name where the server says (a club server's accounts); the id stays beside it.
        let names = offline ? [:] : await names(found.map(\.modifiedBy))
        let backlinks = found.map { Incoming($0, name: $0.modifiedBy.flatMap { names[$0] }) }
        return LinksReport(pathDisplay: display, title: NoteLinks.title(ofPath: display), offline: offline,
                         outgoing: outgoing, backlinks: backlinks)
    }

    /// Where links lead, by the app's rules (the core's NoteResolver): over `notes` (every note
    /// at any depth, listed) with the aliases their front matter gives, or, when the index is
    /// current and nothing was listed (nil), over the notes of the links' names in the index
    /// (``NoteResolver/lookingUp(_:root:in:files:)``: the same answers). And the club's other
    /// files, which a link may name too ([[paper.pdf]], [x](plan.canvas)), listed only when a
    /// link may lead to one.
    static func resolver(for targets: [NoteLinkTarget], notes: [RemoteEntry]?, offline: Bool, index: SearchIndex,
                         backend: Backend, filesToo: Bool = false) async throws -> NoteResolver {
        var names: [String] = [], paths: [String] = [], needsFiles = filesToo
        for target in targets {
            switch target {
            case .note(let title):
                names.append(title)
                if NoteResolver.mayNameAFile(title) { needsFiles = true }
            case .path(let path):
                names.append(path)
                paths.append(path)
            case .photo, .web, .elsewhere, .here:
                break
            }
        }
        if notes == nil {
            let found = try NoteResolver.lookingUp(names, root: backend.folder, in: index)
            // A Markdown link to a note that is there leads to it before any file; another may
            // lead to a file of that name.
            if !needsFiles && paths.allSatisfy({ found.entry(at: $0) != nil }) { return found }
        }
        let files = offline || targets.isEmpty ? [] : try await backend.store.listRecursivelyIfThere(backend.folder).filter {
            $0.kind == .file && !ClubLayout.hasExtension($0.name, in: ClubLayout.noteExtensions)
        }
        guard let notes else { return try NoteResolver.lookingUp(names, root: backend.folder, in: index, files: files) }
        let aliases = NoteResolver.aliases(of: (try? index.notesWithFrontMatter(naming: "aliases")) ?? [])
        return NoteResolver(entries: notes + files, root: backend.folder, aliases: aliases)
    }
}
