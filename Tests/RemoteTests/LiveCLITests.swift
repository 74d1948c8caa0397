import ClubServer
import Foundation
import Remote
import TestSupport
import XCTest

/// Everything a running process has written to one of its pipes so far, read on a background
/// thread, with a way to wait (with a deadline) for some text to appear.
final class PipeTail: @unchecked Sendable {
    // @unchecked Sendable: `text` is only touched while holding `lock`.
    private let lock = NSLock()
    private var text = ""

    init(_ pipe: Pipe) {
        let handle = pipe.fileHandleForReading
        Thread.detachNewThread { [self] in
            while true {
                let chunk = handle.availableData
                if chunk.isEmpty { return }
                lock.withLock { text += String(decoding: chunk, as: UTF8.self) }
            }
        }
    }

    var current: String { lock.withLock { text } }

    /// Polls until `predicate` holds for the text so far or `timeout` passes; answers when it
    /// first held, or nil.
    func wait(timeout: TimeInterval = 10, until predicate: (String) -> Bool) -> ContinuousClock.Instant? {
        let deadline = Date().addingTimeInterval(timeout)
        while Date() < deadline {
            if predicate(current) { return .now }
            usleep(2_000)
        }
        return predicate(current) ? .now : nil
    }

    func wait(for needle: String, timeout: TimeInterval = 10) -> ContinuousClock.Instant? {
        wait(timeout: timeout) { $0.contains(needle) }
    }
}

/// `byteclub watch`, `log`, `restore` and `cp`: the built binary against a club server on
/// loopback, changes made by other processes (this test, or another `byteclub`).
final class LiveCLITests: XCTestCase {
    var club: LiveClub!
    var cli: CLI!

    override func setUp() async throws {
        club = try await LiveClub()
        cli = try Self.cli(in: club.base)
    }

    override func tearDown() async throws {
        await club?.close()
    }

    static func cli(in base: URL) throws -> CLI {
        let home = base.appendingPathComponent("home")
        let work = base.appendingPathComponent("work")
        try FileManager.default.createDirectory(at: work, withIntermediateDirectories: true)
        try FileManager.default.createDirectory(at: base.appendingPathComponent("tmp"), withIntermediateDirectories: true)
        var environment = ProcessInfo.processInfo.environment
        environment["HOME"] = home.path
        for (name, folder) in [("XDG_DATA_HOME", "data"), ("XDG_STATE_HOME", "state"), ("XDG_CONFIG_HOME", "config"), ("XDG_CACHE_HOME", "cache")] {
            environment[name] = home.appendingPathComponent(folder).path
        }
        environment["TMPDIR"] = base.appendingPathComponent("tmp").path
        environment["BYTECLUB_TOKEN"] = nil
        return CLI(environment: environment, directory: work)
    }

    func server(_ member: ClubMember = LiveClub.alice) -> [String] {
        ["--server", club.server.baseURL.absoluteString, "--token", member.token]
    }

    /// Starts `byteclub watch` and waits until it holds its cursor.
    func startWatch(_ extra: [String] = []) throws -> (Process, stdout: PipeTail, stderr: PipeTail) {
        let process = try cli.start(["watch", "/byteclub"] + extra + server())
        let out = PipeTail(process.standardOutput as! Pipe)
        let err = PipeTail(process.standardError as! Pipe)
        guard err.wait(for: "watching /byteclub", timeout: 20) != nil else {
            process.terminate()
            XCTFail("watch did not start: \(err.current)")
            throw CouldNotCheck("watch did not start")
        }
        return (process, out, err)
    }

    /// Ctrl-C, and the watch ends at once with status 130 (as every command: docs/cli.md).
    func interrupt(_ process: Process) {
        process.interrupt()
        let deadline = Date().addingTimeInterval(5)
        while process.isRunning && Date() < deadline { usleep(2_000) }
        XCTAssertFalse(process.isRunning, "Ctrl-C ends the watch")
        if process.isRunning { process.terminate() } else { XCTAssertEqual(process.terminationStatus, 130) }
    }

    /// A file's line ends with who made the change (`by bob`): people read names (docs/cli.md).
    func testWatchPrintsEachChangeWithinASecond() throws {
        let (watch, out, _) = try startWatch()
        // A change made by another process: `byteclub put`.
        let local = cli.directory.appendingPathComponent("hello.txt")
        try Data("hello\n".utf8).write(to: local)
        let put = try cli.run(["put", local.path, "/byteclub/"] + server(LiveClub.bob))
        XCTAssertEqual(put.status, 0, put.stderr)
        let putDone = ContinuousClock.now
        let added = out.wait(for: "added /byteclub/hello.txt by ")
        XCTAssertNotNil(added, out.current)
        if let added { XCTAssertLessThan(added - putDone, .seconds(1), "printed within a second of the change") }

        // And through the server from this process: a change, then a folder and a deletion.
        // The change is seen before the deletion is made: a deletion that lands before the
        // watch's next `continue` rightly collapses the two into one line.
        let bob = club.store(LiveClub.bob)
        let uploaded = DispatchSemaphore(value: 0)
        Task {
            _ = try? await bob.upload(data: Data("hello again\n".utf8), to: "/byteclub/hello.txt", mode: .overwrite, autorename: false)
            uploaded.signal()
        }
        XCTAssertEqual(uploaded.wait(timeout: .now() + 10), .success)
        let changed = out.wait(for: "changed /byteclub/hello.txt by ")
        XCTAssertNotNil(changed, out.current)
        let removed = DispatchSemaphore(value: 0)
        Task {
            _ = try? await bob.createFolder("/byteclub/photos")
            _ = try? await bob.delete("/byteclub/hello.txt")
            removed.signal()
        }
        XCTAssertEqual(removed.wait(timeout: .now() + 10), .success)
        let deleted = out.wait(for: "deleted /byteclub/hello.txt\n")
        XCTAssertNotNil(deleted, out.current)
        XCTAssertTrue(out.current.contains("added /byteclub/photos/\n"), out.current)
        XCTAssertEqual(out.current.split(separator: "\n").count, 4, "one line per change, nothing twice: \(out.current)")
        interrupt(watch)
    }

    /// The watched folder itself is never in its listing; deleting it is still a line.
    func testWatchSaysWhenTheWatchedFolderIsDeleted() async throws {
        let (watch, out, _) = try startWatch()
        _ = try await club.store(LiveClub.bob).upload(data: Data("x".utf8), to: "/byteclub/x.txt", mode: .add, autorename: false)
        XCTAssertNotNil(out.wait(for: "added /byteclub/x.txt by "), out.current)
        _ = try await club.store(LiveClub.bob).delete("/byteclub")
        let lines = { out.current.split(separator: "\n").map(String.init) }
        XCTAssertNotNil(out.wait { _ in lines().contains("deleted /byteclub") }, out.current)
        interrupt(watch)
    }

    func testWatchJSONLines() async throws {
        let (watch, out, _) = try startWatch(["--json"])
        let bob = club.store(LiveClub.bob)
        let entry = try await bob.upload(data: Data("x".utf8), to: "/byteclub/J.txt", mode: .add, autorename: false)
        let account = try await bob.currentAccount()
        XCTAssertNotNil(out.wait(for: "\n"), out.current)
        let line = try XCTUnwrap(out.current.split(separator: "\n").first)
        let object = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
        XCTAssertEqual(object["change"] as? String, "added")
        XCTAssertEqual(object["path_display"] as? String, "/byteclub/J.txt")
        XCTAssertEqual(object["name"] as? String, "J.txt")
        XCTAssertEqual(object["kind"] as? String, "file")
        XCTAssertEqual(object["rev"] as? String, entry.rev)
        XCTAssertEqual(object["size"] as? Int, 1)
        XCTAssertEqual(object["modified_by_id"] as? String, account.id)
        XCTAssertEqual(object["modified_by"] as? String, account.displayName, "the member's name beside the id")
        interrupt(watch)
    }

    func testWatchSaysWhenTheServerIsGoneAndCarriesOnWhenItIsBack() async throws {
        let port = club.server.port
        let base = club.base
        let (watch, out, err) = try startWatch()
        await club.close(removing: false)
        XCTAssertNotNil(err.wait(for: "trying again in", timeout: 10), err.current)
        XCTAssertTrue(err.current.contains("Network error"), err.current)
        XCTAssertTrue(watch.isRunning, "a dead server does not end the watch")

        // The same server again, on the same port and folder: the watch's cursor still holds.
        club = try await LiveClub(port: port, base: base)
        XCTAssertNotNil(err.wait(for: "connected again", timeout: 10), err.current)
        _ = try await club.store(LiveClub.bob).upload(data: Data("back".utf8), to: "/byteclub/back.txt", mode: .add, autorename: false)
        XCTAssertNotNil(out.wait(for: "added /byteclub/back.txt by "), out.current + err.current)
        interrupt(watch)
    }

    func testWatchListsAgainAfterAReset() async throws {
        // The journal keeps 2 records. The watch is stopped (SIGSTOP) while 12 commits go by,
        // so its cursor falls out of the journal: on waking it gets `reset`, lists the folder
        // again and prints what differs from what it had seen, each file once.
        await club.close()
        club = try await LiveClub { $0.journalLimit = 2 }
        cli = try Self.cli(in: club.base)
        let alice = club.store(LiveClub.alice)
        _ = try await alice.upload(data: Data("x".utf8), to: "/byteclub/Gone.txt", mode: .add, autorename: false)
        let kept = try await alice.upload(data: Data("x".utf8), to: "/byteclub/kept.txt", mode: .add, autorename: false)
        let (watch, out, err) = try startWatch()
        kill(watch.processIdentifier, SIGSTOP)
        let bob = club.store(LiveClub.bob)
        for index in 0..<12 {
            _ = try await bob.upload(data: Data("\(index)".utf8), to: "/byteclub/n\(index).txt", mode: .add, autorename: false)
        }
        _ = try await bob.delete("/byteclub/gone.txt")
        _ = try await bob.upload(data: Data("y".utf8), to: "/byteclub/kept.txt", mode: .update(rev: try XCTUnwrap(kept.rev)), autorename: false)
        kill(watch.processIdentifier, SIGCONT)
        let all = out.wait { text in
            (0..<12).allSatisfy { text.contains("added /byteclub/n\($0).txt by ") } && text.contains("deleted /byteclub/Gone.txt\n")
                && text.contains("changed /byteclub/kept.txt by ")
        }
        XCTAssertNotNil(all, out.current + err.current)
        // stderr is read by its own reader: the message may land after stdout's lines.
        XCTAssertNotNil(err.wait { $0.contains("the server reset the watch; listing /byteclub again") }, err.current)
        XCTAssertEqual(out.current.split(separator: "\n").count, 14, out.current)
        interrupt(watch)
    }

    func testLogRestoreAndCp() async throws {
        let alice = club.store(LiveClub.alice)
        let bob = club.store(LiveClub.bob)
        let first = try await alice.upload(data: Data("one\n".utf8), to: "/byteclub/a.txt", mode: .add, autorename: false)
        let second = try await bob.upload(data: Data("two, longer\n".utf8), to: "/byteclub/a.txt", mode: .overwrite, autorename: false)
        let bobID = try await bob.currentAccount().id

        let log = try cli.run(["log", "/byteclub/a.txt"] + server())
        XCTAssertEqual(log.status, 0, log.stderr)
        let lines = log.stdout.split(separator: "\n").map(String.init)
        XCTAssertEqual(lines.count, 2, log.stdout)
        XCTAssertTrue(lines[0].hasPrefix(try XCTUnwrap(second.rev)), "newest first: \(log.stdout)")
        XCTAssertTrue(lines[0].hasSuffix("Bob"), "the member's name, not \(bobID): " + lines[0])
        XCTAssertTrue(lines[1].hasPrefix(try XCTUnwrap(first.rev)), log.stdout)
        XCTAssertTrue(lines[1].hasSuffix("you (Alice Liddell)"), lines[1])
        XCTAssertTrue(lines[1].contains("4 B"), lines[1])

        let json = try cli.run(["log", "/byteclub/a.txt", "--json", "--limit", "1"] + server())
        let revisions = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [[String: Any]])
        XCTAssertEqual(revisions.map { $0["rev"] as? String }, [second.rev])

        let old = try cli.run(["get", "rev:" + (first.rev ?? ""), "old.txt"] + server())
        XCTAssertEqual(old.status, 0, old.stderr)
        XCTAssertEqual(try String(contentsOf: cli.directory.appendingPathComponent("old.txt"), encoding: .utf8), "one\n")

        let restore = try cli.run(["restore", "/byteclub/a.txt", try XCTUnwrap(first.rev)] + server())
        XCTAssertEqual(restore.status, 0, restore.stderr)
        XCTAssertTrue(restore.stderr.contains("restored /byteclub/a.txt to \(first.rev ?? "")"), restore.stderr)
        XCTAssertEqual(try String(contentsOf: club.root.appendingPathComponent("byteclub/a.txt"), encoding: .utf8), "one\n")

        let copy = try cli.run(["cp", "/byteclub/a.txt", "/byteclub/b.txt"] + server())
        XCTAssertEqual(copy.status, 0, copy.stderr)
        XCTAssertEqual(copy.stdout, "/byteclub/b.txt\n")
        XCTAssertEqual(try String(contentsOf: club.root.appendingPathComponent("byteclub/b.txt"), encoding: .utf8), "one\n")
        let intoFolder = try cli.run(["cp", "/byteclub/a.txt", "/byteclub/archive/"] + server())
        XCTAssertEqual(intoFolder.stdout, "/byteclub/archive/a.txt\n", intoFolder.stderr)
    }

    func testBadInputGetsClearMessagesAndNonZeroExits() async throws {
        let note = try await club.store().upload(data: Data("a".utf8), to: "/byteclub/a.txt", mode: .add, autorename: false)
        _ = try await club.store().upload(data: Data("b".utf8), to: "/byteclub/b.txt", mode: .add, autorename: false)

        let missing = try cli.run(["log", "/byteclub/missing.txt"] + server())
        XCTAssertEqual(missing.status, 3)
        XCTAssertEqual(missing.stderr, "byteclub: Not found: /byteclub/missing.txt (byteclub ls /byteclub lists what is there)\n")

        let unknown = try cli.run(["restore", "/byteclub/a.txt", "0123456789abcdef"] + server())
        XCTAssertEqual(unknown.status, 3)
        XCTAssertEqual(unknown.stderr, "byteclub: Not found: rev 0123456789abcdef of /byteclub/a.txt\n")
        let garbage = try cli.run(["restore", "/byteclub/a.txt", "\u{1B}[2J"] + server())
        XCTAssertNotEqual(garbage.status, 0)
        XCTAssertTrue(garbage.stderr.contains("is not a rev"), garbage.stderr)
        XCTAssertFalse(garbage.stderr.contains("\u{1B}"), "the terminal never sees the escape")

        let onto = try cli.run(["cp", "/byteclub/a.txt", "/byteclub/b.txt"] + server())
        XCTAssertEqual(onto.status, 4)
        XCTAssertEqual(onto.stderr, "byteclub: /byteclub/b.txt already exists; choose another name or add --autorename\n")
        XCTAssertEqual(try String(contentsOf: club.root.appendingPathComponent("byteclub/b.txt"), encoding: .utf8), "b", "nothing replaced")
        let gone = try cli.run(["cp", "/byteclub/nope.txt", "/byteclub/c.txt"] + server())
        XCTAssertEqual(gone.status, 3)
        XCTAssertEqual(gone.stderr, "byteclub: Not found: /byteclub/nope.txt (byteclub ls /byteclub lists what is there)\n")

        let badLimit = try cli.run(["log", "/byteclub/a.txt", "--limit", "0"] + server())
        XCTAssertNotEqual(badLimit.status, 0)
        XCTAssertTrue(badLimit.stderr.contains("--limit"), badLimit.stderr)
        let badPoll = try cli.run(["watch", "--poll-timeout", "5"] + server())
        XCTAssertNotEqual(badPoll.status, 0)
        XCTAssertTrue(badPoll.stderr.contains("--poll-timeout"), badPoll.stderr)
        let watchMissing = try cli.run(["watch", "/byteclub/nope"] + server(), timeout: 20)
        XCTAssertEqual(watchMissing.status, 3, watchMissing.stderr)
        XCTAssertTrue(watchMissing.stderr.contains("Not found: /byteclub/nope"), watchMissing.stderr)
        XCTAssertNotNil(note.rev)
    }

    func testHelpForEachNewCommand() throws {
        for (command, words) in [("log", "revisions"), ("restore", "earlier revision"), ("cp", "Copy"), ("watch", "--json")] {
            let help = try cli.run([command, "--help"])
            XCTAssertEqual(help.status, 0, help.stderr)
            XCTAssertTrue(help.stdout.contains(words), "\(command) --help: \(help.stdout)")
        }
        let top = try cli.run(["--help"])
        for command in ["log", "restore", "cp", "watch"] { XCTAssertTrue(top.stdout.contains("  \(command) "), top.stdout) }
    }
}
