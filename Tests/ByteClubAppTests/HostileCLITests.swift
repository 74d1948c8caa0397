import Foundation
import Remote
import XCTest

/// The `byteclub` binary against a hostile server (``HostileServer``), run as a script runs it:
/// `ls` prints no escape, BEL or C1 character while `ls --json` keeps the names exactly, error
/// bodies are escaped on stderr, `get` never writes outside the folder it saves to, and an
/// endless listing ends with an error.
final class HostileCLITests: XCTestCase {
    var server: HostileServer?
    var base: URL!
    var work: URL!
    var environment: [String: String] = [:]

    override func setUp() async throws {
        base = FileManager.default.temporaryDirectory.appendingPathComponent("byteclub-hostile-cli-\(UUID().uuidString)")
        work = base.appendingPathComponent("a/b/work")
        try FileManager.default.createDirectory(at: work, withIntermediateDirectories: true)
        try FileManager.default.createDirectory(at: base.appendingPathComponent("tmp"), withIntermediateDirectories: true)
        let home = base.appendingPathComponent("home")
        var environment = ProcessInfo.processInfo.environment
        environment["HOME"] = home.path
        for (variable, folder) in [("XDG_DATA_HOME", "data"), ("XDG_STATE_HOME", "state"), ("XDG_CONFIG_HOME", "config"), ("XDG_CACHE_HOME", "cache")] {
            environment[variable] = home.appendingPathComponent(folder).path
        }
        environment["TMPDIR"] = base.appendingPathComponent("tmp").path
        environment["BYTECLUB_TOKEN"] = "t"
        self.environment = environment
        server = try await HostileServer(resultName: "../../evil.jpg")
    }

    override func tearDown() async throws {
        server?.stop()
        try? FileManager.default.removeItem(at: base)
    }

    private func byteclub(_ arguments: String...) throws -> ByteclubRun {
        try ByteclubRun.run(arguments + ["--server", server!.baseURL.absoluteString, "--timeout", "5"], in: work, environment: environment)
    }

    func testLsPrintsNoTerminalControlsAndJSONKeepsTheNamesExactly() throws {
        let human = try byteclub("ls", "/byteclub")
        XCTAssertEqual(human.status, 0, human.err)
        XCTAssertEqual(terminalControls(in: human.stdout), [], human.out)
        XCTAssertEqual(terminalControls(in: human.stderr), [], human.err)
        XCTAssertEqual(human.out.split(separator: "\n").count, HostileServer.terminalNames.count, "one line per name: \(human.out)")
        XCTAssertTrue(human.out.contains(#"\x1b]0;PWNED\x07.txt"#), human.out)
        XCTAssertTrue(human.out.contains(#"\x1b]52;c;cHduZWQ=\x07clip.txt"#), human.out)
        XCTAssertTrue(human.out.contains(#"c1\x9b31mred\x85\x9d0;x\x9c.txt"#), human.out)
        XCTAssertTrue(human.out.contains(#"del\x7fand\x0anewline.txt"#), human.out)

        let json = try byteclub("ls", "/byteclub", "--json")
        XCTAssertEqual(json.status, 0, json.err)
        XCTAssertEqual(terminalControls(in: json.stdout), [], json.out)
        let entries = try XCTUnwrap(JSONSerialization.jsonObject(with: json.stdout) as? [[String: Any]], json.out)
        XCTAssertEqual(Set(entries.compactMap { $0["name"] as? String }), Set(HostileServer.terminalNames), "the names exactly")
    }

    func testErrorBodiesAndRefusedListingsAreEscapedOnStderr() throws {
        let failed = try byteclub("ls", "/error-body")
        XCTAssertNotEqual(failed.status, 0)
        XCTAssertEqual(terminalControls(in: failed.stderr), [], failed.err)
        XCTAssertTrue(failed.err.contains(#"\x1b]0;PWNED\x07\x1b[2J\x9b31m"#), failed.err)
        XCTAssertEqual(failed.stdout, Data())

        let outside = try byteclub("ls", "/outside")
        XCTAssertNotEqual(outside.status, 0)
        XCTAssertTrue(outside.err.contains("/etc/x.jpg, which is not inside it"), outside.err)
    }

    func testAnEndlessListingEndsWithAnError() throws {
        let started = Date()
        let endless = try byteclub("ls", "/endless", "--listing-limit", "5000")
        XCTAssertNotEqual(endless.status, 0)
        XCTAssertTrue(endless.err.contains("the listing of /endless did not end after 5000 entries; stopped"), endless.err)
        XCTAssertEqual(endless.out.split(separator: "\n").count, 5000, "each page printed as it came, up to the cap and not past it")
        XCTAssertTrue(endless.out.hasSuffix("f49-99.txt\n"), String(endless.out.suffix(200)))
        // 100 entries a page: stopped on the first page past 5000. The next page is asked while
        // one is checked (`ls` pipelines its pages), so its request may have gone out too.
        XCTAssertTrue((51...52).contains(server!.counts.listPages), "\(server!.counts.listPages) pages asked")
        XCTAssertLessThan(Date().timeIntervalSince(started), 20)

        let repeated = try byteclub("ls", "/same-cursor")
        XCTAssertNotEqual(repeated.status, 0)
        XCTAssertTrue(repeated.err.contains("same cursor twice"), repeated.err)
    }

    /// `ls` prints each page as it arrives, so an endless listing runs in constant memory until
    /// the cap stops it (it once held every entry first: 532 MiB at the 1,000,000 cap): 100,000
    /// entries cost no more than a listing of ten, give or take a few pages' worth.
    /// What is bounded is what `ls` allocates (`RssAnon`) and how far its peak resident memory
    /// rises above a listing of ten's. Its resident memory alone is not: about 45 MiB of it are
    /// the pages of the debug binary's code and of the shared libraries, more or fewer of them
    /// counted as the page cache holds them (a listing of ten read 49 to 53 MiB on one machine
    /// in one hour), so a bound on it failed a loaded CI run by 1 % twice.
    func testAnEndlessListingIsPrintedInConstantMemory() throws {
        func ls(_ arguments: [String]) throws -> ByteclubRun {
            try ByteclubRun.run(arguments + ["--server", server!.baseURL.absoluteString, "--timeout", "5"],
                                in: work, environment: environment, timeout: 120, samplingMemory: true)
        }
        let small = try ls(["ls", "/byteclub", "--json"])
        XCTAssertEqual(small.status, 0, small.err)
        let baseline = try XCTUnwrap(small.peakMemory, "no memory reading")
        let baselineAllocated = try XCTUnwrap(small.peakAllocated, "no memory reading")
        for format in [[], ["--json"]] {
            let run = try ls(["ls", "/endless-wide", "--listing-limit", "100000"] + format)
            XCTAssertNotEqual(run.status, 0, "\(format)")
            XCTAssertTrue(run.err.contains("did not end after 100000 entries; stopped"), run.err)
            if format.isEmpty {
                XCTAssertEqual(run.out.split(separator: "\n").count, 100_000)
            } else {
                XCTAssertTrue(run.out.hasPrefix("[{"), String(run.out.prefix(100)))
                XCTAssertEqual(run.out.components(separatedBy: "\"name\":").count - 1, 100_000, "every entry up to the cap, as JSON")
            }
            let peak = try XCTUnwrap(run.peakMemory, "no memory reading")
            let allocated = try XCTUnwrap(run.peakAllocated, "no memory reading")
            print("ls \(format) of 100,000 entries: peak \(peak >> 20) MiB, \(allocated >> 20) MiB of it allocated;"
                  + " a listing of ten \(baseline >> 20) MiB, \(baselineAllocated >> 20) MiB allocated")
            XCTAssertLessThanOrEqual(allocated, 24 << 20, "\(format): \(allocated >> 20) MiB allocated")
            XCTAssertLessThanOrEqual(allocated - baselineAllocated, 12 << 20,
                                     "\(format): \(allocated >> 20) MiB allocated against \(baselineAllocated >> 20) MiB for ten entries")
            XCTAssertLessThanOrEqual(peak - baseline, 16 << 20, "\(format): \(peak >> 20) MiB against \(baseline >> 20) MiB for ten entries")
        }
    }

    func testGetNeverWritesOutsideTheFolderItSavesTo() throws {
        let outsideTarget = URL(fileURLWithPath: "/etc/x.jpg")
        let outsideExisted = FileManager.default.fileExists(atPath: outsideTarget.path)
        let into = work.appendingPathComponent("into")
        try FileManager.default.createDirectory(at: into, withIntermediateDirectories: true)
        let before = FileTree.list(base)

        // The name comes from the remote path (perhaps pasted from a hostile listing); the
        // server's Dropbox-API-Result calls every file ../../evil.jpg, which is never used.
        let cases: [(arguments: [String], saved: String, renamed: Bool)] = [
            (["get", "/byteclub/photos/plain.jpg"], "a/b/work/plain.jpg", false),
            (["get", "/byteclub/photos/..\\..\\evil.jpg"], "a/b/work/evil.jpg", true),
            (["get", "/byteclub/photos/.."], "a/b/work/download", true),
            (["get", "/byteclub/photos/\u{1B}]0;PWNED\u{07}.jpg"], "a/b/work/_]0;PWNED_.jpg", true),
            (["get", "/byteclub/photos/c1\u{9B}2J.jpg", "into"], "a/b/work/into/c1_2J.jpg", true),
        ]
        for (arguments, saved, renamed) in cases {
            let run = try ByteclubRun.run(arguments + ["--server", server!.baseURL.absoluteString], in: work, environment: environment)
            XCTAssertEqual(run.status, 0, run.err)
            XCTAssertEqual(terminalControls(in: run.stderr), [], run.err)
            XCTAssertEqual(run.err.contains("is not a safe") || run.err.contains("saving \""), renamed, run.err)
            XCTAssertEqual(try? Data(contentsOf: base.appendingPathComponent(saved)), HostileServer.photoBytes, saved)
        }

        let (changed, gone) = FileTree.changes(before, FileTree.list(base))
        XCTAssertEqual(gone, [])
        // The temp folder holds the downloads while they run; everything else new is a saved file.
        let saved = changed.filter { !$0.hasPrefix("tmp/") }
        XCTAssertEqual(Set(saved), Set(cases.map(\.saved)), "written outside the folders saved to")
        XCTAssertEqual(changed.filter { $0.hasPrefix("tmp/") }, [], "no temp file is left")
        XCTAssertFalse(FileManager.default.fileExists(atPath: base.appendingPathComponent("a/evil.jpg").path))
        if !outsideExisted { XCTAssertFalse(FileManager.default.fileExists(atPath: outsideTarget.path), "/etc/x.jpg was written") }
    }
}
