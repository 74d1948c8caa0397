import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// Full-text search in the real app (issue 24), in a pseudo-terminal like ``EchoBench``:
/// 10,000 notes of 5 KiB in the embedded club, the app started with no index.
///
/// (b) While the app indexes the 10,000 notes from scratch, keys typed in a new note: key to
/// echo, as in the echo scenario, for as long as the status bar has not said the index is done.
///
/// (a) Then `Ctrl-F` with the index warm: for each query, the field is cleared, everything but
/// its last key is typed and left to settle (its answer on screen, the terminal quiet), and the
/// clock runs from the last key to the final results on the terminal. What marks the final
/// results is text only they draw (a hit's title, or the matched word in a hit's line; the
/// field itself only echoes the last key): the partial queries are
/// chosen to find nothing, or (the CJK one, whose first character alone is a prefix query) to
/// find other notes, which rank above. Text is matched in the pty's raw output, where curses
/// redraws only cells that changed, so markers have no spaces.
enum SearchBench {
    static let notes = 10_000
    static let rare = "zanzibarite"
    /// The only note with the rare word.
    static let rareNote = "n05000"
    static let common = "harbour"
    static let phrase = "boat hire"
    static let cjk = "東京"
    /// The notes with the CJK word are named so (20 of them); others hold "東西" often, so that
    /// "東" alone (the query before its last key) ranks those first and fills its 50 hits.
    static let cjkTitle = "tokyo"

    /// The notes, written straight to the embedded club's folder (one buffer, one write each).
    static func writeNotes(to folder: URL) throws {
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let syllables = ["ka", "lo", "mi", "ne", "ru", "sa", "to", "vi", "be", "da", "fe", "gi", "ho", "ju", "pe", "ri", "st", "tr", "an", "ox"]
        var seed: UInt64 = 42
        func next() -> Int {
            seed = seed &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return Int(seed >> 33)
        }
        let words = (0..<3000).map { _ in (0..<(2 + next() % 3)).map { _ in syllables[next() % syllables.count] }.joined() }
        let lines = (0..<400).map { _ in (0..<12).map { _ in words[next() % words.count] }.joined(separator: " ") + "\n" }
        for i in 0..<notes {
            var text = "Note \(i)\n"
            var k = i % lines.count
            while text.utf8.count < 5 * 1024 {
                text += lines[k]
                k = (k * 7 + 13) % lines.count
            }
            text += "the \(common) was quiet\n"
            if i % 100 == 3 { text += "we asked about \(phrase) at the pier\n" }
            if i % 500 == 7 { text += "来週は\(cjk)都に行きます\n" }
            if i % 100 == 9 { text += String(repeating: "東西 ", count: 20) + "\n" }
            if i == 5000 { text += "a \(rare) stone\n" }
            let name = i % 500 == 7 ? String(format: "\(cjkTitle)%05d.txt", i) : String(format: "n%05d.txt", i)
            let path = folder.appendingPathComponent(name).path
            let fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
            guard fd >= 0 else { throw BenchError("cannot write \(path)") }
            let written = text.utf8.withContiguousStorageIfAvailable { write(fd, $0.baseAddress, $0.count) } ?? -1
            close(fd)
            guard written == text.utf8.count else { throw BenchError("cannot write \(path)") }
        }
    }

    /// Waits until nothing new has come out of the pty for `quiet` seconds.
    static func settle(_ app: EchoBench.PTYApp, quiet: Double = 0.15, timeout: Double = 10) throws {
        let deadline = Date().addingTimeInterval(timeout)
        var last = app.output.total
        var since = Date()
        while Date() < deadline {
            usleep(2_000)
            let now = app.output.total
            if now != last {
                last = now
                since = Date()
            } else if Date().timeIntervalSince(since) >= quiet {
                return
            }
        }
        throw BenchError("the terminal did not settle")
    }

    static func run() async throws {
        let executable = URL(fileURLWithPath: CommandLine.arguments[0]).resolvingSymlinksInPath()
        let binary = executable.deletingLastPathComponent().appendingPathComponent("byteclub").path
        guard FileManager.default.isExecutableFile(atPath: binary) else {
            throw BenchError("build byteclub next to app-bench first (swift build -c release --product byteclub)")
        }
        let base = FileManager.default.temporaryDirectory.appendingPathComponent("app-bench-search-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: base) }
        let club = base.appendingPathComponent("club")
        try writeNotes(to: club.appendingPathComponent("byteclub"))
        try FileManager.default.createDirectory(at: club.appendingPathComponent("byteclub/photos"), withIntermediateDirectories: true)
        let environment = [
            "HOME": base.path, "TERM": "xterm-256color", "LANG": "C.UTF-8", "PATH": "/usr/bin:/bin",
            "XDG_STATE_HOME": base.appendingPathComponent("state").path, "XDG_CACHE_HOME": base.appendingPathComponent("cache").path,
            "XDG_DATA_HOME": base.appendingPathComponent("data").path, "XDG_CONFIG_HOME": base.appendingPathComponent("config").path,
        ]
        let app = try EchoBench.PTYApp(binary: binary, arguments: ["--data-dir", club.path,
                                                                    "--download-dir", base.appendingPathComponent("downloads").path],
                                       environment: environment)
        defer { app.stop() }
        let started = app.output.total
        try app.waitFor("n0", timeout: 60)

        // (b) A new note, and keys typed in it while the index is built.
        let began = ContinuousClock.now
        app.send("n")
        try app.waitFor("Title")
        app.send("Busy\r")
        try settle(app, quiet: 0.05)
        func indexed() -> Bool {
            String(decoding: app.output.since(started).text, as: UTF8.self).contains("for search")
        }
        let busy = try EchoBench.measure(app, count: 2_000) { !indexed() }
        let indexingDoneBeforeTyping = busy.isEmpty
        let deadline = Date().addingTimeInterval(120)
        while !indexed() {
            guard Date() < deadline else { throw BenchError("the index was not built within 120 s") }
            usleep(20_000)
        }
        let indexTime = milliseconds(since: began) / 1000
        var offset = app.output.total
        app.send("\u{1B}")
        try app.waitFor("iscard", after: offset)
        app.send("d")
        try settle(app)

        // (a) Ctrl-F, the index warm.
        offset = app.output.total
        app.send("\u{06}")
        try app.waitFor("trip*", after: offset)
        try settle(app)
        let queries: [(label: String, query: String, marker: String)] = [
            ("rare word", rare, rareNote),
            ("common word", common, common),
            ("phrase", "\"\(phrase)", "hire"),
            ("CJK word", cjk, cjkTitle),
        ]
        let runs = 25
        var results: [(String, [Double])] = []
        var all: [Double] = []
        var typed = false
        for (label, query, marker) in queries {
            var samples: [Double] = []
            for _ in 0..<runs {
                if typed {
                    offset = app.output.total
                    app.send("\u{15}")  // Ctrl-U: the field emptied, the hint back
                    try app.waitFor("trip*", after: offset)
                }
                typed = true
                app.send(String(query.dropLast()))
                try settle(app, quiet: 0.1)
                offset = app.output.total
                let start = ContinuousClock.now
                app.send(String(query.last ?? " "))
                try app.waitFor(marker, after: offset, timeout: 10)
                samples.append(milliseconds(since: start))
                try settle(app, quiet: 0.05)
            }
            samples.sort()
            results.append((label, samples))
            all += samples
        }
        all.sort()

        print("app-bench search: \(notes) notes of 5 KiB in the embedded club, byteclub in a pty (120×36, xterm-256color)")
        print("the index built from scratch by the app in \(String(format: "%.1f", indexTime)) s (from the first key in the new note)")
        let echoWidths = [40, 6, 10, 8, 8]
        print(row(["key echo in a new note", "keys", "median ms", "p99 ms", "max ms"], echoWidths))
        if indexingDoneBeforeTyping {
            print("  (the index was done before the first key: no figure)")
        } else {
            print(row(["while the app indexes 10,000 notes", "\(busy.count)", String(format: "%.2f", percentile(busy, 0.5)),
                       String(format: "%.2f", percentile(busy, 0.99)), String(format: "%.2f", busy.last ?? 0)], echoWidths))
        }
        let widths = [40, 6, 10, 8, 8]
        print(row(["Ctrl-F, last key to results on screen", "runs", "p50 ms", "p95 ms", "max ms"], widths))
        for (label, samples) in results + [("all queries", all)] {
            print(row([label, "\(samples.count)", String(format: "%.2f", percentile(samples, 0.5)),
                       String(format: "%.2f", percentile(samples, 0.95)), String(format: "%.2f", samples.last ?? 0)], widths))
        }
        print("")
    }
}
