import Foundation
import TestSupport
import XCTest

/// The links of a real vault (Tests/Fixtures/Tasks-Demo) lead in the club where Obsidian takes
/// them (issue 55): of those that Obsidian's documented rules resolve (``ObsidianRules``, written
/// from its help, not from byteclub), at least 99 % resolve in `byteclub links --json`, to the
/// same file where import put it.
final class RealVaultLinksTests: XCTestCase {
    func testLinksResolveAsObsidianResolvesThem() throws {
        let base = FileManager.default.temporaryDirectory.appendingPathComponent("real-vault-links-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: base) }
        let cli = try CLI.isolated(in: base)
        let root = base.appendingPathComponent("club")
        try FileManager.default.createDirectory(at: root.appendingPathComponent("byteclub"), withIntermediateDirectories: true)
        let server = try ServeProcess(root: root, token: "owner", arguments: ["--member", "ann=ann-token"])
        defer { _ = server }
        let options = ["--server", server.url, "--token", "ann-token"]
        let imported = try cli.run(["import", RealVaultCLITests.vault.path, RealVault.importedAs] + options)
        XCTAssertEqual(imported.status, 0, imported.stderr)

        // Obsidian's answer for every link of every note, from the vault as its owner has it.
        let vault = RealVaultCLITests.tree(RealVaultCLITests.vault)
        let rules = ObsidianRules(files: Array(vault.keys))
        var expected: [ObsidianRules.Link: String] = [:]
        var found = 0
        for (path, data) in vault where path.hasSuffix(".md") {
            for link in try ObsidianRules.links(in: String(decoding: data, as: UTF8.self), note: path) {
                found += 1
                if let target = rules.resolve(link) { expected[link] = target }
            }
        }
        XCTAssertGreaterThan(expected.count, 50, "the vault links its notes and attachments")

        // byteclub's answer, note by note, for the notes that have such links.
        var agreed = 0
        var differ: [String] = []
        for note in Set(expected.keys.map(\.note)).sorted() {
            let answer = try cli.run(["links", "/byteclub/\(RealVault.importedAs)/" + note, "--json"] + options)
            XCTAssertEqual(answer.status, 0, answer.stderr)
            let object = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(answer.stdout.utf8)) as? [String: Any], answer.stderr)
            let outgoing = object["outgoing"] as? [[String: Any]] ?? []
            var ordinals: [String: Int] = [:]
            var byPlace: [ObsidianRules.Link: [String: Any]] = [:]
            for link in outgoing {
                // Numbered as ObsidianRules numbers them: links that name a file (`[[#Heading]]`,
                // a place in the same note, names none).
                guard let line = link["line"] as? Int, let syntax = link["syntax"] as? String,
                      let kind = ObsidianRules.Link.Syntax(rawValue: syntax),
                      !(kind == .wiki && (link["destination"] as? String ?? "").isEmpty) else { continue }
                let key = "\(line) \(syntax)"
                let place = ObsidianRules.Link(note: note, line: line, syntax: kind, ordinal: ordinals[key, default: 0], written: "")
                ordinals[key, default: 0] += 1
                byPlace[place] = link
            }
            for (link, target) in expected where link.note == note {
                var place = link
                place.written = ""
                let club = byPlace[place]
                let path = (club?["path_display"] as? String)?.lowercased()
                if club?["exists"] as? Bool == true, path == RealVaultCLITests.clubPath(of: target).lowercased() {
                    agreed += 1
                } else {
                    differ.append("\(note):\(link.line) \(link.written) → Obsidian: \(target); byteclub: \(path ?? "nothing")")
                }
            }
        }
        print("RealVaultLinksTests: \(found) links in \(vault.keys.filter { $0.hasSuffix(".md") }.count) notes; Obsidian's rules resolve \(expected.count); byteclub links --json resolves \(agreed) of them alike")
        for line in differ { print("  differs: " + line) }
        XCTAssertGreaterThanOrEqual(Double(agreed), 0.99 * Double(expected.count), "at least 99 %: \(differ.joined(separator: "\n"))")
    }
}
