import Foundation
import TestSupport
import XCTest

/// Full-text search in real terminals (`Ctrl-F`), on a real `byteclub serve`: a word inside one
/// of 10,000 notes is found and opened at its match, with the server up and with it gone;
/// another member's note is found with no key pressed; a damaged index file is rebuilt.
final class SearchEndToEndTests: XCTestCase {
    private var offline: OfflineClub?
    private var two: TwoMemberClub?

    override func tearDown() {
        offline?.close()
        two?.close()
    }

    static let rareWord = "zanzibarquokka"
    static let cjkWord = "ボート乗り場"
    private static let filler = ["lake", "train", "bread", "river", "window", "paper", "garden", "stone", "cloud", "ticket",
                                 "market", "bridge", "coffee", "summer", "valley", "letter", "candle", "forest", "harbour", "music"]

    /// `count` notes of about 5 KiB ("Note 0000.txt" …), each a different mix of lines of common
    /// words (from a pool made once, so 10,000 notes take little time to make); the rare word
    /// is in one of them only (line 13), the CJK word in another (line 5).
    static func club(count: Int, rareIn rare: Int, cjkIn cjk: Int) -> [String: String] {
        var seed: UInt64 = 42
        let pool: [String] = (0..<211).map { _ in
            (0..<11).map { _ in
                seed = seed &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
                return filler[Int(seed >> 33) % filler.count]
            }.joined(separator: " ")
        }
        var notes: [String: String] = [:]
        notes.reserveCapacity(count)
        for number in 0..<count {
            var lines = (0..<64).map { pool[(number &* 31 &+ $0 &* 17) % pool.count] }
            if number == rare { lines[12] = "we met at the " + rareWord + " stall by the " + lines[12] }
            if number == cjk { lines[4] = "湖の" + cjkWord + "で会おう " + lines[4] }
            notes[String(format: "Note %04d.txt", number)] = lines.joined(separator: "\n") + "\n"
        }
        return notes
    }

    /// The terminal's cursor: column and row.
    private func cursor(_ tmux: TmuxSession) throws -> (x: Int, y: Int) {
        let text = try tmux.run(["display-message", "-p", "-t", tmux.session, "#{cursor_x} #{cursor_y}"])
        let parts = text.split(whereSeparator: \.isWhitespace).compactMap { Int($0) }
        guard parts.count == 2 else { throw NSError(domain: "tmux", code: 1, userInfo: [NSLocalizedDescriptionKey: "cursor: \(text)"]) }
        return (parts[0], parts[1])
    }

    /// Searches for `query` on an open results screen (replacing what was typed) and waits for `title`.
    private func find(_ query: String, expecting title: String, line: Int, in tmux: TmuxSession, timeout: TimeInterval = 20) throws {
        try tmux.press("C-u")
        try tmux.type(query)
        tmux.waitFor("\(title) found by “\(query)”", timeout: timeout) { screen in
            screen.contains("Find: \(query)") && screen.contains(title) && screen.contains("\(line)│") && screen.contains("1 note")
        }
    }

    func testAWordInsideOneOfTenThousandNotesIsFoundOpenedAtItsMatchAndFoundOffline() throws {
        let began = Date()
        let club = try OfflineClub(notes: Self.club(count: 10_000, rareIn: 7777, cjkIn: 4242))
        offline = club
        let written = Date()
        let tmux = try club.launchRay()
        tmux.waitFor("10000 notes")
        let listed = Date()
        // The first index of the club: every note downloaded once, 8 at a time.
        tmux.waitFor("the first index", timeout: 60) { OfflineClub.statusBar($0).contains("Indexed 10,000 notes for search") }
        let indexed = Date()
        print("search e2e: 10,000 notes written in \(String(format: "%.1f", written.timeIntervalSince(began))) s, listed in "
              + "\(String(format: "%.1f", listed.timeIntervalSince(written))) s, indexed in \(String(format: "%.1f", indexed.timeIntervalSince(listed))) s")

        try tmux.press("C-f")
        tmux.waitFor("Search every note")
        try find(Self.rareWord, expecting: "Note 7777", line: 13, in: tmux)
        try tmux.press("Enter")
        // The match's line is named while the note is still opening: wait for the note's text too.
        let screen = tmux.waitFor(all: ["Search: match 1 of 1, line 13", Self.rareWord])
        // The cursor is on the match: the row that shows the word, at the word's first column.
        let rows = screen.components(separatedBy: "\n")
        guard let row = rows.firstIndex(where: { $0.contains(Self.rareWord) && !$0.contains("Search:") }),
              let column = rows[row].range(of: Self.rareWord).map({ rows[row].distance(from: rows[row].startIndex, to: $0.lowerBound) }) else {
            return XCTFail("the word is not on screen:\n\(screen)")
        }
        let at = try cursor(tmux)
        XCTAssertEqual(at.y, row, screen)
        XCTAssertEqual(at.x, column, screen)

        // Esc (the note unchanged) goes back to the results, the query kept.
        try tmux.press("Escape")
        tmux.waitFor("the results again") { $0.contains("Search every note") && $0.contains("Find: \(Self.rareWord)") }
        try find(Self.cjkWord, expecting: "Note 4242", line: 5, in: tmux)
        try tmux.press("Escape")
        tmux.waitFor("the notes list") { !$0.contains("Search every note") }

        // The server goes away: the index on this machine still answers.
        club.killServer()
        try tmux.press("C-f")
        tmux.waitFor("Search every note")
        try find(Self.rareWord, expecting: "Note 7777", line: 13, in: tmux)
        try find(Self.cjkWord, expecting: "Note 4242", line: 5, in: tmux)
        print("search e2e: searched online and offline in \(String(format: "%.1f", Date().timeIntervalSince(indexed))) s")
    }

    func testAnotherMembersNoteIsFoundWithinTwoSecondsWithNoKeyPressed() throws {
        let club = try TwoMemberClub(notes: ["Plans.txt": "Meet on Friday\n", "Lunch.txt": "Soup at noon\n"])
        two = club
        let ray = try club.launch(.ray)
        ray.waitFor("Plans")
        try ray.press("C-f")
        ray.waitFor("Search every note")
        try ray.type("pelicanfeather")
        ray.waitFor("No note has “pelicanfeather”")

        // Ann uploads a note through the API; nothing is pressed in ray's terminal after this.
        try upload("Birds", "We saw a pelicanfeather on the pier\n", as: .ann, to: club)
        let landed = Date()
        ray.waitFor("ann's note in ray's results", timeout: 5) { $0.contains("Birds") && $0.contains("1 note") && $0.contains("1│") }
        let took = Date().timeIntervalSince(landed)
        print("search e2e: another member's note found \(String(format: "%.2f", took)) s after it landed")
        XCTAssertLessThanOrEqual(took, 2, "found \(took) s after it landed")
    }

    func testADamagedIndexFileIsRebuiltWithProgressNeverACrash() throws {
        let club = try OfflineClub(notes: Self.club(count: 3_000, rareIn: 1234, cjkIn: 2345))
        offline = club
        var tmux = try club.launchRay()
        tmux.waitFor("the first index", timeout: 40) { OfflineClub.statusBar($0).contains("Indexed 3,000 notes for search") }
        try tmux.type("q")
        tmux.waitFor(club.app.exitLine(0))

        // Garbage over the index file, as a disk or another program might leave it.
        let cache = club.app.base.appendingPathComponent("cache/byteclub")
        let files = (FileManager.default.enumerator(atPath: cache.path)?.allObjects as? [String]) ?? []
        guard let index = files.first(where: { $0.hasSuffix("search.sqlite") }) else { return XCTFail("no index file: \(files)") }
        var garbage = Data(count: 64 * 1024)
        for offset in 0..<garbage.count { garbage[offset] = UInt8(truncatingIfNeeded: offset &* 7919 &+ 13) }
        try garbage.write(to: cache.appendingPathComponent(index))
        // And no write-ahead log to read the pages from instead: a first index fetched in
        // batches can quit before its checkpoint, and SQLite then finds page 1 in the log.
        for log in ["-wal", "-shm"] { try? FileManager.default.removeItem(at: cache.appendingPathComponent(index + log)) }

        tmux = try club.launchRay()
        // The progress shows while the notes are indexed again, then what was done.
        tmux.waitFor("the rebuild's progress", timeout: 40) { OfflineClub.statusBar($0).contains("Indexing ") }
        tmux.waitFor("the rebuild's end", timeout: 40) { OfflineClub.statusBar($0).contains("Rebuilt the search index: 3,000 notes") }
        try tmux.press("C-f")
        tmux.waitFor("Search every note")
        try find(Self.rareWord, expecting: "Note 1234", line: 13, in: tmux)
        XCTAssertFalse(tmux.capture().contains("BYTECLUB-EXIT=") && tmux.capture().contains("(run 2)"), "the app is still running")
    }

    /// Uploads a note as `member` through the club server's API (`byteclub put`, with a HOME of its own).
    private func upload(_ title: String, _ text: String, as member: TwoMemberClub.Member, to club: TwoMemberClub) throws {
        let local = club.base.appendingPathComponent("\(title)-\(UUID().uuidString).txt")
        try text.write(to: local, atomically: true, encoding: .utf8)
        let home = club.base.appendingPathComponent("cli-\(member.rawValue)")
        let put = Process()
        put.executableURL = try AppHarness.binary
        put.arguments = ["put", local.path, "/byteclub/\(title).txt", "--server", club.url, "--token", club.token(of: member)]
        put.environment = ["HOME": home.path, "XDG_CONFIG_HOME": home.appendingPathComponent("config").path,
                           "XDG_STATE_HOME": home.appendingPathComponent("state").path,
                           "XDG_CACHE_HOME": home.appendingPathComponent("cache").path, "PATH": "/usr/bin:/bin", "LANG": "C.UTF-8"]
        put.standardOutput = FileHandle.nullDevice
        put.standardError = FileHandle.nullDevice
        try put.run()
        let deadline = Date().addingTimeInterval(30)
        while put.isRunning, Date() < deadline { usleep(10_000) }
        if put.isRunning { put.terminate() }
        put.waitUntilExit()
        XCTAssertEqual(put.terminationStatus, 0, "byteclub put as \(member.rawValue)")
    }
}
