import ClubServer
import Foundation
import TestSupport
import XCTest
#if canImport(Glibc)
import Glibc
#endif

/// `byteclub today`: the daily note, where config.toml says, from `templates/daily.md`; and two
/// members who each make the day's note while the club is away end up with one note.
final class TodayCLITests: XCTestCase {
    var base: URL!
    var root: URL { base.appendingPathComponent("club") }
    var server: ClubServer?
    var port = 0

    override func setUp() async throws {
        base = FileManager.default.temporaryDirectory.appendingPathComponent("today-tests-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: root.appendingPathComponent("byteclub"), withIntermediateDirectories: true)
        try await startServer()
    }

    override func tearDown() async throws {
        await server?.stop()
        try? FileManager.default.removeItem(at: base)
    }

    /// The club with two members, ann and bob, on `port` (a free one the first time).
    func startServer() async throws {
        var configuration = ClubServerConfiguration(root: root.path, token: "")
        configuration.members = [ClubMember(name: "ann", token: "ann-token"), ClubMember(name: "bob", token: "bob-token")]
        configuration.port = port
        configuration.logger.logLevel = .error
        let started = try await ClubServer.start(configuration)
        port = started.baseURL.port ?? 0
        server = started
    }

    var url: String { "http://127.0.0.1:\(port)" }

    /// `member`'s byteclub, on a machine of their own, with `$EDITOR` running `script`.
    func member(_ name: String, editor script: String, config: String? = nil) throws -> (cli: CLI, arguments: [String]) {
        let home = base.appendingPathComponent(name)
        let cli = try CLI.isolated(in: home)
        let file = home.appendingPathComponent("editor.sh")
        try Data("#!/bin/sh\n\(script)\n".utf8).write(to: file)
        chmod(file.path, 0o755)
        var environment = cli.environment
        environment["VISUAL"] = nil
        environment["EDITOR"] = file.path
        if let config {
            let folder = home.appendingPathComponent("home/config/byteclub")
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
            try Data(config.utf8).write(to: folder.appendingPathComponent("config.toml"))
        }
        return (CLI(environment: environment, directory: cli.directory), ["--server", url, "--token", "\(name)-token"])
    }

    func text(_ relative: String) -> String? { try? String(contentsOf: root.appendingPathComponent("byteclub/" + relative), encoding: .utf8) }

    static func day(_ format: String) -> String {
        let formatter = DateFormatter()
        formatter.dateFormat = format
        return formatter.string(from: Date())
    }

    func testTodayMakesTheDayNoteFromTheDailyTemplateWhereConfigSaysThenOpensIt() throws {
        try FileManager.default.createDirectory(at: root.appendingPathComponent("byteclub/templates"), withIntermediateDirectories: true)
        try Data("# {{title}} ({{author}})\n".utf8).write(to: root.appendingPathComponent("byteclub/templates/daily.md"))
        let (ann, arguments) = try member("ann", editor: #"printf 'rowed\n' >> "$1""#,
                                          config: "daily_folder = \"journal\"\ndaily_format = \"%Y/%m-%d\"\n")
        let made = try ann.run(["today"] + arguments)
        XCTAssertEqual(made.status, 0, made.stderr)
        let name = "journal/" + Self.day("yyyy/MM-dd") + ".md"
        XCTAssertEqual(made.stdout, "/byteclub/" + name + "\n")
        XCTAssertEqual(text(name), "# \(Self.day("MM-dd")) (ann)\nrowed\n")

        let again = try ann.run(["today"] + arguments)
        XCTAssertEqual(again.status, 0, again.stderr)
        XCTAssertEqual(text(name), "# \(Self.day("MM-dd")) (ann)\nrowed\nrowed\n", "the day's note opened again, not made again")
    }

    func testTheDefaultDayNoteIsDailyDateAndATypoInConfigIsClear() throws {
        let (ann, arguments) = try member("ann", editor: #"printf 'plain\n' >> "$1""#)
        let made = try ann.run(["today"] + arguments)
        XCTAssertEqual(made.status, 0, made.stderr)
        XCTAssertEqual(text("daily/" + Self.day("yyyy-MM-dd") + ".md"), "plain\n", "no template: a blank note")

        for (config, says) in [("daily_fromat = \"%Y\"\n", "did you mean daily_format?"),
                               ("daily_format = \"%Y-%Q\"\n", "%Q is not a date field"),
                               ("daily_folder = \"/abs\"\n", "without a leading /")] {
            let (bob, bobArguments) = try member("bob-\(UUID().uuidString.prefix(4))", editor: "true", config: config)
            let failed = try bob.run(["today"] + bobArguments)
            XCTAssertEqual(failed.status, 2, failed.stderr)
            XCTAssertTrue(failed.stderr.hasPrefix("byteclub: ") && failed.stderr.contains("config.toml:1") && failed.stderr.contains(says), failed.stderr)
        }
    }

    func testTwoMembersMakingTheDayNoteOfflineEndWithOneNoteHoldingBoth() async throws {
        // The club goes away; its port is held so nothing else answers there.
        await server?.stop()
        let hold = try PortHold(port: port)
        let (ann, annArguments) = try member("ann", editor: #"printf 'ann: bought rope\n' >> "$1""#)
        let (bob, bobArguments) = try member("bob", editor: #"printf 'bob: fixed the sail\n' >> "$1""#)
        for (cli, arguments) in [(ann, annArguments), (bob, bobArguments)] {
            let offline = try cli.run(["today"] + arguments)
            XCTAssertEqual(offline.status, 75, offline.stderr)
            XCTAssertTrue(offline.stderr.contains("waits in the outbox: byteclub outbox --send sends it"), offline.stderr)
        }

        hold.release()
        try await startServer()
        let annSends = try ann.run(["outbox", "--send"] + annArguments)
        XCTAssertEqual(annSends.status, 0, annSends.stderr)
        let bobSends = try bob.run(["outbox", "--send"] + bobArguments)
        XCTAssertEqual(bobSends.status, 0, bobSends.stderr)
        XCTAssertTrue(bobSends.stdout.hasPrefix("merged: create"), bobSends.stdout)

        let day = Self.day("yyyy-MM-dd")
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: root.appendingPathComponent("byteclub/daily").path), [day + ".md"],
                       "one note, no conflicted copy")
        XCTAssertEqual(text("daily/\(day).md"), "ann: bought rope\nbob: fixed the sail\n")
    }
}
