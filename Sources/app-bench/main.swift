import ByteClubApp
import ClubServer
import Dispatch
import Foundation
import Imaging
import Logging
import Remote
import TerminalUI
#if canImport(Glibc)
import Glibc
#endif

// app-bench [all [SIZE]]    every scenario below
// app-bench notes           10,000 notes: from start to the first frame that lists them
// app-bench editor          typing in a 1 MiB note opened through the app: key + frame
// app-bench photos          200 photos: frame times while scrolling as thumbnails arrive
// app-bench upload [SIZE]   a 1 GiB upload through the app: progress events reaching the UI per second
// app-bench cancel          Esc during an upload: until the modal is gone, and until the task has ended
// app-bench echo [SIZE]     key echo in a real pty, idle and during a 1 GiB background upload
// app-bench live            two members: another's commit to the frame that lists it, 50 changes
// app-bench live-echo       key echo in a real pty while another member commits a note a second
// app-bench webdav          2,000 notes on rclone serve webdav: from start to the first frame that lists them
// app-bench webdav-poll     the app idle on rclone serve webdav: requests and bytes a minute its polling costs the server
// app-bench outbox          20 saves queued offline: from the server's return to the last one confirmed (and curl)
// app-bench offline-start   10,000 cached notes, the server down: from start to the first frame that shows them
// app-bench markdown        a 1 MiB Markdown note, highlighting on, beside vim with syntax on: open to first frame, key echo (pty)
// app-bench search          10,000 notes of 5 KiB: key echo while the app indexes them, Ctrl-F from last key to results (pty)
// app-bench folders         10,000 notes in 500 folders: the tree's first frame from the cache, opening a folder, moving 1,000 notes beside mv
// app-bench club [--notes N] [--photos P] [--folders F] [--put N] [--webdav | --encrypted]
//                           100,000 notes and 2,000 photos: cold start, every note indexed, from the cache, search beside rg, the server, put -r beside rclone;
//                           with --webdav, the notes on rclone serve webdav: cold start and every note indexed;
//                           with --encrypted, a plain club beside an encrypted one: cold start and every note indexed
//
// The app runs as in `byteclub`: a ClubApp on the main queue, a club server on loopback, real
// HTTP through Remote and Transfer. Frames go to an in-memory GridCanvas (the echo scenario
// runs the real binary in a pseudo-terminal instead). Build in release:
// `swift build -c release --product app-bench && .build/release/app-bench`.

let arguments = Array(CommandLine.arguments.dropFirst())
LoggingSystem.bootstrap { _ in SwiftLogNoOpLogHandler() }
// As `byteclub` does at the start of its terminal app: the in-process app's memory is measured.
ProcessMemory.limitMallocArenas()

func parseSize(_ text: String?) -> Int64? {
    guard let text else { return nil }
    let units: [(String, Int64)] = [("GiB", 1 << 30), ("MiB", 1 << 20), ("KiB", 1 << 10), ("G", 1 << 30), ("M", 1 << 20), ("K", 1 << 10)]
    for (suffix, factor) in units where text.hasSuffix(suffix) {
        return Int64(text.dropLast(suffix.count)).map { $0 * factor }
    }
    return Int64(text)
}

Task { @MainActor in
    let size = parseSize(arguments.count > 1 ? arguments[1] : nil) ?? (1 << 30)
    do {
        switch arguments.first {
        case nil, "all":
            try await AppBench.notes()
            try await AppBench.editor()
            try await AppBench.photos()
            try await AppBench.upload(size: size)
            try await AppBench.cancel()
            try await EchoBench.run(size: size)
            try await LiveBench.latency()
            try await LiveBench.echo()
            try await WebDAVFirstFrame.run()
            try await WebDAVPollBench.run()
            try await OfflineBench.outbox()
            try await OfflineBench.offlineStart()
            try await SearchBench.run()
            try await MarkdownBench.run()
            try await FoldersBench.run()
            try await TogetherBench.run()
            try await ClubBench.run(ClubBench.Options())
            try await ClubBench.run(ClubBench.Options(folders: 500, others: false))
            try await ClubWebDAVBench.run(ClubBench.Options(webdav: true))
        case "notes": try await AppBench.notes()
        case "editor": try await AppBench.editor()
        case "photos": try await AppBench.photos()
        case "upload": try await AppBench.upload(size: size)
        case "cancel": try await AppBench.cancel()
        case "echo": try await EchoBench.run(size: size)
        case "live": try await LiveBench.latency()
        case "live-echo": try await LiveBench.echo()
        case "webdav": try await WebDAVFirstFrame.run()
        case "webdav-poll": try await WebDAVPollBench.run()
        case "outbox": try await OfflineBench.outbox()
        case "offline-start": try await OfflineBench.offlineStart()
        case "search": try await SearchBench.run()
        case "markdown": try await MarkdownBench.run()
        case "folders": try await FoldersBench.run()
        case "together": try await TogetherBench.run()
        case "together-trace": try TogetherBench.trace()
        case "club":
            let options = try ClubBench.options(arguments.dropFirst())
            if options.webdav {
                try await ClubWebDAVBench.run(options)
            } else if options.encrypted {
                try await ClubEncryptedBench.run(options)
            } else {
                try await ClubBench.run(options)
            }
        default:
            print("usage: app-bench [all [SIZE] | notes | editor | photos | upload [SIZE] | cancel | echo [SIZE] | live | live-echo | webdav | webdav-poll | outbox | offline-start | search | markdown | folders | together | together-trace | club [--notes N] [--photos P] [--folders F] [--put N] [--webdav | --encrypted] [--club-only]]")
            exit(2)
        }
        exit(0)
    } catch {
        print("app-bench: \(error)")
        exit(1)
    }
}
dispatchMain()
