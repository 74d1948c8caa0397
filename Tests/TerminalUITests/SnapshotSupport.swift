import Foundation
import TerminalUI
import XCTest

/// Sample data shared by the screen tests.
enum Fixture {
    static let noteColumns = [
        ListColumn("Title"),
        ListColumn("Size", width: .fixed(8), alignment: .right, isSecondary: true),
        ListColumn("Modified", width: .fixed(16), isSecondary: true),
    ]

    static let notes: [ListRow] = [
        ("fizzbuzz-in-one-line.txt", "1.2 KB", "2026-11-21 20:56"),
        ("challenge-42-reverse-a-linked-list.md", "3.4 KB", "2026-11-20 18:02"),
        ("reply-to-challenge-41.txt", "812 B", "2026-11-19 09:15"),
        ("club-rules.md", "2.0 KB", "2026-11-12 12:00"),
        ("desk-setup-ideas.txt", "640 B", "2026-11-10 22:41"),
        ("weekly-kata-roman-numerals.txt", "1.9 KB", "2026-11-03 07:30"),
        ("challenge-41-balanced-brackets.md", "2.7 KB", "2026-10-28 16:44"),
        ("meetup-notes-october.txt", "5.1 KB", "2026-10-21 19:05"),
    ].map { ListRow([$0.0, $0.1, $0.2]) }

    static let photoColumns = [
        ListColumn("Name"),
        ListColumn("Size", width: .fixed(8), alignment: .right, isSecondary: true),
        ListColumn("Date", width: .fixed(10), isSecondary: true),
    ]

    /// A full screen: tab bar, list, status bar.
    @MainActor
    final class Screen: Layer {
        var tab = 0
        var rows: [ListRow]
        var columns: [ListColumn]
        var list = ListState()
        var status: StatusBar
        var emptyHint = "No notes yet — press n to write one"

        init(rows: [ListRow] = Fixture.notes, columns: [ListColumn] = Fixture.noteColumns) {
            self.rows = rows
            self.columns = columns
            self.status = StatusBar(backend: "embedded", message: StatusMessage("8 notes"), hint: "? help")
        }

        static let bindings = KeyBindings<Int>(group: "Notes", [
            .init([.char("n")], 1, "New note"),
            .init([.char("d"), .delete], 2, "Delete note"),
            .init([.char("R")], 3, "Rename note"),
            .init([.char("r")], 4, "Refresh"),
            .init([.char("q")], 5, "Quit"),
        ])

        func render(into canvas: any Canvas, area: Rect) {
            let (top, rest) = area.splitTop(1)
            let (middle, bottom) = rest.splitBottom(1)
            TabBar(titles: ["Notes", "PanoPhotos"], active: tab, trailing: "byteclub").render(into: canvas, area: top)
            ListView(columns: columns, rows: rows, emptyHint: emptyHint).render(into: canvas, area: middle, state: &list)
            status.render(into: canvas, area: bottom)
        }

        func handle(_ key: Key, context: LayerContext) -> EventResult {
            list.handle(key, rows: rows).eventResult
        }

        func commands() -> [Command] { Self.bindings.commands + ListState.bindings.commands }
    }

    @MainActor
    static func render(_ layers: [any Layer], width: Int, height: Int) -> GridCanvas {
        let canvas = GridCanvas(width: width, height: height)
        let compositor = Compositor()
        for layer in layers { compositor.push(layer) }
        compositor.render(into: canvas)
        return canvas
    }
}

// Test methods in `@MainActor` classes are `async`: swift-corelibs-xctest's test discovery
// cannot call a synchronous main-actor method (it aborts casting the method's type), while an
// async one is run through its async path, which hops to the main actor.
