import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// `app-bench markdown`: a 1 MiB Markdown note (about 18,000 lines of headings, lists, code
/// blocks and tables) in the real byteclub in a pty, highlighting on, beside vim with syntax
/// highlighting on the same file in the same run: from Enter (or vim's start) to the first
/// frame that shows the note, and key to echo while typing into it.
enum MarkdownBench {
    /// About `size` bytes of Markdown, every construct the editor styles, in lines of ~57 bytes.
    static func note(size: Int) -> String {
        var text = ""
        text.reserveCapacity(size + 4096)
        var section = 0
        while text.utf8.count < size {
            text += """
                ## Section \(section): notes on the club's challenge, with a longer title
                Some *emphasis*, some **strong words**, `inline code` and a few more words to read.
                A [link to the club](https://example.org/\(section)) or https://example.com, then the rest.

                - first point of the section, plainly said, with enough words to fill a line
                - [ ] a task still open for this week: write the reply and send it to everyone
                - [x] a task done already, ticked off after the meeting on Friday afternoon
                1. numbered step one of the plan, which comes before step two and step three

                ```swift
                let answer\(section) = \(section) * 42 // the answer, computed the long way round
                print("section \\(answer\(section)) of the note, printed for the members to read")
                ```
                > A quoted line from a member's reply, kept here as it was said at the time.

                | member | score | time  | comment on the round                        |
                |--------|------:|-------|---------------------------------------------|
                | ray    | \(section % 97) | 12:00 | a fine round, close to the best of the week |

                ---

                """
            section += 1
        }
        return text
    }

    static func run() async throws {
        let executable = URL(fileURLWithPath: CommandLine.arguments[0]).resolvingSymlinksInPath()
        let binary = executable.deletingLastPathComponent().appendingPathComponent("byteclub").path
        guard FileManager.default.isExecutableFile(atPath: binary) else {
            throw BenchError("build byteclub next to app-bench first (swift build -c release --product byteclub)")
        }
        let vim = ["/usr/bin/vim", "/bin/vim"].first { FileManager.default.isExecutableFile(atPath: $0) }
        let base = FileManager.default.temporaryDirectory.appendingPathComponent("app-bench-markdown-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: base) }
        let notes = base.appendingPathComponent("club/byteclub")
        try FileManager.default.createDirectory(at: notes, withIntermediateDirectories: true)
        let text = note(size: 1 << 20)
        let file = notes.appendingPathComponent("Big.md")
        try Data(text.utf8).write(to: file)
        // The club is not empty, so no sample notes are seeded: it is the only row. A day ahead keeps
        // it on top whatever else is there (newest first).
        try FileManager.default.setAttributes([.modificationDate: Date().addingTimeInterval(86_400)], ofItemAtPath: file.path)
        let lines = text.split(separator: "\n", omittingEmptySubsequences: false).count

        let environment = Self.environment(base)
        let app = try EchoBench.PTYApp(binary: binary, arguments: ["--data-dir", base.appendingPathComponent("club").path,
                                                                    "--download-dir", base.appendingPathComponent("downloads").path],
                                       environment: environment)
        try app.waitFor("1.0 MiB")  // the list row: titles show without their extension
        let offset = app.output.total
        let start = ContinuousClock.now
        app.send("\r")
        try app.waitFor("Section 0", after: offset)
        let appOpen = milliseconds(since: start)
        try app.waitFor("Esc closes", after: offset)
        let appEcho = try EchoBench.measure(app, count: 300)
        let render = try renderedView(app)
        app.stop()

        let (vimOpen, vimEcho) = try vim.map { try Self.vimRun($0, text: text, in: base, showing: "Section 0", environment: environment) } ?? (nil, [])

        print("app-bench markdown: a \(text.utf8.count >> 10) KiB Markdown note of \(lines) lines in a pty (120×36, xterm-256color), highlighting on")
        let widths = [30, 12, 6, 10, 8, 8]
        print(row(["editor", "open ms", "keys", "median ms", "p99 ms", "max ms"], widths))
        func line(_ name: String, _ open: Double?, _ samples: [Double]) {
            print(row([name, open.map { String(format: "%.1f", $0) } ?? "-", "\(samples.count)",
                       String(format: "%.2f", percentile(samples, 0.5)), String(format: "%.2f", percentile(samples, 0.99)),
                       String(format: "%.2f", samples.last ?? 0)], widths))
        }
        line("byteclub (cmark-gfm)", appOpen, appEcho)
        if vim != nil { line("vim -c 'syntax on' (markdown)", vimOpen, vimEcho) } else { print("(vim is not installed: apt-get install vim)") }
        print("")
        print("rendered view of the same note (Alt-V, laid out from cmark-gfm's tree): key to the frame showing it")
        print(row(["", "first ms", "runs", "median ms", "p99 ms", "max ms"], widths))
        line("Alt-V after an edit", render.first, render.samples)
        print("")
        try runVault(binary: binary, vim: vim)
    }

    /// Alt-V from the editor to the rendered view, each time after a one-letter edit (so the
    /// note is laid out again, never taken from the cache): from the key to the frame that
    /// shows the view's first code box. Then Alt-V back to the editor.
    /// `shown` is what the view's frame holds, `back` what the editor's does.
    static func renderedView(_ app: EchoBench.PTYApp, runs: Int = 10, shown: String = "╭─ swift ─", back: String = "|--------|") throws
        -> (first: Double, samples: [Double]) {
        var samples: [Double] = []
        for _ in 0..<runs {
            var offset = app.output.total
            app.send("x")
            try app.waitFor("x", after: offset)
            offset = app.output.total
            let start = ContinuousClock.now
            app.send("\u{1B}v")
            try app.waitFor(shown, after: offset)
            samples.append(milliseconds(since: start))
            offset = app.output.total
            app.send("\u{1B}v")
            try app.waitFor(back, after: offset)
        }
        return (samples[0], samples.sorted())
    }

    /// The app's world under `base`: its own HOME and XDG folders, a known terminal.
    static func environment(_ base: URL) -> [String: String] {
        [
            "HOME": base.path, "TERM": "xterm-256color", "LANG": "C.UTF-8", "PATH": "/usr/bin:/bin",
            "XDG_STATE_HOME": base.appendingPathComponent("state").path, "XDG_CACHE_HOME": base.appendingPathComponent("cache").path,
            "XDG_DATA_HOME": base.appendingPathComponent("data").path, "XDG_CONFIG_HOME": base.appendingPathComponent("config").path,
        ]
    }

    /// vim with Markdown highlighting on a copy of `text`: from its start to the frame showing
    /// `showing`, then key to echo in insert mode.
    static func vimRun(_ vim: String, text: String, in base: URL, showing: String, environment: [String: String]) throws -> (Double?, [Double]) {
        let copy = base.appendingPathComponent("vim-copy.md")
        try Data(text.utf8).write(to: copy)
        let start = ContinuousClock.now
        let editor = try EchoBench.PTYApp(binary: vim, arguments: ["-N", "-u", "NONE", "-n", "-c", "syntax on", "-c", "set ft=markdown", copy.path],
                                          environment: environment)
        try editor.waitFor(showing)
        let open = milliseconds(since: start)
        let offset = editor.output.total
        editor.send("i")
        try editor.waitFor("INSERT", after: offset)
        let echo = try EchoBench.measure(editor, count: 300)
        editor.send("\u{1B}:q!\r")
        editor.stop()
        return (open, echo)
    }
}
