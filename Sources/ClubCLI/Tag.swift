import ArgumentParser
import ClubKit
import DropboxWire
import Foundation
import Remote

/// `byteclub tag PATH [+a] [-b] …`: a file's tags, or a change to them.
struct Tag: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "tag",
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
            let tags = try await backend.writes.changeTags(of: path, change)
            if json { return try CLIJSON.print(TagsJSON(pathDisplay: path, tags: tags)) }
            FileHandle.standardOutput.write(Data(tags.map { TerminalSafe.escape($0) + "\n" }.joined().utf8))
        }
    }
}

extension Ls {
    /// `ls --tag NAME`: the files with `tag` or a tag nested under it in `folder` and every
    /// folder under it (``FileTags/tagged(_:in:store:)``), each line naming its file by the path
    /// from `folder`.
    static func listTagged(_ folder: String, tag: String, json: Bool, on backend: Backend) async throws(RemoteError) {
        let files = try await backend.tagged(tag, in: folder)
        let printer = ListingPrinter(json: json, names: backend.names, under: folder)
        await printer.print(files)
        await printer.finish()
    }
}
