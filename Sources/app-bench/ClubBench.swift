import ByteClubApp
import Foundation
import Imaging
import LoopbackHTTP
import Remote
import SearchIndex
import Synchronization
import TerminalUI
#if canImport(Glibc)
import Glibc
#endif

/// The 100,000-note club (issue 46): `app-bench club [--notes N] [--photos P] [--folders F]`.
///
/// The club server is the release `byteclub serve` in a process of its own (so its memory and
/// the app's are told apart), the app a ClubApp on this process's main queue with its own cache
/// and search index, frames into a 120×36 GridCanvas. Each figure is printed beside its target
/// and, where there is one in the same run, beside a peer: `rg` over the same notes on disk for
/// search, `rclone copy` to `rclone serve webdav` for `put -r`.
///
/// Key echo is timed here as the main queue's delay: a tick is due every 5 ms on the main
/// queue while the first sync runs, and how late each one runs is what a key typed then would
/// wait before the app read it (the pty's own echo, as `app-bench search` times it, adds the
/// terminal's write on top, about 1 ms).
@MainActor
enum ClubBench {
    struct Options {
        var notes = 100_000
        var photos = 2_000
        /// 0: every note in the club's folder; else spread evenly over this many folders.
        var folders = 0
        /// Notes for the `put -r` row (0 leaves the row out).
        var put = 10_000
        /// The notes on `rclone serve webdav` instead (ClubWebDAVBench).
        var webdav = false
        /// A plain club beside an encrypted one (ClubEncryptedBench).
        var encrypted = false
        /// Issue 71's other rows after the club's (``otherRows(_:notes:)``); `--club-only` leaves them out.
        var others = true
    }

    static func options(_ arguments: ArraySlice<String>) throws -> Options {
        var options = Options()
        var rest = arguments
        while let flag = rest.popFirst() {
            switch flag {
            case "--webdav": options.webdav = true; continue
            case "--encrypted": options.encrypted = true; continue
            case "--club-only": options.others = false; continue
            default: break
            }
            guard let value = rest.popFirst().flatMap({ Int($0.replacingOccurrences(of: "_", with: "")) }), value >= 0 else {
                throw BenchError("app-bench club: \(flag) needs a number")
            }
            switch flag {
            case "--notes": options.notes = max(1, value)
            case "--photos": options.photos = value
            case "--folders": options.folders = value
            case "--put": options.put = value
            default: throw BenchError("app-bench club: unknown option \(flag) (--notes N, --photos P, --folders F, --put N, --webdav, --encrypted, --club-only)")
            }
        }
        return options
    }

    static func run(_ options: Options) async throws {
        let work = FileManager.default.temporaryDirectory.appendingPathComponent("app-bench-club-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: work) }
        Interrupts.register { try? FileManager.default.removeItem(at: work) }
        let root = work.appendingPathComponent("club")
        let notesFolder = root.appendingPathComponent("byteclub")
        let seeding = ContinuousClock.now
        try seed(notesFolder, options)
        let shape = options.folders == 0 ? "in one folder" : "in \(options.folders) folders"
        say("app-bench club: \(grouped(options.notes)) notes of 1 KiB \(shape) and \(grouped(options.photos)) photos (written in \(seconds(since: seeding)));")
        say("byteclub serve (release) in its own process on loopback, the app on this process's main queue. Release build: targets are for it.")
        let widths = [52, 12, 12, 22]
        say(row(["measure", "byteclub", "target", "peer, same run"], widths))

        // A first start, as a user meets it: `byteclub serve --root` over a folder it has never
        // seen (a vault copied in, a restored backup), its first search and a first `ls` before
        // anything else has warmed it; `cp -r` and `rg -l` of the same folder in the same run.
        let copyStart = ContinuousClock.now
        guard try run(["/bin/cp", "-r", notesFolder.path, work.appendingPathComponent("copy").path], discardOutput: true) == 0 else {
            throw BenchError("cp -r of the notes failed")
        }
        let copied = milliseconds(since: copyStart)
        try? FileManager.default.removeItem(at: work.appendingPathComponent("copy"))
        let startStart = ContinuousClock.now
        var server = try ServeProcess(root: root)
        let started = milliseconds(since: startStart)
        defer { server.stop() }
        // Ctrl-C or a kill's SIGTERM stops the servers too: left running, they skewed the next run.
        let interrupts = Interrupts.stopChildren()
        defer { interrupts.forEach { $0.cancel() } }
        let rare = "word\(options.notes / 2 + 17)"
        let firstSearchStart = ContinuousClock.now
        let firstFound = try server.post("2/files/search_v2", #"{"query":"\#(rare)","options":{"path":"/byteclub","filename_only":false,"max_results":20}}"#)
        let firstStartSearch = milliseconds(since: firstSearchStart)
        guard firstFound.contains("Note") else { throw BenchError("the first search_v2 found nothing: \(firstFound.prefix(200))") }
        let rgFirst = ripgrep([rare], in: notesFolder, caseInsensitive: false)
        say(row(["first start: serve --root listening (\(grouped(options.notes)) new notes)", ms(started), "", "cp -r \(ms(copied))"], widths))
        say(row(["first start: the server's first search_v2", ms(firstStartSearch), "≤ 1 s, ≤ rg", rgFirst.map { "rg -l median \(ms($0))" } ?? "rg not installed"],
                widths))
        let firstLsStart = ContinuousClock.now
        let firstListed = try run([ServeProcess.binary.path, "ls", "--server", server.url.absoluteString, "--token", ServeProcess.token], discardOutput: true)
        let firstLs = milliseconds(since: firstLsStart)
        guard firstListed == 0 else { throw BenchError("byteclub ls exited \(firstListed)") }
        say(row(["first start: byteclub ls of the club folder, first", ms(firstLs), "≤ 2 s", ""], widths))
        let cache = ClubCache(directory: work.appendingPathComponent("cache"))
        let indexFolder = work.appendingPathComponent("index")
        func makeApp(_ compositor: Compositor, url: URL) -> ClubApp {
            var configuration = AppConfiguration()
            configuration.cache = cache
            configuration.searchIndex = AppConfiguration.searchIndex(in: indexFolder)
            configuration.downloadDirectory = work.appendingPathComponent("downloads")
            configuration.liveUpdates = false
            let store = DropboxStore(displayName: "bench", endpoints: .club(url), tokens: StaticToken(ServeProcess.token))
            return ClubApp(store: store, compositor: compositor, configuration: configuration)
        }

        // Cold: no cache, no index. The first frame listing notes, then every note indexed,
        // with the main queue's delay sampled all the while.
        let compositor = Compositor()
        let app = makeApp(compositor, url: server.url)
        let (firstFrame, allIndexed, delays) = try await coldSync(app, compositor, notes: options.notes, since: .now)
        // The one app's peak: the apps started from the cache below stay in memory (each holds
        // its own copy of the list), so the whole run's figure is this process's, not an app's.
        let coldPeak = ProcessStatus.own("VmHWM:")
        say(row(["app, cold start: first frame listing notes", ms(firstFrame), "≤ 1 s", ""], widths))
        say(row(["app, every note cached and indexed, cold", ms(allIndexed), "≤ 30 s", ""], widths))
        say(row(["app, main-queue delay p99 during the first sync", ms(percentile(delays, 0.99)), "≤ 16 ms", "max \(ms(delays.last ?? 0))"], widths))

        // Search: the app's index on disk, each query twenty times, beside rg over the notes. Before
        // the apps from the cache: each of them starts its own index sync over the same index.
        let queries = ["word12345", "word\(options.notes - 1)", "keeps notes", "harbour"]
        let index = try SearchIndex(directory: indexFolder)
        var searches: [Double] = []
        for query in queries {
            for _ in 0..<20 {
                let began = ContinuousClock.now
                _ = try index.search(query, limit: 50)
                searches.append(milliseconds(since: began))
            }
        }
        searches.sort()
        let rg = ripgrep(queries, in: notesFolder)
        say(row(["app, Ctrl-F: the index's answer, p95 of \(searches.count)", ms(percentile(searches, 0.95)), "≤ 100 ms",
                   rg.map { "rg median \(ms($0))" } ?? "rg not installed"], widths))
        // The released byteclub as a user meets it: a pty, live updates on, a home of its own;
        // started cold, then again on the cache that first start left; the server is idle.
        let home = work.appendingPathComponent("real")
        let arguments = ["--server", server.url.absoluteString, "--token", ServeProcess.token]
        let realCold = try realFirstFrame(arguments, home: home, keepingCache: true)
        let realCached = try realCold.flatMap { _ in try realFirstFrame(arguments, home: home) }
        say(row(["real app (byteclub in a pty): first frame, cold", realCold.map(ms) ?? "—", "≤ 1 s",
                 realCold == nil ? "no byteclub beside app-bench" : ""], widths))
        say(row(["real app: first frame from its cache", realCached.map(ms) ?? "—", "≤ 150 ms", ""], widths))
        if let echo = try realEchoDuringFirstSync(arguments, home: work.appendingPathComponent("real-echo")), !echo.isEmpty {
            say(row(["real app: key echo p99 during its first sync (\(echo.count))", ms(percentile(echo, 0.99)), "≤ 16 ms",
                     "median \(ms(percentile(echo, 0.5)))"], widths))
        }

        // From the cache: a new app on the same cache, its first frame, five times. After the
        // released app's rows: each of these apps goes on to list the club from the server (with
        // no way to stop it), which had the real app's start from its cache wait on a busy server.
        let fromCache = try AppBench.firstFramesFromCache(mark: "Note") { makeApp($0, url: server.url) }
        say(row(["app, first frame from the cache (median of 5)", ms(percentile(fromCache, 0.5)), "≤ 200 ms", ""], widths))
        let pages = try await scrollWholeList(makeApp(Compositor(), url: server.url), notes: options.notes)
        say(row(["app, PgDn through the whole list, p99 frame (\(grouped(pages.count)))", ms(percentile(pages, 0.99)), "≤ 16 ms",
                 "max \(ms(pages.last ?? 0))"], widths))

        say(row(["app, peak RSS, cold start to every note indexed", mib(coldPeak), "≤ 150 MiB", ""], widths))
        say(row(["  this process at the end (6 apps, the bench's index)", mib(ProcessStatus.own("VmHWM:")), "", ""], widths))

        // The server, started anew: its first content search, its listing for `byteclub ls`.
        let firstRunPeak = server.status("VmHWM:")
        say(row(["server, peak RSS (VmHWM), first start to here", mib(firstRunPeak), "≤ 200 MiB", ""], widths))
        server.stop()
        server = try ServeProcess(root: root)
        let searchStart = ContinuousClock.now
        let found = try server.post("2/files/search_v2", #"{"query":"word777","options":{"path":"/byteclub","filename_only":false,"max_results":20}}"#)
        let firstSearch = milliseconds(since: searchStart)
        guard found.contains("Note") else { throw BenchError("search_v2 found nothing: \(found.prefix(200))") }
        say(row(["server, first search_v2 after a restart", ms(firstSearch), "≤ 1 s", ""], widths))
        let binary = ServeProcess.binary.path
        let lsStart = ContinuousClock.now
        let listed = try run([binary, "ls", "--server", server.url.absoluteString, "--token", ServeProcess.token], discardOutput: true)
        let ls = milliseconds(since: lsStart)
        guard listed == 0 else { throw BenchError("byteclub ls exited \(listed)") }
        say(row(["byteclub ls of the club folder", ms(ls), "≤ 2 s", ""], widths))
        say(row(["server, peak RSS (VmHWM), since its restart", mib(server.status("VmHWM:")), "≤ 200 MiB", ""], widths))

        if options.put > 0 { try putRows(options, server: server, work: work, widths: widths) }
        server.stop()
        // The table's rows measured by their own scripts, after this club's server has stopped.
        if options.others { try otherRows(widths, notes: options.notes) }
        say("")
    }

    /// `put -r` of `options.put` notes of 1 KiB, with and without an app open, beside rclone copy
    /// to rclone serve webdav.
    static func putRows(_ options: Options, server: ServeProcess, work: URL, widths: [Int]) throws {
        let binary = ServeProcess.binary.path
        let upload = work.appendingPathComponent("put")
        try FileManager.default.createDirectory(at: upload, withIntermediateDirectories: true)
        let kib = String(repeating: "x", count: 1000)
        for n in 0..<options.put { try Data("put \(n) \(kib)\n".utf8).write(to: upload.appendingPathComponent("put \(n).md")) }
        // Each put starts on an idle server: after a start, and after a put, it indexes and
        // rescans for a while, and a put that ran beside that measured the server's leftovers.
        waitForIdle(server.pid)
        // Each put's server CPU beside its time: on 2 cores shared with other work the times
        // of one put and the next differ by a third, what the server spent on them much less.
        let putStart = ContinuousClock.now, putCPUStart = cpuMilliseconds(server.pid)
        let put = try run([binary, "put", "-r", upload.path, "/byteclub/put-bench", "--server", server.url.absoluteString, "--token", ServeProcess.token],
                          discardOutput: true)
        let putTime = milliseconds(since: putStart), putCPU = Double(cpuMilliseconds(server.pid) - putCPUStart)
        guard put == 0 else { throw BenchError("byteclub put -r exited \(put)") }
        say(row(["byteclub put -r, \(grouped(options.put)) notes of 1 KiB", ms(putTime), "≤ 15 s", "server CPU \(ms(putCPU))"], widths))
        // The same notes again, into another folder, with the released app open on the club
        // (live updates on, its first sync and index done): what an open app costs a `put -r`.
        let openArguments = ["--server", server.url.absoluteString, "--token", ServeProcess.token]
        // Puts of the same notes into one club differ a lot from one to the next with no app
        // open (16.0 s, then 22.7 s by hand on one server), so the open app's put is set beside
        // the mean of the puts just before and just after it, the app closed.
        if let open = try openApp(openArguments, home: work.appendingPathComponent("real-open")) {
            defer { open.stop() }
            waitForIdle(server.pid)
            let openStart = ContinuousClock.now, openCPUStart = cpuMilliseconds(server.pid)
            let again = try run([binary, "put", "-r", upload.path, "/byteclub/put-bench-open", "--server", server.url.absoluteString,
                                 "--token", ServeProcess.token], discardOutput: true)
            let openTime = milliseconds(since: openStart), openCPU = Double(cpuMilliseconds(server.pid) - openCPUStart)
            open.stop()
            guard again == 0 else { throw BenchError("byteclub put -r with the app open exited \(again)") }
            waitForIdle(server.pid)
            let afterStart = ContinuousClock.now, afterCPUStart = cpuMilliseconds(server.pid)
            let after = try run([binary, "put", "-r", upload.path, "/byteclub/put-bench-after", "--server", server.url.absoluteString,
                                 "--token", ServeProcess.token], discardOutput: true)
            let afterTime = milliseconds(since: afterStart), afterCPU = Double(cpuMilliseconds(server.pid) - afterCPUStart)
            guard after == 0 else { throw BenchError("byteclub put -r after the app closed exited \(after)") }
            let without = (putTime + afterTime) / 2, withoutCPU = (putCPU + afterCPU) / 2
            say(row(["  the same with an app open on the club", ms(openTime), "≤ \(ms(without * 1.2))",
                     String(format: "%.2f× without; CPU %.2f×", openTime / without, openCPU / max(1, withoutCPU))], widths))
            say(row(["  the same again, the app closed (before: \(ms(putTime)))", ms(afterTime), "", "server CPU \(ms(afterCPU))"], widths))
        }
        // The peer on a row of its own, as it may take minutes; past ten it is said as that.
        let peer = try rcloneCopy(upload, within: .seconds(600))
        say(row(["  rclone copy to rclone serve webdav, the same notes", peer.map { $0.map(ms) ?? "> 600 s (stopped)" } ?? "rclone not installed", "", ""], widths))
    }

    /// The released `byteclub` beside this executable, open in a pseudo-terminal on `home`
    /// until stopped, once its first sync has indexed every note; nil without the binary.
    static func openApp(_ arguments: [String], home: URL) throws -> EchoBench.PTYApp? {
        guard let app = try launchReal(arguments, home: home) else { return nil }
        try app.waitFor("Note 0", timeout: 120)
        // "Indexed 100,000 notes for search", said when the first sync ends; then what follows
        // it (the tags of every note, the cache) until the app has used under 50 ms of CPU in 2 s.
        try app.waitFor("notes for search", timeout: 900)
        waitForIdle(app.pid)
        return app
    }

    /// Until `pid` has used under 50 ms of CPU in 2 s (at most 5 minutes).
    static func waitForIdle(_ pid: pid_t) {
        let deadline = Date().addingTimeInterval(300)
        var before = cpuMilliseconds(pid)
        while Date() < deadline {
            usleep(2_000_000)
            let now = cpuMilliseconds(pid)
            if now - before < 50 { break }
            before = now
        }
    }

    /// An app started from the cache, its notes list scrolled from the first row to the last
    /// with PgDn: each key and the 120×36 frame after it, in ms, sorted.
    static func scrollWholeList(_ app: ClubApp, notes: Int) async throws -> [Double] {
        let compositor = app.compositor
        app.start(indexing: false)
        defer { app.stopLiveUpdates() }
        // Its own listing from the server done first: the frames are the list's, not the load's.
        try await AppBench.wait("the list loaded", timeout: 120) { !app.state.notes.isLoading && app.state.notes.entries.count >= notes }
        let canvas = GridCanvas(width: 120, height: 36)
        compositor.render(into: canvas)
        var frames: [Double] = []
        var last = -1
        while app.state.notes.list.selected != last, frames.count < notes {
            last = app.state.notes.list.selected
            let start = ContinuousClock.now
            _ = compositor.handle(.pageDown)
            canvas.clear()
            compositor.render(into: canvas)
            frames.append(milliseconds(since: start))
        }
        guard app.state.notes.list.selected >= notes - 1 else {
            throw BenchError("PgDn stopped at row \(app.state.notes.list.selected) of \(notes)")
        }
        return frames.sorted()
    }

    /// The released app started cold in a pty with a new note open while its first sync of the
    /// club runs: each key typed to its echo, in ms, sorted, for the keys typed before the sync
    /// said it was done (at most 400, 15 ms apart); nil without the binary.
    static func realEchoDuringFirstSync(_ arguments: [String], home: URL) throws -> [Double]? {
        guard let app = try launchReal(arguments, home: home) else { return nil }
        defer { app.stop() }
        try app.waitFor("Note 0", timeout: 120)
        let start = app.output.total
        app.send("n")
        try app.waitFor("Title", after: start)
        app.send("Echo\r")
        let samples = try EchoBench.measure(app, count: 400) {
            !String(decoding: app.output.since(start).text, as: UTF8.self).contains("notes for search")
        }
        return samples
    }

    /// The CPU time `pid` has used, in ms (/proc's utime and stime, in clock ticks of 10 ms).
    static func cpuMilliseconds(_ pid: pid_t) -> Int {
        guard let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
              let close = stat.lastIndex(of: ")") else { return 0 }
        let fields = stat[stat.index(after: close)...].split(separator: " ")
        // After the name: state is field 3, utime 14 and stime 15 of the whole line.
        guard fields.count > 12, let user = Int(fields[11]), let system = Int(fields[12]) else { return 0 }
        return (user + system) * 10
    }

    /// The released `byteclub` beside this executable started in a pseudo-terminal (120×36),
    /// with `home` as its home and `extra` in its environment; nil without the binary.
    static func launchReal(_ arguments: [String], extra: [String: String] = [:], home: URL) throws -> EchoBench.PTYApp? {
        let executable = URL(fileURLWithPath: CommandLine.arguments[0]).resolvingSymlinksInPath()
        let binary = executable.deletingLastPathComponent().appendingPathComponent("byteclub").path
        guard FileManager.default.isExecutableFile(atPath: binary) else { return nil }
        try FileManager.default.createDirectory(at: home, withIntermediateDirectories: true)
        let environment = [
            "HOME": home.path, "TERM": "xterm-256color", "LANG": "C.UTF-8", "PATH": "/usr/bin:/bin",
            "XDG_STATE_HOME": home.appendingPathComponent("state").path, "XDG_CACHE_HOME": home.appendingPathComponent("cache").path,
            "XDG_DATA_HOME": home.appendingPathComponent("data").path, "XDG_CONFIG_HOME": home.appendingPathComponent("config").path,
        ].merging(extra) { $1 }
        return try EchoBench.PTYApp(binary: binary, arguments: arguments, environment: environment)
    }

    /// The released `byteclub` in a pseudo-terminal (``launchReal(_:extra:home:)``): milliseconds
    /// from its start to the first frame that shows a note's name; nil without the binary. With
    /// `keepingCache`, it runs on until its notes list is in its cache, so that the next start
    /// can show it from there.
    static func realFirstFrame(_ arguments: [String], extra: [String: String] = [:], home: URL, keepingCache: Bool = false) throws -> Double? {
        let started = ContinuousClock.now
        guard let app = try launchReal(arguments, extra: extra, home: home) else { return nil }
        defer { app.stop() }
        try app.waitFor("Note 0", timeout: 120)
        let firstFrame = milliseconds(since: started)
        if keepingCache {
            let cache = home.appendingPathComponent("cache")
            let deadline = Date().addingTimeInterval(600)
            func cached() -> Bool {
                FileManager.default.enumerator(atPath: cache.path)?.contains { ($0 as? String)?.hasSuffix("listing-notes") == true } ?? false
            }
            while Date() < deadline, !cached() { usleep(100_000) }
            guard cached() else { throw BenchError("the real app wrote no notes list to its cache in 600 s") }
        }
        return firstFrame
    }

    /// Starts `app` with no cache and no index: the first frame listing notes (the first page's,
    /// while the rest pages in), then every note cached and indexed, in ms from `start`, with the
    /// main queue's delays sampled all the while (sorted).
    static func coldSync(_ app: ClubApp, _ compositor: Compositor, notes: Int, since start: ContinuousClock.Instant) async throws
        -> (firstFrame: Double, allIndexed: Double, delays: [Double]) {
        var indexed = 0
        var cacheWritten = false
        app.onIndexed = { indexed += $0 }
        app.onCacheWritten = { tab, saved in if tab == .notes && saved { cacheWritten = true } }
        let sampler = MainQueueDelay()
        app.start()
        sampler.start()
        try await AppBench.wait("the first frame listing notes", timeout: 600) {
            guard !app.state.notes.entries.isEmpty else { return false }
            let canvas = GridCanvas(width: 120, height: 36)
            compositor.render(into: canvas)
            return canvas.position(of: "Note") != nil
        }
        let firstFrame = milliseconds(since: start)
        try await AppBench.wait("every note indexed", timeout: 1800) { indexed >= notes && cacheWritten }
        return (firstFrame, milliseconds(since: start), sampler.stop())
    }

    // MARK: - The club on disk

    /// Notes `Note 000123.md` of 1 KiB, each with a word of its own (`word123`), some with
    /// `harbour`; photos as small JPEGs in `photos/`.
    static func seed(_ folder: URL, _ options: Options) throws {
        let photos = folder.appendingPathComponent("photos")
        try FileManager.default.createDirectory(at: photos, withIntermediateDirectories: true)
        let folders = max(1, options.folders)
        for f in 0..<folders where options.folders > 0 {
            try FileManager.default.createDirectory(at: folder.appendingPathComponent("Area \(f / 10)/Part \(f % 10)"), withIntermediateDirectories: true)
        }
        let filler = String(repeating: "The club keeps notes on boats and trips. ", count: 24).prefix(1000)
        for n in 0..<options.notes {
            let name = String(format: "Note %06d.md", n)
            let dir = options.folders == 0 ? folder : folder.appendingPathComponent("Area \((n % folders) / 10)/Part \((n % folders) % 10)")
            let text = "\(name): word\(n)\(n % 100 == 7 ? " harbour" : "")\n\(filler)\n"
            let fd = open(dir.appendingPathComponent(name).path, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
            guard fd >= 0 else { throw BenchError("cannot write \(name)") }
            _ = text.utf8.withContiguousStorageIfAvailable { write(fd, $0.baseAddress, $0.count) }
            close(fd)
        }
        let jpeg = try JPEG.encode(RGBImage(width: 160, height: 120, pixels: [UInt8](repeating: 90, count: 160 * 120 * 3)))
        for n in 0..<options.photos { try jpeg.write(to: photos.appendingPathComponent(String(format: "photo %05d.jpg", n))) }
    }

    // MARK: - Peers

    /// rg's median time over the same queries (a fixed string, case-insensitive, names only).
    static func ripgrep(_ queries: [String], in folder: URL, caseInsensitive: Bool = true) -> Double? {
        guard let rg = ["/usr/bin/rg", "/usr/local/bin/rg"].first(where: { FileManager.default.isExecutableFile(atPath: $0) }) else { return nil }
        var times: [Double] = []
        for query in queries {
            for _ in 0..<3 {
                let began = ContinuousClock.now
                _ = try? run([rg, "-l"] + (caseInsensitive ? ["-i"] : []) + ["-F", query, folder.path], discardOutput: true)
                times.append(milliseconds(since: began))
            }
        }
        times.sort()
        return percentile(times, 0.5)
    }

    /// `rclone copy` of `folder` to a new `rclone serve webdav` on loopback, in milliseconds.
    /// rclone copy's time (nil inside: it ran past `limit` and was stopped), or nil without rclone.
    static func rcloneCopy(_ folder: URL, within limit: Duration) throws -> Double?? {
        guard let rclone = RcloneWebDAV.executable?.path else { return nil }
        // rclone's own directory cache, as a user runs it (the tests' fixture turns it off so
        // that files written to disk show at once, which made every PUT read the folder again).
        let server = try RcloneWebDAV(user: "bench", dirCacheTime: nil)
        defer { server.remove() }
        Interrupts.register { server.stop() }
        let obscured = Pipe()
        let obscure = Process()
        obscure.executableURL = URL(fileURLWithPath: rclone)
        obscure.arguments = ["obscure", server.password]
        obscure.standardOutput = obscured
        try obscure.run()
        obscure.waitUntilExit()
        let pass = String(decoding: obscured.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
        let began = ContinuousClock.now
        let copy = Process()
        copy.executableURL = URL(fileURLWithPath: rclone)
        copy.arguments = ["copy", folder.path, ":webdav:put-bench", "--webdav-url", server.url.absoluteString,
                          "--webdav-user", server.user, "--webdav-pass", pass, "--transfers", "4"]
        copy.standardOutput = FileHandle.nullDevice
        copy.standardError = FileHandle.nullDevice
        try copy.run()
        while copy.isRunning {
            guard ContinuousClock.now - began < limit else {
                copy.terminate()
                copy.waitUntilExit()
                return .some(nil)
            }
            usleep(50_000)
        }
        guard copy.terminationStatus == 0 else { throw BenchError("rclone copy exited \(copy.terminationStatus)") }
        return milliseconds(since: began)
    }

    // MARK: - Helpers

    @discardableResult
    static func run(_ arguments: [String], discardOutput: Bool) throws -> Int32 {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: arguments[0])
        process.arguments = Array(arguments.dropFirst())
        if discardOutput {
            process.standardOutput = FileHandle.nullDevice
            process.standardError = FileHandle.nullDevice
        }
        try process.run()
        process.waitUntilExit()
        return process.terminationStatus
    }

    static func ms(_ value: Double) -> String { value >= 10_000 ? String(format: "%.1f s", value / 1000) : String(format: "%.0f ms", value) }
    static func mib(_ bytes: Int?) -> String { bytes.map { String(format: "%.0f MiB", Double($0) / 1_048_576) } ?? "?" }
    static func grouped(_ n: Int) -> String {
        let formatter = NumberFormatter()
        formatter.numberStyle = .decimal
        formatter.groupingSeparator = ","
        return formatter.string(from: NSNumber(value: n)) ?? "\(n)"
    }
    static func seconds(since start: ContinuousClock.Instant) -> String { String(format: "%.1f s", milliseconds(since: start) / 1000) }
}

/// A line on stdout at once, also into a pipe (print's buffer would hold a run of minutes).
func say(_ line: String) {
    FileHandle.standardOutput.write(Data((line + "\n").utf8))
}

/// How late the main queue runs a tick that is due every 5 ms: the wait a key typed then would
/// have before the app read it.
@MainActor
final class MainQueueDelay {
    private var delays: [Double] = []
    private var running = false

    func start() {
        running = true
        tick(due: ContinuousClock.now + .milliseconds(5))
    }

    private func tick(due: ContinuousClock.Instant) {
        guard running else { return }
        DispatchQueue.main.asyncAfter(deadline: .now() + .milliseconds(5)) { [weak self] in
            MainActor.assumeIsolated {
                guard let self else { return }
                let late = ContinuousClock.now - due
                self.delays.append(max(0, Double(late.components.seconds) * 1e3 + Double(late.components.attoseconds) / 1e15))
                self.tick(due: ContinuousClock.now + .milliseconds(5))
            }
        }
    }

    /// Stops sampling; the delays, sorted.
    func stop() -> [Double] {
        running = false
        return delays.sorted()
    }
}

/// `byteclub serve` (the release binary beside this one) on a random loopback port.
struct ServeProcess {
    static let token = "app-bench-club"
    let pid: pid_t
    let url: URL

    static var binary: URL {
        URL(fileURLWithPath: CommandLine.arguments[0]).resolvingSymlinksInPath().deletingLastPathComponent().appendingPathComponent("byteclub")
    }

    /// Started in a session of its own, as a `byteclub serve` run from another terminal (or a
    /// service manager) is: with the kernel's autogroups on, a session's processes share one
    /// group's turn at the cores, and a server in the bench's own session took that turn from
    /// the bench's pty reader, which then saw the app's echoes late.
    init(root: URL) throws {
        let arguments = [Self.binary.path, "serve", "--insecure-http", "--root", root.path, "--create", "--port", "0", "--log-level", "error",
                         "--member", "bench=\(Self.token)"]
        var pipeEnds: [Int32] = [0, 0]
        guard pipe(&pipeEnds) == 0 else { throw BenchError("cannot make a pipe for byteclub serve") }
        let child: pid_t
        do {
            // The child has its own copy; ours goes before the read below, which ends at its end.
            defer { close(pipeEnds[1]) }
            child = try spawnInNewSession(arguments) { actions in
                posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
                posix_spawn_file_actions_adddup2(&actions, pipeEnds[1], 1)
                posix_spawn_file_actions_addopen(&actions, 2, "/dev/null", O_WRONLY, 0)
                posix_spawn_file_actions_addclose(&actions, pipeEnds[0])
            }
        } catch {
            close(pipeEnds[0])
            throw error
        }
        pid = child
        Interrupts.register { [child] in Self.stop(child) }
        let output = FileHandle(fileDescriptor: pipeEnds[0], closeOnDealloc: true)
        var text = ""
        while !text.contains("\n") {
            let chunk = output.availableData
            if chunk.isEmpty { break }
            text += String(decoding: chunk, as: UTF8.self)
        }
        guard let range = text.range(of: #"127\.0\.0\.1:[0-9]+"#, options: .regularExpression) else {
            Self.stop(child)
            throw BenchError("byteclub serve did not start: \(text)")
        }
        url = URL(string: "http://" + text[range])!
    }

    func stop() { Self.stop(pid) }

    /// SIGTERM, then the exit waited for (once: a second call finds no child and returns).
    private static func stop(_ pid: pid_t) {
        guard kill(pid, 0) == 0 else { return }
        kill(pid, SIGTERM)
        var status: Int32 = 0
        waitpid(pid, &status, 0)
    }

    /// A `/proc/PID/status` field in bytes.
    func status(_ field: String) -> Int? { ProcessStatus.field(field, pid: pid) }

    /// An RPC call through curl; the answer's body.
    func post(_ endpoint: String, _ json: String) throws -> String {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/curl")
        process.arguments = ["-s", "-X", "POST", url.appendingPathComponent(endpoint).absoluteString, "-H", "Authorization: Bearer \(Self.token)",
                             "-H", "Content-Type: application/json", "--data-binary", json]
        let output = Pipe()
        process.standardOutput = output
        try process.run()
        let body = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return String(decoding: body, as: UTF8.self)
    }
}

/// What a bench started and must stop if it is interrupted (SIGINT, SIGTERM).
enum Interrupts {
    private static let stops = Mutex<[@Sendable () -> Void]>([])

    static func register(_ process: Process) {
        register {
            guard process.isRunning else { return }
            process.terminate()
            process.waitUntilExit()
        }
    }

    static func register(_ stop: @escaping @Sendable () -> Void) { stops.withLock { $0.append(stop) } }

    /// Sources that stop every registered child, the last registered first (as `defer` would),
    /// and end the bench on SIGINT or SIGTERM.
    static func stopChildren() -> [DispatchSourceSignal] {
        [SIGINT, SIGTERM].map { number in
            signal(number, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: number, queue: .global())
            source.setEventHandler {
                for stop in stops.withLock({ $0 }).reversed() { stop() }
                exit(128 + number)
            }
            source.activate()
            return source
        }
    }
}

enum ProcessStatus {
    static func own(_ field: String) -> Int? { Self.field(field, pid: getpid()) }

    static func field(_ field: String, pid: Int32) -> Int? {
        guard let text = try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8),
              let line = text.split(separator: "\n").first(where: { $0.hasPrefix(field) }),
              let kib = Int(line.dropFirst(field.count).trimmingCharacters(in: .whitespaces).split(separator: " ").first ?? "") else { return nil }
        return kib * 1024
    }
}
