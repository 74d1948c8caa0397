import Foundation
import TestSupport
import XCTest

/// Another member's `put -r` with an app open (issue 56): the app takes the burst of commits a
/// change page a second (the server's longpoll asks a backoff) and shows each page in the list,
/// but indexes the new notes once the burst has passed, not a sync per page (each sync read its
/// notes from the server beside the uploads, and slowed them). Nothing is left out: every note
/// of the burst is searchable after it.
final class BurstIndexEndToEndTests: XCTestCase {
    static let notes = 1_000
    var club: TwoMemberClub!

    override func tearDown() {
        club?.close()
    }

    func testAnotherMembersPutIsListedAsItComesAndIndexedOnceItHasPassed() throws {
        club = try TwoMemberClub(notes: ["Welcome.md": "# Welcome\nThe club's first note.\n"])
        let ray = try club.launch(.ray)
        ray.waitFor("Welcome")
        let log = club.app(.ray).log
        AppHarness.eventually("ray's first index sync", timeout: 60) { !BigClubEndToEndTests.indexed(in: log).isEmpty }
        let before = Self.lines(in: log)

        // Ann's folder of new notes, each with a word of its own.
        let folder = club.base.appendingPathComponent("ann-notes/Burst")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        for n in 0..<Self.notes {
            try Data("Burst \(n): burstword\(n)\n".utf8).write(to: folder.appendingPathComponent(String(format: "Burst %04d.md", n)))
        }
        let put = try club.app(.ann).cli(["put", "-r", folder.path, "/byteclub/", "--server", club.url, "--token", club.token(of: .ann)],
                                        within: 300)
        XCTAssertEqual(put.status, 0, put.stderr)

        // Every note of the burst reaches ray's index, and search finds the last one.
        AppHarness.eventually("the burst's notes indexed", timeout: 120) {
            BigClubEndToEndTests.indexed(in: log).reduce(0, +) >= Self.notes + 1
        }
        let last = "burstword\(Self.notes - 1)"
        try ray.press("C-f")
        ray.waitFor("Search every note")
        try ray.type(last)
        ray.waitFor(String(format: "Burst %04d", Self.notes - 1))

        let during = Array(Self.lines(in: log).dropFirst(before.count))
        let pages = during.filter { $0.contains("live notes") }
        let syncs = during.filter { $0.contains("search index synced") }
        XCTAssertGreaterThanOrEqual(pages.count, 2, "the burst came in pages: \(during.joined(separator: "\n"))")
        // A sync a page would make as many syncs as pages; one after the burst (or one each
        // 30 s of a long one, BurstWindow.longest, or one in a pause of a loaded machine's
        // uploads) makes half as many at most.
        XCTAssertLessThanOrEqual(syncs.count, max(1, (pages.count + 1) / 2), "\(pages.count) pages, syncs: \(syncs.joined(separator: "\n"))")
    }

    static func lines(in log: URL) -> [String] {
        ((try? String(contentsOf: log, encoding: .utf8)) ?? "").split(separator: "\n").map(String.init)
    }
}
