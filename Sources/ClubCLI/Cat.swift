import ArgumentParser
import ClubKit
import Foundation
import Markdown
import Remote
import TerminalUI

struct Cat: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "cat",
        abstract: "Print a note.",
        discussion: """
            Prints the note's text as it is. --render lays it out as the app's rendered view does \
            (headings, lists and task boxes, code in boxes, tables, footnotes; Obsidian's callouts \
            in boxes (folded ones as their title row), ==highlights==, math as its source, \
            %%comments%% left out, and the notes ![[embedded]] drawn inside a frame, three deep, \
            a loop drawn as one line; wrapped to the terminal's width or --width): styled, with web links as OSC 8 hyperlinks, on a terminal; \
            plain text in a pipe. Control characters in a note never reach the terminal. - reads the \
            note from stdin instead. --json prints {path_display, name, rev, size, modified, text} \
            (and rendered, the plain layout, with --render). Exits 3 when there is no such note.
            """)
    @Argument(help: "The note: its title ('Trip plan'), a path in the club's folder ('Trip plan.md'), /PATH, NAME:PATH, or - for stdin.") var path: String
    @Flag(help: "Lay the note out as the app's rendered view does.") var render = false
    @Option(help: "The width to lay out for (default: the terminal's, else 80).") var width: Int?
    @Flag(help: "Print JSON, one object.") var json = false
    @OptionGroup var backend: BackendOptions

    mutating func validate() throws {
        if path != "-" { path = try backend.takeRemote(from: path) }
        if let width, width < 8 { throw ValidationError("--width must be at least 8") }
    }

    func run() async throws {
        let options = self
        if path == "-" {
            let data = FileHandle.standardInput.readDataToEndOfFile()
            try options.print(String(decoding: data, as: UTF8.self), path: nil, entry: nil, embeds: [:])
            return
        }
        let typed = backend.clubPath(self.path)
        try await runRemote(backend, path: typed) { backend in
            let path = try await notePath(typed, on: backend)
            let (data, entry) = try await backend.read(path)
            guard let text = String(validating: data, as: UTF8.self) else {
                throw RemoteError.local("\(entry.path) is not UTF-8 text")
            }
            let embeds = options.render ? await backend.embeds(of: text, at: entry.path) : [:]
            try options.print(text, path: entry.path, entry: entry, embeds: embeds)
        }
    }

    private func print(_ text: String, path: String?, entry: RemoteEntry?, embeds: [String: EmbeddedNote]) throws {
        let terminal = isatty(1) == 1
        let rendered = render
            ? CatOutput.rendered(text, path: path, width: width ?? Self.terminalColumns() ?? 80, embeds: embeds, cellWidth: { TextWidth.of($0) })
            : nil
        if json {
            let object = CatJSON(entry: entry, path: path, text: text, rendered: rendered.map { $0.plainText })
            FileHandle.standardOutput.write(try CLIJSON.encode(object) + Data("\n".utf8))
        } else if let rendered {
            let noColor = !(ProcessInfo.processInfo.environment["NO_COLOR"] ?? "").isEmpty
            let out = terminal ? rendered.ansiText(colors: !noColor, hyperlinks: true) : rendered.plainText + "\n"
            FileHandle.standardOutput.write(Data(out.utf8))
        } else {
            FileHandle.standardOutput.write(Data((terminal ? CatOutput.shownOnTerminal(text) : text).utf8))
        }
    }

    /// The terminal's width, from stdout's window size or $COLUMNS.
    static func terminalColumns() -> Int? {
        var size = winsize()
        if ioctl(1, UInt(TIOCGWINSZ), &size) == 0, size.ws_col > 0 { return Int(size.ws_col) }
        return ProcessInfo.processInfo.environment["COLUMNS"].flatMap(Int.init)
    }
}
