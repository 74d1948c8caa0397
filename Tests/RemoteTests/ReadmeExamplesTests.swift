import Foundation
import TestSupport
import XCTest

/// Every `byteclub …` line in the code blocks of README.md, then of docs/cli.md, run in order
/// against a real `byteclub serve` (the placeholders swapped for the club's by ``ReadmeClub``): a
/// line that exits non-zero fails the test, so neither can promise what byteclub does not do.
final class ReadmeExamplesTests: XCTestCase {
    var base: URL!

    override func setUp() async throws {
        base = FileManager.default.temporaryDirectory.appendingPathComponent("readme-\(UUID().uuidString)")
    }

    override func tearDown() async throws {
        try? FileManager.default.removeItem(at: base)
    }

    /// The command lines of a Markdown file of the repository (`README.md`, `docs/cli.md`),
    /// comments taken off, in order.
    static func commandLines(in file: String) throws -> [String] {
        let repository = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        let text = try String(contentsOf: repository.appendingPathComponent(file), encoding: .utf8)
        var inBlock = false
        var lines: [String] = []
        for raw in text.components(separatedBy: "\n") {
            let line = raw.trimmingCharacters(in: .whitespaces)
            if line.hasPrefix("```") {
                inBlock.toggle()
                continue
            }
            guard inBlock, line.hasPrefix("byteclub ") else { continue }
            lines.append(line.range(of: #"\s{2,}# "#, options: .regularExpression).map { String(line[..<$0.lowerBound]) } ?? line)
        }
        return lines
    }

    /// `trip* "boat hire" -rain` as a shell splits it: quotes grouped and taken off.
    static func words(_ line: String) -> [String] {
        var words: [String] = []
        var current = ""
        var quote: Character?
        var inWord = false
        for character in line {
            if let open = quote {
                if character == open { quote = nil } else { current.append(character) }
            } else if character == "'" || character == "\"" {
                quote = character
                inWord = true
            } else if character == " " {
                if inWord { words.append(current) }
                current = ""
                inWord = false
            } else {
                current.append(character)
                inWord = true
            }
        }
        if inWord { words.append(current) }
        return words
    }

    func testEveryCommandLineInTheReadmeRunsAgainstARealClub() throws {
        let club = try ReadmeClub(base: base)
        let readme = try Self.commandLines(in: "README.md")
        let contract = try Self.commandLines(in: "docs/cli.md")
        XCTAssertGreaterThanOrEqual(readme.count, 10, "README's blocks are found")
        XCTAssertGreaterThan(contract.count, 20, "docs/cli.md's examples are found")
        XCTAssertTrue(readme.contains { $0.hasPrefix("byteclub join ") }, "README joins the club the later lines use")
        for line in readme + contract {
            let arguments = club.substituted(Array(Self.words(line).dropFirst()))
            if arguments.first == "serve" {
                // The club the lines run against is this server, started before them on a free
                // loopback port rather than on the LAN; the folder must be the one they name.
                let root = zip(arguments, arguments.dropFirst()).first { $0.0 == "--root" }?.1
                XCTAssertEqual(root, club.root.path, "\(line): serves the club's folder")
                continue
            }
            if arguments.contains("watch") {
                // Runs until Ctrl-C, which is exit 130 as on every command.
                let watch = try club.cli.start(arguments)
                let err = PipeTail(watch.standardError as! Pipe)
                XCTAssertNotNil(err.wait(for: "watching", timeout: 20), "\(line): \(err.current)")
                watch.interrupt()
                watch.waitForExit(within: 30)
                XCTAssertEqual(watch.terminationStatus, 130, "\(line): \(err.current)")
                continue
            }
            let result = try club.cli.run(arguments, timeout: 120)
            XCTAssertEqual(result.status, 0, "this line failed: \(line)\n\(result.stderr)")
            club.heard(arguments, result.stdout)
        }
    }
}

/// A club for the README's lines: a `byteclub serve` over HTTPS with a script member, a CLI with
/// no config.toml yet (README's `join` writes the remote `club`, its default, which every later
/// line reaches), the files the lines name, and the one place the placeholders become this club's
/// values (a URL, a token, a rev, an invite, a share link): when `serve` changes, only this changes.
final class ReadmeClub {
    let server: ServeProcess
    let cli: CLI
    /// The token of `ray`, an editor given on serve's command line, for the line that names a
    /// club by its address and a token.
    let token = "readme-ray-token"
    /// The rev the README's `015f2a3b4c` stands for, and the link its `URL` stands for.
    private var rev: String?
    private var link: String?
    /// The invite `members add` printed, which `join INVITE` redeems.
    private var invite: String?
    /// The served folder: README's `~/club`.
    let root: URL

    init(base: URL) throws {
        root = base.appendingPathComponent("served")
        try FileManager.default.createDirectory(at: root.appendingPathComponent("byteclub"), withIntermediateDirectories: true)
        try Data("Packing\nBoat hire on the lake\n".utf8).write(to: root.appendingPathComponent("byteclub/Trip.txt"))
        // Over HTTPS with its own certificate, as `serve` runs by default; `join` pins its key.
        server = try ServeProcess(root: root, token: "readme-owner-token", tls: true, arguments: ["--member", "ray=\(token)"])
        XCTAssertNotNil(server.pin, "byteclub serve printed its key's fingerprint")
        cli = try CLI.isolated(in: base)
        let work = cli.directory
        try Data("a note\n".utf8).write(to: work.appendingPathComponent("a.txt"))
        try Data("# Trip plan\n\nBoat hire on the lake, then [[Trip]].\n".utf8).write(to: work.appendingPathComponent("Trip plan.md"))
        for (name, size) in [("photo.jpg", 200_000), ("alps.jpg", 150_000), ("film.mkv", 3 << 20), ("big.mov", 1 << 20)] {
            try Data((0..<size).map { UInt8(truncatingIfNeeded: $0 &* 31) }).write(to: work.appendingPathComponent(name))
        }
        let vault = work.appendingPathComponent("my-vault/Trips/Alps.md")
        try FileManager.default.createDirectory(at: vault.deletingLastPathComponent(), withIntermediateDirectories: true)
        try Data("---\ntags: [trip]\npinned: true\n---\nSee [[Trip]]\n".utf8).write(to: vault)
        for index in 0..<5 {
            let note = work.appendingPathComponent("notes/sub/n\(index).md")
            try FileManager.default.createDirectory(at: note.deletingLastPathComponent(), withIntermediateDirectories: true)
            try Data("note \(index)\n".utf8).write(to: note)
        }
    }

    /// The README's placeholders as this club's values.
    func substituted(_ arguments: [String]) -> [String] {
        arguments.map { word in
            switch word {
            case "https://192.168.1.20:8421": return server.url
            case "sha256//…": return server.pin ?? word
            case "DIR", "~/club": return root.path
            case "INVITE": return invite ?? word
            case "TOKEN": return token
            case "URL": return link ?? word
            default:
                if let rev { return word.replacingOccurrences(of: "015f2a3b4c", with: rev) }
                return word
            }
        }
    }

    /// Takes what later lines need from a line's output: the newest rev the latest `log`
    /// printed (each `restore` follows the `log` of its file), the link `share` made, the invite
    /// `members add` printed.
    func heard(_ arguments: [String], _ stdout: String) {
        if arguments.first == "log" { rev = stdout.split(separator: " ").first.map(String.init) }
        if arguments.first == "share", !arguments.contains("--list") { link = stdout.trimmingCharacters(in: .whitespacesAndNewlines) }
        if arguments.starts(with: ["members", "add"]) {
            invite = stdout.split(separator: "\n").last { $0.contains("/join/") }.map { $0.trimmingCharacters(in: .whitespaces) }
        }
    }
}
