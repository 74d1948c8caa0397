import Foundation
import Imaging

/// `app-bench markdown`, second table: a note as a real vault writes them, 50 callouts and 20
/// pictures of mixed formats (PNG, GIF, WebP, SVG, five each, in an album as an import puts
/// them), in the real byteclub in a pty beside vim on the same text: from Enter to the first frame
/// that shows the note, key to echo in the editor, and Alt-V to the rendered view that draws the
/// callouts and the pictures.
extension MarkdownBench {
    /// The note's text and its pictures (album-relative name → bytes).
    static func vault() throws -> (text: String, pictures: [(String, Data)]) {
        let kinds = ["note", "tip", "warning", "info", "quote"]
        var pictures: [(String, Data)] = []
        for index in 0..<5 {
            let shade = UInt8(40 * index + 40)
            let image = RGBImage(width: 320, height: 160, pixels: (0..<(320 * 160)).flatMap { $0 % 320 < 160 ? [shade, 90, 200] : [250, 250, 250] })
            pictures.append(("shot-\(index).png", try PNG.encode(image)))
            pictures.append(("photo-\(index).webp", try WebP.encode(image)))
            let indices = (0..<(320 * 160)).map { UInt8($0 % 320 < 160 ? 0 : 1) }
            pictures.append(("anim-\(index).gif", try GIF.encode(width: 320, height: 160, palette: [(shade, 200, 90), (250, 250, 250)], frames: [indices])))
            pictures.append(("icon-\(index).svg", Data("""
                <svg xmlns="http://www.w3.org/2000/svg" width="320" height="160"><rect width="160" height="160" fill="#3366cc"/>\
                <circle cx="240" cy="80" r="\(30 + 5 * index)" fill="#cc6633"/></svg>
                """.utf8)))
        }
        var text = "# Trip to Lisbon\n\nThe week as we lived it, with the pictures people took.\n\n"
        for index in 0..<50 {
            let kind = kinds[index % kinds.count]
            text += "> [!\(kind)]\(index % 7 == 3 ? "-" : "") Day \(index / 5 + 1), part \(index % 5 + 1)\n"
            text += "> We walked from the river up to the castle, \(index) streets of stairs, and ate by the tram line.\n"
            text += "> - a list inside the callout, item \(index)\n> - and one more, with **strong** words\n\n"
            if index % 5 == 2 {
                let (name, _) = pictures[(index / 5 * 2) % pictures.count]
                text += "![[\(name)|300]]\n\n"
            }
            if index % 5 == 4 {
                let (name, _) = pictures[(index / 5 * 2 + 1) % pictures.count]
                text += "![\(name)](photos/Attachments/\(name))\n\n"
            }
            text += "Between the days: notes on the route, the prices and who paid for what at the end.\n\n"
        }
        return (text, pictures)
    }
}

extension MarkdownBench {
    static func runVault(binary: String, vim: String?) throws {
        let base = FileManager.default.temporaryDirectory.appendingPathComponent("app-bench-vault-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: base) }
        let notes = base.appendingPathComponent("club/byteclub")
        let album = notes.appendingPathComponent("photos/Attachments")
        try FileManager.default.createDirectory(at: album, withIntermediateDirectories: true)
        let (text, pictures) = try vault()
        for (name, data) in pictures { try data.write(to: album.appendingPathComponent(name)) }
        let file = notes.appendingPathComponent("Vault.md")
        try Data(text.utf8).write(to: file)
        let environment = Self.environment(base)
        let app = try EchoBench.PTYApp(binary: binary, arguments: ["--data-dir", base.appendingPathComponent("club").path,
                                                                    "--download-dir", base.appendingPathComponent("downloads").path],
                                       environment: environment)
        try app.waitFor("Vault")
        var offset = app.output.total
        app.send("/Vault\r")
        try app.waitFor("1 of", after: offset)
        offset = app.output.total
        let start = ContinuousClock.now
        app.send("\r")
        try app.waitFor("Trip to Lisbon", after: offset)
        let appOpen = milliseconds(since: start)
        try app.waitFor("Esc closes", after: offset)
        let appEcho = try EchoBench.measure(app, count: 300)
        // Alt-V: the callouts as boxes and the pictures drawn (each a decode and a scale).
        let (firstView, views) = try renderedView(app, shown: "╭─ Note", back: "[!note]")
        app.stop()

        let (vimOpen, vimEcho) = try vim.map { try Self.vimRun($0, text: text, in: base, showing: "Trip to Lisbon", environment: environment) } ?? (nil, [])

        print("app-bench markdown: a vault's note, 50 callouts and 20 pictures (5 each PNG, GIF, WebP, SVG; 320×160), \(text.utf8.count >> 10) KiB")
        let widths = [38, 10, 6, 10, 8, 8]
        print(row(["(targets: open ≤ 150 ms, p99 ≤ 16 ms)", "open ms", "keys", "median ms", "p99 ms", "max ms"], widths))
        func line(_ name: String, _ open: Double?, _ samples: [Double]) {
            let sorted = samples.sorted()
            print(row([name, open.map { String(format: "%.1f", $0) } ?? "-", "\(samples.count)",
                       String(format: "%.2f", percentile(sorted, 0.5)), String(format: "%.2f", percentile(sorted, 0.99)),
                       String(format: "%.2f", sorted.last ?? 0)], widths))
        }
        line("byteclub editor", appOpen, appEcho)
        if vim != nil { line("vim -c 'syntax on' (markdown)", vimOpen, vimEcho) }
        line("byteclub Alt-V rendered view", firstView, views)
        print("")
    }
}
