import ArgumentParser
import ClubKit
import Foundation
import Remote
import SearchIndex

struct Search: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "search",
        abstract: "Find notes by the words in their titles and text.",
        discussion: """
            Words must all match (any case, any accents); trip* is a prefix, "boat hire" a phrase, \
            -word leaves out notes holding it; Chinese, Japanese and Korean text is found too. \
            On a club server (embedded or --server) the server searches; on Dropbox and WebDAV the \
            app's index in $XDG_CACHE_HOME/byteclub/ is searched, brought current first when the \
            server answers (only changed notes are fetched), as it is when offline (saying so). \
            Prints one note a line: title, time, who, line number and the matching line (the match \
            highlighted on a terminal). --json prints one array of {path_display, name, modified, \
            modified_by, modified_by_id, match, line: {number, column, text, ranges} or null} \
            (an empty array when nothing matches, exit 0). Without --json, exits 1 when nothing \
            matches (saying so on stderr, as grep exits), 64 for a query with nothing to search for.
            """)
    // Unrecognized words too: `-rain` is an exclusion here, not an option.
    @Argument(parsing: .allUnrecognized, help: "What to find, e.g. 'trip* \"boat hire\" -rain' (several words are one query).")
    var words: [String]
    @Flag(help: "Print JSON, one array of hits.") var json = false
    @Option(help: "The most notes shown.") var limit: Int = 50
    @OptionGroup var backend: BackendOptions

    func validate() throws {
        guard limit >= 1 else { throw ValidationError("--limit must be at least 1") }
        do { _ = try SearchQuery(words.joined(separator: " ")) } catch { throw ValidationError(error.description) }
    }

    func run() async throws {
        let text = words.joined(separator: " ")
        let (limit, json) = (self.limit, self.json)
        let found = Carried(false)
        // The app's way with an unreachable server: say offline at once and search the index.
        var retry = RetryPolicy()
        retry.retriesUnreachable = false
        try await runRemote(backend, retry: retry, offlineStart: true) { backend in
            async let me = backend.me()
            var hits = try await ClubSearch.search(text, backend: backend, limit: limit, say: { say($0) }, progress: Self.indexing)
            found.set(!hits.isEmpty)
            let names = await backend.names.names(for: hits.map(\.modifiedById))
            for index in hits.indices { hits[index].modifiedBy = MemberNames.shown(hits[index].modifiedById, names: names) }
            if json {
                try CLIJSON.print(hits)
            } else {
                let you = await me
                let formatter = JSONLines.localTimeFormatter()
                let color = isatty(1) == 1
                FileHandle.standardOutput.write(Data(hits.map { $0.line(formatter: formatter, you: you, highlight: color) }.joined().utf8))
            }
        }
        // As grep: no hit is exit 1, said on stderr; with --json the empty array says it.
        if !found.value && !json {
            say("no note matches \(text)")
            throw Exit.noMatch.code
        }
    }

    /// "indexing 120/4000 notes" on a terminal's stderr while the index is brought current.
    static let indexing: @Sendable (Int, Int) -> Void = { done, total in
        guard isatty(2) == 1, total > 0 else { return }
        FileHandle.standardError.write(Data((done < total ? "\rindexing \(done)/\(total) notes" : "\r\u{1B}[K").utf8))
    }
}

extension SearchResult {
    /// "Title  2026-11-23 10:00  who  12: the matching line", names and text escaped.
    func line(formatter: DateFormatter, you: RemoteAccount?, highlight: Bool) -> String {
        let title = (name as NSString).deletingPathExtension
        let date = modified.map(formatter.string) ?? ""
        var out = TerminalSafe.escape(title) + "  " + date.padding(toLength: 16, withPad: " ", startingAt: 0) + "  "
            + TerminalSafe.escape(RevisionList.who(modifiedById, you: you, names: modifiedBy.flatMap { name in modifiedById.map { [$0: name] } } ?? [:]))
        if let line {
            out += "  \(line.number): " + Self.marked(line.text, ranges: line.ranges, highlight: highlight)
        }
        return out + "\n"
    }

    /// The line, each piece escaped on its own so the ranges stay true, matches in reverse video.
    static func marked(_ text: String, ranges: [[Int]], highlight: Bool) -> String {
        let characters = Array(text)
        var out = ""
        var at = 0
        for range in ranges where range.count == 2 && range[0] >= at && range[1] <= characters.count && range[0] < range[1] {
            out += TerminalSafe.escape(String(characters[at..<range[0]]))
            let match = TerminalSafe.escape(String(characters[range[0]..<range[1]]))
            out += highlight ? "\u{1B}[7m" + match + "\u{1B}[27m" : match
            at = range[1]
        }
        return out + TerminalSafe.escape(String(characters[at...]))
    }
}
