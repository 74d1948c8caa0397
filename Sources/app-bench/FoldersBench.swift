import ByteClubApp
import Foundation
import ClubKit
import Remote
import TerminalUI

/// Folders (issue 45), through the whole app on the main queue: a club of 10,000 notes in 500
/// folders (50 areas of 10 folders, 20 notes each) and an Archive folder of 1,000 notes that
/// 200 notes link into by path, on the club server on loopback, 120×36 frames.
///
/// - the tree's first frame from the disk cache (a second start);
/// - opening a folder: Enter on its row to the frame that lists it, and Backspace back;
/// - moving the Archive (1,000 notes) into another folder with `m`, and the 200 notes' links
///   updated on the server: from the chooser's Enter to "Updated links", beside `mv` of the
///   same folder on the same disk.
@MainActor
enum FoldersBench {
    nonisolated static let areas = 50, parts = 10, perFolder = 20, archived = 1_000, linking = 200

    static func run() async throws {
        let club = try await BenchClub { folder in
            for area in 0..<areas {
                for part in 0..<parts {
                    let dir = part == 0 ? "Area \(area)" : "Area \(area)/Part \(part)"
                    let url = folder.appendingPathComponent(dir)
                    try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
                    for n in 0..<perFolder {
                        let index = (area * parts + part) * perFolder + n
                        var text = "Note \(n) of \(dir). Next: [[note \((n + 1) % perFolder)]]\n"
                        if part == 0, area < linking / (perFolder / 2), n < perFolder / 2 {
                            text += "See [the entry](../Archive/entry%20\(String(format: "%04d", index % archived)).md) and [[Archive/entry \(String(format: "%04d", (index + 1) % archived))]]\n"
                        }
                        try Data(text.utf8).write(to: url.appendingPathComponent("note \(n).md"))
                    }
                }
            }
            let archive = folder.appendingPathComponent("Archive")
            try FileManager.default.createDirectory(at: archive, withIntermediateDirectories: true)
            for n in 0..<archived {
                try Data("Entry \(n), kept for the record.\n".utf8).write(to: archive.appendingPathComponent(String(format: "entry %04d.md", n)))
            }
            try FileManager.default.createDirectory(at: folder.appendingPathComponent("Old"), withIntermediateDirectories: true)
        }
        defer { try? FileManager.default.removeItem(at: club.base) }
        let notes = areas * parts * perFolder + archived
        print("app-bench folders: \(notes) notes: \(areas * parts) folders of \(perFolder), an Archive of \(archived) that \(linking) notes link into by path;")
        print("club server on loopback, the app on the main queue, 120×36 frames. Release build: targets are for it.")
        let widths = [44, 10, 10, 10, 10]
        print(row(["measure", "median", "p95", "max", "target"], widths))

        let cache = ClubCache(directory: club.base.appendingPathComponent("cache"))
        let indexFolder = club.base.appendingPathComponent("index")
        func makeApp(_ compositor: Compositor) -> ClubApp {
            var configuration = AppConfiguration()
            configuration.cache = cache
            configuration.searchIndex = AppConfiguration.searchIndex(in: indexFolder)
            configuration.downloadDirectory = club.base.appendingPathComponent("downloads")
            configuration.liveUpdates = false
            return ClubApp(store: club.store(), compositor: compositor, configuration: configuration)
        }

        // A first start fills the cache and the index.
        var compositor = Compositor()
        var app = makeApp(compositor)
        var written = false
        app.onCacheWritten = { tab, saved in if tab == .notes && saved { written = true } }
        app.start()
        try await AppBench.wait("the notes", timeout: 300) { app.state.notes.hasLoaded && written }
        guard app.state.notes.entries.count == notes else { throw BenchError("listed \(app.state.notes.entries.count) of \(notes) notes") }

        // The tree's first frame from the cache: a new app on the same cache, five times.
        let firstFrames = try AppBench.firstFramesFromCache(mark: "▸ Area 0/", makeApp)
        print(row(["tree's first frame from the cache (ms)", f(percentile(firstFrames, 0.5)), f(percentile(firstFrames, 0.95)),
                   f(firstFrames.last ?? 0), "≤ 100"], widths))

        // Opening a folder: Enter on each area's row, then Backspace.
        var opens: [Double] = [], ups: [Double] = []
        for area in 0..<areas {
            let listing = NoteListing.make(app.state, format: DisplayFormat())
            guard let index = listing.items.firstIndex(where: { if case .folder(let f) = $0 { f.name == "Area \(area)" } else { false } }) else {
                throw BenchError("no row for Area \(area)")
            }
            app.update { $0.notes.list.select(row: index, in: listing.rows) }
            compositor.render(into: GridCanvas(width: 120, height: 36))
            var start = ContinuousClock.now
            _ = compositor.handle(.enter)
            var canvas = GridCanvas(width: 120, height: 36)
            compositor.render(into: canvas)
            opens.append(milliseconds(since: start))
            guard canvas.position(of: "▸ Part 1/") != nil else { throw BenchError("Area \(area) did not open") }
            start = ContinuousClock.now
            _ = compositor.handle(.backspace)
            canvas = GridCanvas(width: 120, height: 36)
            compositor.render(into: canvas)
            ups.append(milliseconds(since: start))
        }
        opens.sort()
        ups.sort()
        print(row(["opening a folder: Enter to its frame (ms)", f(percentile(opens, 0.5)), f(percentile(opens, 0.95)), f(opens.last ?? 0), "≤ 30"], widths))
        print(row(["up a folder: Backspace to its frame (ms)", f(percentile(ups, 0.5)), f(percentile(ups, 0.95)), f(ups.last ?? 0), "≤ 30"], widths))

        // Moving the Archive into Old, its links updated: the index first has every note.
        try await AppBench.wait("the index", timeout: 600) { app.indexIsCurrent }
        let listing = NoteListing.make(app.state, format: DisplayFormat())
        guard let archive = listing.items.firstIndex(where: { if case .folder(let f) = $0 { f.name == "Archive" } else { false } }) else {
            throw BenchError("no row for the Archive")
        }
        app.update { $0.notes.list.select(row: archive, in: listing.rows) }
        compositor.render(into: GridCanvas(width: 120, height: 36))
        _ = compositor.handle(.char("m"))
        for key in [Key.char("/")] + "Old".map { Key.char($0) } + [.enter] { _ = compositor.handle(key) }
        compositor.render(into: GridCanvas(width: 120, height: 36))
        let start = ContinuousClock.now
        _ = compositor.handle(.enter)
        try await AppBench.wait("the move") { app.state.message?.text.hasPrefix("Moved") == true || app.state.message?.kind == .error }
        let moved = milliseconds(since: start)
        guard app.state.message?.kind != .error else { throw BenchError(app.state.message?.text ?? "") }
        try await AppBench.wait("the question") { !app.state.dialogs.isEmpty }
        let asked = milliseconds(since: start)
        _ = compositor.handle(.enter)
        try await AppBench.wait("the links", timeout: 120) { app.state.message?.text.hasPrefix("Updated links") == true }
        let total = milliseconds(since: start)
        let said = app.state.message?.text ?? ""
        print(row(["move of 1,000 notes: moved on the server (ms)", f(moved), "", "", ""], widths))
        print(row(["  … links counted, question asked (ms)", f(asked), "", "", ""], widths))
        print(row(["  … \(said.prefix(30)) (ms)", f(total), "", "", "≤ 5000"], widths))

        // mv of the same folder on the same disk.
        let copy = club.base.appendingPathComponent("mv/Archive"), into = club.base.appendingPathComponent("mv/Old")
        try FileManager.default.createDirectory(at: into, withIntermediateDirectories: true)
        try FileManager.default.copyItem(at: club.root.appendingPathComponent("byteclub/Old/Archive"), to: copy)
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/bin/mv")
        process.arguments = [copy.path, into.path + "/"]
        let mvStart = ContinuousClock.now
        try process.run()
        process.waitUntilExit()
        print(row(["mv of the same folder, same disk (ms)", f(milliseconds(since: mvStart)), "", "", "(links not updated)"], widths))
        print("")
        compositor = Compositor()
        app = makeApp(compositor)
        await club.close()
    }

    private static func f(_ value: Double) -> String { String(format: "%.1f", value) }
}
