import ArgumentParser
import ClubKit
import Foundation
import Remote

struct Links: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "links",
        abstract: "Print a note's links and the notes that link to it (its backlinks).",
        discussion: """
            Links are [[Title]], [[Title|text]], relative Markdown links ([x](Trip%20plan.md)), \
            pictures (![a](photos/desk.jpg), ![[desk.jpg]]) and web addresses; none inside code. \
            Each is printed with its line and where it leads, as the app follows it (a title in \
            any folder, the nearest first; a file by its name with its extension, [[paper.pdf]]; a \
            Markdown link from the note's folder, else from the club's, else by the end of its \
            path; a missing note says so). Backlinks \
            come from the app's index in $XDG_CACHE_HOME/byteclub/, brought current first (only \
            changed notes are fetched); offline, from what it holds, saying so. --json prints one \
            object: {path_display, title, offline, outgoing: [{line, text, destination, syntax, \
            is_image, target, path_display, exists}], backlinks: [{path_display, title, line, \
            context, links, modified, modified_by, modified_by_id}]} (schema: \
            docs/schemas/links.schema.json). Exits 3 when the note is not found.
            """)
    @Argument(help: "The note: its title (\"Trip plan\"), a path in the club's folder, /PATH or NAME:PATH.") var path: String
    @Flag(help: "Print JSON, one object.") var json = false
    @OptionGroup var backend: BackendOptions

    mutating func validate() throws {
        path = try backend.takeRemote(from: path)
    }

    func run() async throws {
        guard !self.path.isEmpty else { throw ValidationError("give a note, e.g. \"Trip plan\"") }
        let typed = backend.clubPath(self.path)
        let json = self.json
        // As `search`: an unreachable server is said once, and the index answers.
        var retry = RetryPolicy()
        retry.retriesUnreachable = false
        try await runRemote(backend, retry: retry, offlineStart: true) { backend in
            let path = try await notePath(typed, on: backend)
            let names = backend.names
            let report = try await LinksReport.make(path, backend: backend, names: { await names.names(for: $0) }, say: { say($0) },
                                                    progress: Search.indexing)
            if json {
                FileHandle.standardOutput.write(try CLIJSON.encode(report) + Data("\n".utf8))
            } else {
                FileHandle.standardOutput.write(Data(report.text(formatter: JSONLines.localTimeFormatter()).utf8))
            }
        }
    }
}
