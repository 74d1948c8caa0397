@testable import ByteClubApp
import Foundation
import Markdown
import Remote
import TestSupport
import XCTest

/// The links of a real vault open in the app where Obsidian opens them (issue 55): the Tasks
/// plugin's vault (Tests/Fixtures/Tasks-Demo) imported by `byteclub import` into a `byteclub
/// serve`, and every link that Obsidian's documented rules resolve (``ObsidianRules``) followed
/// by the app's own path (`Navigator.follow`, what `Ctrl-]` and `Enter` in the view do) from
/// its note: a note opens, a file is handed to the system's opener, a picture is drawn from
/// where the link leads.
@MainActor
final class RealVaultLinksAppTests: XCTestCase {
    func testLinksOfARealVaultOpenInTheAppWhereObsidianOpensThem() async throws {
        let base = FileManager.default.temporaryDirectory.appendingPathComponent("real-vault-app-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: base) }
        let root = base.appendingPathComponent("club")
        try FileManager.default.createDirectory(at: root.appendingPathComponent("byteclub"), withIntermediateDirectories: true)
        let server = try ServeProcess(root: root, token: "owner", arguments: ["--member", "ann=ann-token"])
        defer { _ = server }
        let binary = try XCTUnwrap(BuiltExecutable.byteclub, "the byteclub executable is built")
        let environment = ["HOME": base.path, "XDG_CONFIG_HOME": base.appendingPathComponent("config").path,
                           "XDG_STATE_HOME": base.appendingPathComponent("state").path, "XDG_CACHE_HOME": base.appendingPathComponent("cache").path,
                           "XDG_DATA_HOME": base.appendingPathComponent("data").path, "PATH": "/usr/bin:/bin"]
        let imported = try ChildProcess.run([binary.path, "import", RealVault.folder.path, RealVault.importedAs, "--server", server.url, "--token", "ann-token"],
                                            environment: environment)
        XCTAssertEqual(imported.status, 0, imported.stderr)

        // Files a link leads to are handed to this program, which does nothing.
        setenv("BYTECLUB_OPEN", "/bin/true", 1)
        defer { unsetenv("BYTECLUB_OPEN") }
        let store = DropboxStore(displayName: "club", endpoints: .club(try XCTUnwrap(URL(string: server.url))), tokens: StaticToken("ann-token"),
                                 configuration: .ephemeral)
        let harness = Harness(store: store)
        await harness.start()
        defer { harness.app.stopLiveUpdates() }

        let vault = RealVault.tree()
        let rules = ObsidianRules(files: Array(vault.keys))
        var expected: [(link: ObsidianRules.Link, target: String)] = []
        for (path, data) in vault where path.hasSuffix(".md") {
            for link in try ObsidianRules.links(in: String(decoding: data, as: UTF8.self), note: path) {
                if let target = rules.resolve(link) { expected.append((link, target)) }
            }
        }
        var agreed = 0
        var differ: [String] = []
        for note in Set(expected.map(\.link.note)).sorted() {
            let path = RealVault.clubPath(of: note)
            let entry = try XCTUnwrap(harness.app.state.notes.entries.first { $0.pathLower == path.lowercased() }, path)
            // The note as the club holds it, and its links as the app reads them, by place.
            let text = try String(contentsOf: root.appendingPathComponent(String(path.dropFirst())), encoding: .utf8)
            var places: [String: NoteLink] = [:]
            var ordinals: [String: Int] = [:]
            // Numbered as ObsidianRules numbers them: links that name a file (`[[#Heading]]`, a
            // place in the same note, names none).
            for link in NoteLinks.scan(text) where link.syntax != .autolink && !(link.syntax == .wiki && link.destination.isEmpty) {
                let key = "\(link.line + 1) \(link.syntax == .wiki ? "wiki" : "markdown")"
                places[key + " \(ordinals[key, default: 0])"] = link
                ordinals[key, default: 0] += 1
            }
            for (link, target) in expected where link.note == note {
                let want = RealVault.clubPath(of: target)
                guard let found = places["\(link.line) \(link.syntax.rawValue) \(link.ordinal)"] else {
                    differ.append("\(note):\(link.line) \(link.written): the app reads no link there")
                    continue
                }
                let leads = found.target(inFolder: (path as NSString).deletingLastPathComponent)
                // From the linking note, as Ctrl-] follows it and its view draws its pictures.
                harness.app.navigator.load(entry)
                await harness.waitUntil("\(note) open") { harness.app.state.note?.entry?.pathLower == entry.pathLower && harness.app.state.note?.isEditing == true }
                if case .photo(let photo) = leads {
                    // The rendered view draws the picture the app finds for the link's path: where
                    // it says, else by its name as Obsidian finds it (an icon in Attachments/icons/).
                    let drawn = harness.app.noteView.photoEntry(photo)?.path
                    if drawn?.lowercased() == want.lowercased() { agreed += 1 } else { differ.append("\(note):\(link.line) → \(drawn ?? "nothing"), not \(want)") }
                    harness.app.navigator.discard()
                    continue
                }
                harness.app.navigator.follow(leads)
                let isNote = want.hasSuffix(".md")
                let name = (want as NSString).lastPathComponent
                await harness.waitUntil("\(link.written) followed", timeout: 5) {
                    isNote ? (harness.app.state.note?.entry?.pathLower == want.lowercased() && harness.app.state.note?.isEditing == true)
                        : harness.app.state.message?.text.contains("Opened \"\(name)\"") == true
                }
                let opened = isNote ? harness.app.state.note?.entry?.pathLower == want.lowercased()
                    : harness.app.state.message?.text.contains("Opened \"\(name)\"") == true
                if opened { agreed += 1 } else { differ.append("\(note):\(link.line) \(link.written) → \(harness.app.state.note?.entry?.path ?? "?"), not \(want)") }
                harness.app.navigator.discard()
            }
        }
        print("RealVaultLinksAppTests: Obsidian's rules resolve \(expected.count) links; the app opens \(agreed) of them where Obsidian does")
        for line in differ { print("  differs: " + line) }
        XCTAssertGreaterThanOrEqual(Double(agreed), 0.99 * Double(expected.count), differ.joined(separator: "\n"))
    }
}
