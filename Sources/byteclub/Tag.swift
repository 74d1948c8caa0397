import ByteClubConfig
import ArgumentParser
import DropboxWire
import ClubKit
import Foundation
import Remote

/// `byteclub tag PATH [+a] [-b] …`: a file's tags, or a change to them.
struct Tag: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Show or change a file's tags.",
        discussion: """
            With no changes, prints the file's tags, one per line. `+name` (or a bare name) adds a \
            tag, `-name` removes one; the tags after the change are printed. A tag is letters, \
            digits and _, or a nested tag of such parts joined by / (`project/alpha`; the club \
            server and WebDAV keep them, Dropbox itself does not) (at most \(TagText.maximumLength) characters, at most \(TagText.maximumPerItem) \
            per file), stored in lower case as Dropbox stores it. A pin is the reserved tag \
            `\(ItemTags.pinTag)` (`+\(ItemTags.pinTag)` pins). A bad name is refused before anything \
            is sent (exit 64); a missing file exits 3; a WebDAV server that cannot keep tags exits 1, saying so.
            """)
    @Argument(help: "The file: a path in the club's folder, a note's title, /PATH or NAME:PATH.") var path: String
    @Flag(help: "Print JSON: {path_display, tags}.") var json = false
    @Argument(parsing: .allUnrecognized, help: "Changes: +name adds, -name removes.") var changes: [String] = []
    @OptionGroup var backend: BackendOptions

    mutating func validate() throws {
        path = try backend.takeRemote(from: path)
        guard !path.isEmpty else { throw ValidationError("give a file to tag") }
        do { _ = try TagChange.parse(changes) } catch { throw ValidationError(error.description) }
    }

    func run() async throws {
        let typed = backend.clubPath(self.path)
        let change: TagChange
        do { change = try TagChange.parse(changes) } catch { throw ValidationError(error.description) }
        let json = self.json
        try await runRemote(backend, path: typed) { backend in
            let path = try await notePath(typed, on: backend)
            let store = try tagging(backend.store)
            let tags: [String]
            if change.isEmpty {
                // A missing file is an error here, not an empty answer.
                _ = try await backend.store.metadata(path)
                tags = try await store.tags(of: [path])[path.lowercased()] ?? []
            } else {
                tags = try await store.changeTags(of: path, change)
            }
            if json { return try CLIJSON.print(TagsJSON(pathDisplay: path, tags: tags)) }
            FileHandle.standardOutput.write(Data(tags.map { TerminalSafe.escape($0) + "\n" }.joined().utf8))
        }
    }
}

/// A file's tags as `tag --json` prints them.
struct TagsJSON: Encodable {
    var pathDisplay: String
    var tags: [String]
}

/// The store's tags, or a clear refusal for a store that keeps none.
func tagging(_ store: any RemoteStore) throws(RemoteError) -> any TaggingStore {
    guard let tagging = store as? any TaggingStore else { throw .notSupported("tags") }
    return tagging
}

extension Ls {
    /// `ls --tag NAME`: every file in `folder` and in every folder under it (the whole club when
    /// no folder was given; hidden folders such as `.obsidian` left out), then their tags,
    /// printing only those with `tag` or a tag nested under it (`project/alpha` under
    /// `project`), each line naming its file by the path from `folder`.
    static func listTagged(_ folder: String, tag: String, json: Bool, store: any RemoteStore) async throws(RemoteError) {
        let tagger = try tagging(store)
        let printer = ListingPrinter(json: json, names: MemberNames(store: store), under: folder)
        let files = try await store.listRecursively(folder).filter { $0.kind == .file && !isHidden($0, under: folder) }
        let tags = try await tagger.tags(of: files.map(\.path))
        await printer.print(files.filter { tags[$0.pathLower]?.contains { TagText.isUnder($0, parent: tag) } == true })
        await printer.finish()
    }

    /// Whether `entry` is in a hidden folder (`.obsidian`, `.trash`) below `folder`.
    static func isHidden(_ entry: RemoteEntry, under folder: String) -> Bool {
        let depth = folder.split(separator: "/").count
        return entry.path.split(separator: "/").dropFirst(depth).dropLast().contains { $0.hasPrefix(".") }
    }
}
