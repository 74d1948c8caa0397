import Foundation

/// One fuzz target per parser of bytes that come from outside: a club server's requests, a
/// WebDAV server's answers, the terminal's input, the agent's socket, config.toml, search text,
/// a live note's updates, pictures (PNG, GIF, WebP, SVG; JPEG through the club routes' thumbnails).
///
/// Each target takes any bytes and must return: a trap (an overflow, an index out of range, a
/// force-unwrap) or a broken promise it checks (``FuzzCheck/expect(_:_:)``) is a finding. The same
/// functions run under libFuzzer (`make fuzz`, the `byteclub-fuzz` executable) and in
/// `FuzzCorpusReplayTests`, which replays every committed seed and past finding under
/// Tests/Fuzz/<name>/, so a finding, once fixed, stays fixed.
public enum FuzzTargets {
    public struct Target: Sendable {
        /// Its folder under Tests/Fuzz, and the name `make fuzz` and `byteclub-fuzz` take.
        public let name: String
        /// What it feeds, for `byteclub-fuzz --list`.
        public let summary: String
        public let run: @Sendable (Data) -> Void
    }

    public static let all: [Target] = [
        Target(name: "club-routes", summary: "every club server route: Dropbox-API-Arg, JSON body, Range and conditional headers, through the real router and store",
               run: ClubRoutesTarget.run),
        Target(name: "dropbox-arg", summary: "Dropbox-API-Arg text into Arguments and every wire type a route decodes", run: DropboxArgTarget.run),
        Target(name: "http-headers", summary: "Range, If-Range and If-None-Match headers, share link paths", run: HTTPHeadersTarget.run),
        Target(name: "session-ledger", summary: "the concurrent-session ledger fed (offset, length, close) appends and its text form",
               run: SessionLedgerTarget.run),
        Target(name: "webdav-multistatus", summary: "a WebDAV server's PROPFIND answer", run: WebDAVTarget.run),
        Target(name: "listing-page", summary: "a list_folder page read by the quick reader, which must agree with JSONDecoder wherever it answers",
               run: ListingPageTarget.run),
        Target(name: "batch-download", summary: "a club server's download_batch answer: parts and their bytes", run: BatchDownloadTarget.run),
        Target(name: "key-decoder", summary: "terminal input: keys, mouse reports, pastes and terminal replies, in any chunks", run: KeyDecoderTarget.run),
        Target(name: "terminal-replies", summary: "TerminalReplyScanner's APC/DCS strings and CSI replies", run: TerminalRepliesTarget.run),
        Target(name: "agent-lines", summary: "the agent's protocol lines and journal", run: AgentLinesTarget.run),
        Target(name: "config-toml", summary: "config.toml, parsed and checked", run: ConfigTarget.run),
        Target(name: "search-query", summary: "search text, parsed and run against a real index", run: SearchQueryTarget.run),
        Target(name: "age-file", summary: "an encrypted club's file: the age header, stanzas, MAC and STREAM, the signature stanza, keys and hidden names",
               run: AgeFileTarget.run),
        Target(name: "age-stream", summary: "an encrypted club's file as a download hands it over: the age reader fed in pieces, and resumed at a chunk",
               run: AgeStreamTarget.run),
        Target(name: "entry-table", summary: "the app's cached listing: an entry table's header, records and texts, read as a damaged disk gives them",
               run: EntryTableTarget.run),
        Target(name: "front-matter", summary: "a note's YAML front matter: found, parsed by Yams, rendered and highlighted", run: FrontMatterTarget.run),
        Target(name: "obsidian-markdown", summary: "Obsidian's Markdown: comments, math, highlights, callouts, embeds (depth, loops), link places and inline tags",
               run: ObsidianMarkdownTarget.run),
        Target(name: "live-text-update", summary: "a live note's update from a peer (Yjs update v1: structs, delete set) and a state vector, applied to a document",
               run: LiveTextUpdateTarget.run),
        Target(name: "live-journal", summary: "a live note's journal as the app reads it at open: records, each a revision mark or an update applied",
               run: LiveJournalTarget.run),
        Target(name: "live-control", summary: "the live channel's client bytes: a text frame as a JSON control message, relay frames and presence read back",
               run: LiveControlTarget.run),
        Target(name: "picture-png", summary: "a PNG: its header, libspng's row-at-a-time decode (Adam7 too) and a PNG thumbnail", run: PictureTargets.png),
        Target(name: "picture-gif", summary: "a GIF: its screen, giflib's records up to the first frame and its rows", run: PictureTargets.gif),
        Target(name: "picture-webp", summary: "a WebP: its headers, libwebp's scaled decode, an animation's first frame", run: PictureTargets.webp),
        Target(name: "picture-svg", summary: "an SVG: the sniffer's prologue, librsvg's parse (no file, no URL) and its render", run: PictureTargets.svg),
    ]

    public static func named(_ name: String) -> Target? { all.first { $0.name == name } }
}

/// A promise a target checks about what a parser gave back.
enum FuzzCheck {
    /// Traps (a finding) when `condition` is false. Unlike `precondition`, it holds in release
    /// builds, which is what `make fuzz` runs.
    static func expect(_ condition: @autoclosure () -> Bool, _ message: @autoclosure () -> String) {
        if !condition() { fatalError("fuzz finding: \(message())") }
    }

    /// Runs `body` on the concurrency pool and waits for it: libFuzzer's callback is synchronous.
    static func wait<T: Sendable>(_ body: @escaping @Sendable () async -> T) -> T {
        let done = DispatchSemaphore(value: 0)
        let box = ResultBox<T>()
        Task {
            box.value = await body()
            done.signal()
        }
        done.wait()
        return box.value!
    }
}

/// The result of ``FuzzCheck/wait(_:)``'s task.
///
/// `@unchecked Sendable`: written once by the task before it signals the semaphore, read only
/// after `wait()` returns, so the semaphore orders the two accesses.
private final class ResultBox<T>: @unchecked Sendable {
    var value: T?
}
