@testable import ClubServer
import Foundation
import TestSupport
import XCTest

/// The command line as a contract (docs/cli.md): every `--json` output against its schema in
/// docs/schemas, the exit codes, stdin and stdout, and whole folders both ways, on a real
/// `byteclub serve` with two members.
final class CLIContractTests: XCTestCase {
    var base: URL!
    var cli: CLI!
    var server: ServeProcess!
    var root: URL!
    /// Ann's connection and bob's (two members of the serve).
    var ann: [String] = []
    var bob: [String] = []

    /// Every command that prints JSON: its command line (the connection is added) and its schema.
    /// Covering a new command is one file in docs/schemas and one row here.
    static let schemaTable: [(arguments: [String], schema: String)] = [
        (["ls", "/byteclub", "--json"], "ls"),
        (["ls", "/byteclub", "--tag", "trip", "--json"], "ls"),
        (["search", "lake", "--json"], "search"),
        (["search", "nowhere", "--json"], "search"),
        (["log", "/byteclub/Trip.txt", "--json"], "log"),
        (["share", "/byteclub/Trip.txt", "--json"], "share"),
        (["share", "--list", "--json"], "share-list"),
        (["tag", "/byteclub/Trip.txt", "--json"], "tag"),
        (["put", "../Extra.txt", "/byteclub/", "--json"], "put"),
        (["cp", "/byteclub/Extra.txt", "/byteclub/Copy.txt", "--json"], "cp"),
        (["mv", "/byteclub/Copy.txt", "/byteclub/Moved.txt", "--json"], "mv"),
        (["get", "/byteclub/Moved.txt", "moved.txt", "--json"], "get"),
        (["rm", "/byteclub/Moved.txt", "--json"], "rm"),
        (["outbox", "--json"], "outbox"),
        (["remotes", "--json"], "remotes"),
        (["transfers", "--json"], "transfers"),
        (["links", "/byteclub/Trip.txt", "--json"], "links"),
        (["cat", "/byteclub/Trip.txt", "--json"], "cat"),
        (["cat", "/byteclub/Trip.txt", "--render", "--width", "40", "--json"], "cat"),
    ]

    override func setUp() async throws {
        base = FileManager.default.temporaryDirectory.appendingPathComponent("cli-contract-\(UUID().uuidString)")
        cli = try CLI.isolated(in: base)
        root = base.appendingPathComponent("served")
        try FileManager.default.createDirectory(at: root.appendingPathComponent("byteclub"), withIntermediateDirectories: true)
        server = try ServeProcess(root: root, token: "owner-token-1", arguments: ["--member", "ann=ann-token-1", "--member", "bob=bob-token-1"])
        ann = ["--server", server.url, "--token", "ann-token-1"]
        bob = ["--server", server.url, "--token", "bob-token-1"]
    }

    override func tearDown() async throws {
        server = nil
        try? FileManager.default.removeItem(at: base)
    }

    /// `text` checked by scripts/validate-json against docs/schemas/`schema`.schema.json.
    func assertValid(_ text: String, schema: String, lines: Bool = false, _ context: String, file: StaticString = #filePath, line: UInt = #line) throws {
        let repository = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        let process = Process()
        process.executableURL = repository.appendingPathComponent("scripts/validate-json")
        process.arguments = [schema] + (lines ? ["--lines"] : [])
        let input = Pipe()
        let errors = Pipe()
        process.standardInput = input
        process.standardError = errors
        try process.run()
        input.fileHandleForWriting.write(Data(text.utf8))
        try input.fileHandleForWriting.close()
        let complaint = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        XCTAssertEqual(process.terminationStatus, 0, "\(context): \(complaint)\n\(text)", file: file, line: line)
    }

    func write(_ text: String, _ relative: String) throws {
        let url = root.appendingPathComponent(relative)
        try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
        try Data(text.utf8).write(to: url)
    }

    func testEveryJSONOutputMatchesItsSchemaInOneVocabulary() throws {
        try Data("extra\n".utf8).write(to: base.appendingPathComponent("Extra.txt"))
        let note = base.appendingPathComponent("trip.txt")
        try Data("Boat hire on the lake\n".utf8).write(to: note)
        // Bob writes the note, so `modified_by` is a name that is not the caller's.
        XCTAssertEqual(try cli.run(["put", note.path, "/byteclub/Trip.txt"] + bob).status, 0)
        XCTAssertEqual(try cli.run(["tag", "/byteclub/Trip.txt", "+trip"] + ann).status, 0)
        // One transfer through the agent, so `transfers --json` has one to print.
        let agent = try cli.run(["put", "--agent", note.path, "/byteclub/ByAgent.txt"] + ann)
        XCTAssertEqual(agent.status, 0, agent.stderr)
        for row in Self.schemaTable {
            // `remotes` reads the config file and reaches no club.
            let result = try cli.run(row.arguments + (row.arguments.first == "remotes" ? [] : ann))
            XCTAssertEqual(result.status, 0, "\(row.arguments): \(result.stderr)")
            try assertValid(result.stdout, schema: row.schema, "\(row.arguments)")
        }
        // `members list` reads the served folder's member book: one member and one open invite.
        let registry = MemberRegistry(root: root.path)
        let joined = try registry.invite("rita", role: .reader, hours: 1, server: URL(string: server.url)!, pin: nil, actor: "test")
        _ = try registry.redeem(secret: joined.secret)
        _ = try registry.invite("dan", role: .editor, hours: 1, server: URL(string: server.url)!, pin: nil, actor: "test")
        let members = try cli.run(["members", "list", "--root", root.path, "--json"])
        XCTAssertEqual(members.status, 0, members.stderr)
        XCTAssertTrue(members.stdout.contains("\"rita\"") && members.stdout.contains("\"dan\""), members.stdout)
        try assertValid(members.stdout, schema: "members-list", "members list")
        let listing = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(try cli.run(["ls", "/byteclub", "--json"] + ann).stdout.utf8)) as? [[String: Any]])
        let trip = try XCTUnwrap(listing.first { $0["name"] as? String == "Trip.txt" })
        XCTAssertEqual(trip["modified_by"] as? String, "bob", "the member's name, as the app shows it")
        XCTAssertTrue((trip["modified_by_id"] as? String)?.hasPrefix("dbid:") == true, "\(trip)")
        // People read names too: log's and search's text say "bob", not the id.
        let log = try cli.run(["log", "/byteclub/Trip.txt"] + ann)
        XCTAssertTrue(log.stdout.hasSuffix("bob\n"), log.stdout)
        let search = try cli.run(["search", "lake"] + ann)
        XCTAssertTrue(search.stdout.contains("  bob  "), search.stdout)
    }

    func testWatchJSONLinesMatchTheSchemaAndCtrlCIs130() throws {
        let watch = try cli.start(["watch", "/byteclub", "--json"] + ann)
        let out = PipeTail(watch.standardOutput as! Pipe)
        let err = PipeTail(watch.standardError as! Pipe)
        XCTAssertNotNil(err.wait(for: "watching"), err.current)
        let file = base.appendingPathComponent("w.txt")
        try Data("w".utf8).write(to: file)
        XCTAssertEqual(try cli.run(["put", file.path, "/byteclub/"] + bob).status, 0)
        XCTAssertNotNil(out.wait(for: "\n"), out.current + err.current)
        watch.interrupt()
        watch.waitForExit(within: 30)
        XCTAssertEqual(watch.terminationStatus, 130, "Ctrl-C is 130 on every command: " + err.current)
        try assertValid(out.current, schema: "watch", lines: true, "watch --json")
        XCTAssertTrue(out.current.contains(#""modified_by":"bob""#), out.current)
    }

    /// Issue 54: `watch --json` left out the fields it did not know (a deletion had only
    /// `change`, `path_display` and `name`), where docs/cli.md says every field is there, null
    /// when unknown.
    func testWatchJSONCarriesEveryFieldNullWhenUnknown() throws {
        let watch = try cli.start(["watch", "/byteclub", "--json"] + ann)
        let out = PipeTail(watch.standardOutput as! Pipe)
        let err = PipeTail(watch.standardError as! Pipe)
        XCTAssertNotNil(err.wait(for: "watching"), err.current)
        let file = base.appendingPathComponent("gone.txt")
        try Data("soon gone".utf8).write(to: file)
        XCTAssertEqual(try cli.run(["put", file.path, "/byteclub/"] + bob).status, 0)
        XCTAssertNotNil(out.wait(for: #""change":"added""#), out.current + err.current)
        XCTAssertEqual(try cli.run(["rm", "/byteclub/gone.txt"] + bob).status, 0)
        XCTAssertNotNil(out.wait(for: #""change":"deleted""#), out.current + err.current)
        watch.interrupt()
        watch.waitForExit(within: 30)
        XCTAssertEqual(watch.terminationStatus, 130, err.current)
        try assertValid(out.current, schema: "watch", lines: true, "watch --json")

        let fields: Set<String> = ["change", "path_display", "from_path_display", "name", "kind", "rev", "size", "modified", "modified_by",
                                   "modified_by_id"]
        let objects = try out.current.split(separator: "\n").map { line in
            try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any], String(line))
        }
        XCTAssertGreaterThanOrEqual(objects.count, 2, out.current)
        for object in objects { XCTAssertEqual(Set(object.keys), fields, "every field, every line: \(object)") }
        let added = try XCTUnwrap(objects.first { $0["change"] as? String == "added" })
        XCTAssertEqual(added["kind"] as? String, "file")
        XCTAssertEqual(added["modified_by"] as? String, "bob")
        let deleted = try XCTUnwrap(objects.first { $0["change"] as? String == "deleted" })
        XCTAssertEqual(deleted["path_display"] as? String, "/byteclub/gone.txt")
        XCTAssertEqual(deleted["name"] as? String, "gone.txt")
        for key in ["kind", "rev", "size", "modified", "modified_by", "modified_by_id", "from_path_display"] {
            XCTAssertTrue(deleted[key] is NSNull, "\(key) is null for a deletion: \(deleted)")
        }
    }

    /// Issue 54: `watch` printed a move as a deletion and an addition (a folder's as the
    /// folder's deletion and a line for everything in it). A file or folder moved is one
    /// `renamed OLD -> NEW` line, `by NAME` when the move made a revision (a moved file's is its
    /// mover's), and in `--json` `"change":"renamed"` with the old path in `from_path_display`.
    func testWatchSaysAMoveAsOneRenamedLine() throws {
        let text = try cli.start(["watch", "/byteclub"] + ann)
        let json = try cli.start(["watch", "/byteclub", "--json"] + ann)
        let (textOut, textErr) = (PipeTail(text.standardOutput as! Pipe), PipeTail(text.standardError as! Pipe))
        let (jsonOut, jsonErr) = (PipeTail(json.standardOutput as! Pipe), PipeTail(json.standardError as! Pipe))
        XCTAssertNotNil(textErr.wait(for: "watching"), textErr.current)
        XCTAssertNotNil(jsonErr.wait(for: "watching"), jsonErr.current)
        let one = base.appendingPathComponent("one.md"), two = base.appendingPathComponent("two.md")
        try Data("Wind from the west\n".utf8).write(to: one)
        try Data("Calm\n".utf8).write(to: two)
        XCTAssertEqual(try cli.run(["put", one.path, "/byteclub/Trip/Day one.md"] + ann).status, 0)
        XCTAssertEqual(try cli.run(["put", two.path, "/byteclub/Trip/Day two.md"] + ann).status, 0)
        XCTAssertNotNil(textOut.wait(for: "added /byteclub/Trip/Day two.md by ann"), textOut.current + textErr.current)
        XCTAssertNotNil(jsonOut.wait(for: "Day two.md"), jsonOut.current + jsonErr.current)

        // Bob renames a note, then the folder.
        XCTAssertEqual(try cli.run(["mv", "/byteclub/Trip/Day one.md", "/byteclub/Trip/Day 1.md"] + bob).status, 0)
        XCTAssertNotNil(textOut.wait(for: "renamed /byteclub/Trip/Day one.md -> /byteclub/Trip/Day 1.md by bob\n"), textOut.current)
        XCTAssertEqual(try cli.run(["mv", "/byteclub/Trip", "/byteclub/Voyage"] + bob).status, 0)
        XCTAssertNotNil(textOut.wait(for: "renamed /byteclub/Trip/ -> /byteclub/Voyage/\n"), textOut.current)
        XCTAssertNotNil(jsonOut.wait(until: { $0.components(separatedBy: #""change":"renamed""#).count == 3 }), jsonOut.current)
        for process in [text, json] {
            process.interrupt()
            process.waitForExit(within: 30)
        }
        XCTAssertEqual(text.terminationStatus, 130, textErr.current)
        XCTAssertEqual(json.terminationStatus, 130, jsonErr.current)

        let lines = textOut.current.split(separator: "\n").map(String.init)
        XCTAssertFalse(lines.contains { $0.hasPrefix("deleted ") }, "a move is no deletion: \(lines)")
        XCTAssertFalse(lines.contains { $0.hasPrefix("added /byteclub/Trip/Day 1.md") }, "the renamed note is not added again: \(lines)")
        XCTAssertFalse(lines.contains { $0.hasPrefix("added /byteclub/Voyage") }, "the folder's line says where its notes went: \(lines)")

        try assertValid(jsonOut.current, schema: "watch", lines: true, "watch --json")
        let objects = try jsonOut.current.split(separator: "\n").map { line in
            try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any], String(line))
        }
        let renames = objects.filter { $0["change"] as? String == "renamed" }
        XCTAssertEqual(renames.map { $0["from_path_display"] as? String }, ["/byteclub/Trip/Day one.md", "/byteclub/Trip"])
        XCTAssertEqual(renames.map { $0["path_display"] as? String }, ["/byteclub/Trip/Day 1.md", "/byteclub/Voyage"])
        XCTAssertEqual(renames.map { $0["kind"] as? String }, ["file", "folder"])
        XCTAssertEqual(renames.first?["modified_by"] as? String, "bob", "the moved note's new revision is bob's")
        XCTAssertFalse(objects.contains { $0["change"] as? String == "deleted" }, jsonOut.current)
        for object in objects where object["change"] as? String != "renamed" {
            XCTAssertTrue(object["from_path_display"] is NSNull, "only a rename has an old path: \(object)")
        }
    }

    /// Issue 54: `rm --json` was refused (exit 64) though it printed a JSON error. It prints the
    /// entry it deleted, as it was (schema rm: an entry), and plain `rm` still prints nothing.
    func testRmWithJSONPrintsTheEntryItDeleted() throws {
        try write("bye\n", "byteclub/Bye.txt")
        let rm = try cli.run(["rm", "/byteclub/Bye.txt", "--json"] + ann)
        XCTAssertEqual(rm.status, 0, rm.stderr)
        try assertValid(rm.stdout, schema: "rm", "rm --json")
        let entry = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(rm.stdout.utf8)) as? [String: Any], rm.stdout)
        XCTAssertEqual(entry["path_display"] as? String, "/byteclub/Bye.txt")
        XCTAssertEqual(entry["kind"] as? String, "file")
        XCTAssertEqual(entry["size"] as? Int, 4)
        XCTAssertFalse(FileManager.default.fileExists(atPath: root.appendingPathComponent("byteclub/Bye.txt").path), "deleted")

        try write("again\n", "byteclub/Again.txt")
        let quiet = try cli.run(["rm", "/byteclub/Again.txt"] + ann)
        XCTAssertEqual(quiet.status, 0, quiet.stderr)
        XCTAssertEqual(quiet.stdout, "", "without --json, nothing")

        let missing = try cli.run(["rm", "/byteclub/Again.txt", "--json"] + ann)
        XCTAssertEqual(missing.status, 3, missing.stderr)
        try assertValid(missing.stdout, schema: "error", "rm --json of a missing file")
    }

    /// Issue 43: with `--json` a failure printed nothing on stdout, so a script reading JSON met
    /// an empty answer. Now it is one `{"error": …}` object (schema: error) whose exit code is the
    /// command's, beside the one line on stderr; a usage error from the parser too.
    func testAFailureWithJSONIsAnErrorObjectOnStdout() throws {
        let cases: [(arguments: [String], status: Int32, kind: String)] = [
            (["cat", "No such note", "--json"] + ann, 3, "not_found"),
            (["ls", "--json", "--server", server.url, "--token", "wrong"], 5, "unauthorized"),
            (["search", "-rain", "--json"] + ann, 64, "usage"),
            (["lss", "--json"], 64, "usage"),
        ]
        for (arguments, status, kind) in cases {
            let run = try cli.run(arguments)
            XCTAssertEqual(run.status, status, "\(arguments): \(run.stderr)")
            try assertValid(run.stdout, schema: "error", "\(arguments)")
            let object = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(run.stdout.utf8)) as? [String: Any])
            let error = try XCTUnwrap(object["error"] as? [String: Any])
            XCTAssertEqual(error["exit_code"] as? Int, Int(status), run.stdout)
            XCTAssertEqual(error["kind"] as? String, kind, run.stdout)
            let line = try XCTUnwrap(run.stderr.split(separator: "\n").last.map(String.init))
            XCTAssertEqual(run.stderr.split(separator: "\n").count, 1, "one line: \(run.stderr)")
            XCTAssertEqual("byteclub: " + (error["message"] as? String ?? ""), line)
        }
        let typo = try cli.run(["lss"])
        XCTAssertTrue(typo.stderr.contains("did you mean ls?"), typo.stderr)

        // Two notes answer to one title: exit 64, naming both; a file that cannot be read says why.
        try write("one\n", "byteclub/Twin.md")
        try write("two\n", "byteclub/twin.txt")
        let twins = try cli.run(["cat", "twin"] + ann)
        XCTAssertEqual(twins.status, 64, twins.stderr)
        XCTAssertTrue(twins.stderr.contains("/byteclub/Twin.md") && twins.stderr.contains("/byteclub/twin.txt"), twins.stderr)
        let missing = try cli.run(["put", base.appendingPathComponent("missing.txt").path, "x.md"] + ann)
        XCTAssertNotEqual(missing.status, 0)
        XCTAssertTrue(missing.stderr.hasSuffix("missing.txt: No such file or directory\n"), missing.stderr)
    }

    func testEachExitCodeSaysWhatHappened() throws {
        try write("here\n", "byteclub/Here.txt")
        let file = base.appendingPathComponent("Here.txt")
        try Data("mine\n".utf8).write(to: file)

        let missing = try cli.run(["get", "/byteclub/Nope.txt"] + ann)
        XCTAssertEqual(missing.status, 3, missing.stderr)
        XCTAssertTrue(missing.stderr.contains("Not found: /byteclub/Nope.txt (byteclub ls /byteclub lists what is there)"), missing.stderr)

        let taken = try cli.run(["put", file.path, "/byteclub/"] + ann)
        XCTAssertEqual(taken.status, 4, taken.stderr)
        XCTAssertTrue(taken.stderr.contains("/byteclub/Here.txt already exists; add --mode overwrite"), taken.stderr)
        XCTAssertFalse(taken.stderr.contains("someone else"), taken.stderr)

        let folder = try cli.run(["get", "/byteclub"] + ann)
        XCTAssertEqual(folder.status, 4, folder.stderr)
        XCTAssertTrue(folder.stderr.contains("/byteclub is a folder, not a file"), folder.stderr)
        let sharedFolder = try cli.run(["share", "/byteclub"] + ann)
        XCTAssertNotEqual(sharedFolder.status, 6, "not a network error: " + sharedFolder.stderr)

        let refused = try cli.run(["ls", "--server", server.url, "--token", "wrong"])
        XCTAssertEqual(refused.status, 5, refused.stderr)

        let malformed = try cli.run(["ls", "--server", "not a url", "--token", "t"])
        XCTAssertEqual(malformed.status, 64, malformed.stderr)

        let unknown = try cli.run(["lss"])
        XCTAssertEqual(unknown.status, 64, unknown.stderr)
        XCTAssertTrue(unknown.stderr.contains("'lss' is not a byteclub command"), unknown.stderr)
        XCTAssertTrue(unknown.stderr.contains("ls, get, put"), unknown.stderr)

        let nothing = try cli.run(["search", "zebra"] + ann)
        XCTAssertEqual(nothing.status, 1, nothing.stderr)
        XCTAssertTrue(nothing.stderr.contains("no note matches"), nothing.stderr)
        let nothingJSON = try cli.run(["search", "zebra", "--json"] + ann)
        XCTAssertEqual(nothingJSON.status, 0, nothingJSON.stderr)
        XCTAssertEqual(nothingJSON.stdout, "[]\n")

        let unreachable = try cli.run(["ls", "--server", "http://127.0.0.1:9", "--token", "t", "--timeout", "2"] + [], timeout: 120)
        XCTAssertEqual(unreachable.status, 6, unreachable.stderr)
    }

    func testStdinAndStdout() throws {
        let text = "piped " + String(repeating: "é", count: 5000) + "\n"
        let input = Pipe()
        let putting = try cli.start(["put", "-", "/byteclub/Piped.txt"] + ann, stdin: input)
        input.fileHandleForWriting.write(Data(text.utf8))
        try input.fileHandleForWriting.close()
        let putErrors = PipeTail(putting.standardError as! Pipe)
        putting.waitUntilExit()
        XCTAssertEqual(putting.terminationStatus, 0, putErrors.current)
        XCTAssertEqual(try String(contentsOf: root.appendingPathComponent("byteclub/Piped.txt"), encoding: .utf8), text)
        let get = try cli.run(["get", "/byteclub/Piped.txt", "-"] + ann)
        XCTAssertEqual(get.status, 0, get.stderr)
        XCTAssertEqual(get.stdout, text)
        XCTAssertFalse(FileManager.default.fileExists(atPath: cli.directory.appendingPathComponent("-").path), "no file named -")
    }

    /// `put --streams 4` of a 16 MiB file goes as a concurrent session of four 4 MiB blocks (it
    /// used to go over one stream below 32 MiB, whatever was asked); without the flag, as before.
    func testAnExplicitStreamsIsUsedFromNTimes4MiB() throws {
        let log = base.appendingPathComponent("serve.log")
        let logged = try ServeProcess(root: root, token: "owner-token-2", log: log, arguments: ["--member", "cat=cat-token-2"])
        let club = ["--server", logged.url, "--token", "cat-token-2"]
        let file = base.appendingPathComponent("sixteen.bin")
        try Data((0..<(16 << 20)).map { UInt8(truncatingIfNeeded: $0 &* 7) }).write(to: file)
        func appends() throws -> Int {
            try String(contentsOf: log, encoding: .utf8).components(separatedBy: "upload_session/append").count - 1
        }
        let plain = try cli.run(["put", file.path, "/byteclub/plain.bin"] + club)
        XCTAssertEqual(plain.status, 0, plain.stderr)
        let before = try appends()
        let four = try cli.run(["put", file.path, "/byteclub/four.bin", "--streams", "4"] + club)
        XCTAssertEqual(four.status, 0, four.stderr)
        XCTAssertEqual(try appends() - before, 4, "four blocks, one per stream")
        XCTAssertEqual(try Data(contentsOf: root.appendingPathComponent("byteclub/four.bin")), try Data(contentsOf: file))
    }

    /// 200 files up, down, three changed, up again: only those three go.
    func testFolderRoundTripSendsOnlyWhatChanged() throws {
        let local = base.appendingPathComponent("vault")
        for index in 0..<200 {
            let url = local.appendingPathComponent(index % 4 == 0 ? "deep/n\(index).md" : "n\(index).md")
            try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
            try Data("note \(index)\n".utf8).write(to: url)
        }
        let up = try cli.run(["put", "-r", local.path, "/byteclub/vault"] + ann, timeout: 120)
        XCTAssertEqual(up.status, 0, up.stderr)
        XCTAssertTrue(up.stderr.contains("200 uploaded"), up.stderr)
        let down = try cli.run(["get", "-r", "/byteclub/vault", "copy"] + ann, timeout: 120)
        XCTAssertEqual(down.status, 0, down.stderr)
        XCTAssertEqual(try Data(contentsOf: cli.directory.appendingPathComponent("copy/deep/n8.md")), Data("note 8\n".utf8))

        for index in [1, 8, 99] {
            let url = local.appendingPathComponent(index % 4 == 0 ? "deep/n\(index).md" : "n\(index).md")
            try Data("changed \(index)\n".utf8).write(to: url)
        }
        let dry = try cli.run(["put", "-r", local.path, "/byteclub/vault", "--mode", "overwrite", "--dry-run"] + ann)
        XCTAssertEqual(dry.stdout.split(separator: "\n").count, 3, dry.stdout)
        XCTAssertTrue(dry.stderr.contains("3 would be uploaded, 197 already the same"), dry.stderr)
        let add = try cli.run(["put", "-r", local.path, "/byteclub/vault"] + ann)
        XCTAssertEqual(add.status, 4, "changed files are not replaced without --mode overwrite: " + add.stderr)
        let again = try cli.run(["put", "-r", local.path, "/byteclub/vault", "--mode", "overwrite"] + ann, timeout: 120)
        XCTAssertEqual(again.status, 0, again.stderr)
        XCTAssertTrue(again.stderr.contains("3 uploaded"), again.stderr)
        XCTAssertTrue(again.stderr.contains("197 already the same"), again.stderr)
        XCTAssertEqual(try String(contentsOf: root.appendingPathComponent("byteclub/vault/n99.md"), encoding: .utf8), "changed 99\n")
        let fetch = try cli.run(["get", "-r", "/byteclub/vault", "copy"] + ann, timeout: 120)
        XCTAssertTrue(fetch.stderr.contains("3 downloaded"), fetch.stderr)
        XCTAssertEqual(try Data(contentsOf: cli.directory.appendingPathComponent("copy/deep/n8.md")), Data("changed 8\n".utf8))
    }
}
