import ByteClubApp
import Dispatch
import Foundation
import Remote
import TerminalUI
import XCTest

/// Keys, tabs, filtering, the main-queue rule, and the formatting of sizes and times.
@MainActor
final class ShellBehaviourTests: XCTestCase {
    static let notes = [
        FakeStore.file("/byteclub/ideas.md", size: 1234, modified: Clock.ago(90)),
        FakeStore.file("/byteclub/Welcome.txt", size: 678, modified: Clock.ago(7200)),
        FakeStore.file("/byteclub/old.txt", size: 5, modified: Clock.ago(30 * 86_400)),
        FakeStore.file("/byteclub/binary.bin", size: 5, modified: Clock.ago(60)),
        FakeStore.file("/byteclub/photos/desk.jpeg", size: 2_500_000, modified: Clock.ago(60)),
        FakeStore.file("/byteclub/photos/readme.txt", size: 5, modified: Clock.ago(60)),
    ]

    func testRemoteResultsReachTheAppOnTheMainQueue() async throws {
        let key = DispatchSpecificKey<String>()
        DispatchQueue.main.setSpecific(key: key, value: "main")
        defer { DispatchQueue.main.setSpecific(key: key, value: nil) }
        let club = try await SampleClubServer()
        let harness = Harness(store: club.store())
        var queues: [String?] = []
        let previous = harness.app.onLoadFinished
        harness.app.onLoadFinished = { tab in
            queues.append(DispatchQueue.getSpecific(key: key))
            previous?(tab)
        }
        await harness.start()
        harness.press(.char("r"))
        await harness.waitForLoads(3)
        await club.close()
        XCTAssertEqual(queues, ["main", "main", "main"])
        XCTAssertEqual(harness.app.state.notes.entries.count, 2)
    }

    func testTabsSwitchWithTabShiftTabNumbersAndClicks() async throws {
        let harness = Harness(store: FakeStore(files: Self.notes))
        await harness.start()
        XCTAssertEqual(harness.app.state.tab, .notes)
        harness.press(.tab)
        XCTAssertEqual(harness.app.state.tab, .photos)
        harness.press(.backTab)
        XCTAssertEqual(harness.app.state.tab, .notes)
        harness.press(.char("2"))
        XCTAssertEqual(harness.app.state.tab, .photos)
        harness.press(.char("1"))
        XCTAssertEqual(harness.app.state.tab, .notes)

        let canvas = harness.render(width: 80, height: 24)
        let photos = try XCTUnwrap(canvas.position(of: "PanoPhotos"))
        harness.press(.mouse(x: photos.x + 2, y: photos.y))
        XCTAssertEqual(harness.app.state.tab, .photos)
        let notes = try XCTUnwrap(canvas.position(of: "Notes"))
        harness.press(.mouse(x: notes.x, y: notes.y))
        XCTAssertEqual(harness.app.state.tab, .notes)
    }

    func testListsShowNotesAndPhotosOnly() async throws {
        let harness = Harness(store: FakeStore(files: Self.notes))
        await harness.start()
        XCTAssertEqual(harness.app.state.notes.entries.map(\.name), ["ideas.md", "Welcome.txt", "old.txt"])
        XCTAssertEqual(harness.app.state.photos.entries.map(\.name), ["desk.jpeg"])
        let canvas = harness.render(width: 80, height: 24)
        XCTAssertTrue(canvas.line(2).hasPrefix(" ideas "), canvas.line(2))
        XCTAssertTrue(canvas.line(2).hasSuffix("1.2 KiB  1 min ago"), canvas.line(2))
        XCTAssertTrue(canvas.line(3).hasSuffix("678 B  2 h ago"), canvas.line(3))
        XCTAssertTrue(canvas.line(4).contains("2026-10-22"), canvas.line(4))
        XCTAssertEqual(harness.app.state.message, StatusMessage("3 notes"))
        harness.press(.char("2"))
        XCTAssertEqual(harness.app.state.message, StatusMessage("1 photo"))
        // A photo row is four lines tall: the thumbnail beside the name, then size and date.
        let photos = harness.render(width: 80, height: 24)
        XCTAssertTrue(photos.line(1).contains("desk.jpeg"), photos.line(1))
        XCTAssertTrue(photos.line(2).contains("2.4 MiB · 2026-11-21"), photos.line(2))
    }

    func testSlashFiltersAndTypedLettersAreNotCommands() async throws {
        let harness = Harness(store: FakeStore(files: Self.notes))
        await harness.start()
        harness.press(.char("/"), .char("w"), .char("e"), .char("l"), .char("q"), .char("2"))
        XCTAssertNil(harness.quitStatus, "q is text while filtering")
        XCTAssertEqual(harness.app.state.tab, .notes, "2 is text while filtering")
        harness.press(.backspace, .backspace)
        let canvas = harness.render(width: 80, height: 24)
        XCTAssertNotNil(canvas.position(of: "Welcome"))
        XCTAssertNil(canvas.position(of: "ideas"))
        // Of the folder's four rows: three notes and binary.bin, a file of the club (◇).
        XCTAssertNotNil(canvas.position(of: "1 of 4"))
        harness.press(.enter, .char("j"))
        XCTAssertEqual(harness.app.state.notes.list.filter, "wel")
        harness.press(.escape)
        XCTAssertEqual(harness.app.state.notes.list.filter, "")
    }

    func testStaleLoadsAreDropped() async throws {
        var state = AppState(backend: "embedded")
        let first = state.beginLoad(.notes)
        let second = state.beginLoad(.notes)
        state.finishLoad(.notes, generation: second, result: .success([FakeStore.file("/byteclub/new.txt", size: 1, modified: Clock.now)]))
        state.finishLoad(.notes, generation: first, result: .failure(.network("late")))
        XCTAssertEqual(state.notes.entries.map(\.name), ["new.txt"])
        XCTAssertNil(state.notes.error)
        XCTAssertFalse(state.isBusy)
    }

    func testFormatting() async {
        let format = Clock.format
        XCTAssertEqual(format.relative(Clock.ago(5)), "just now")
        XCTAssertEqual(format.relative(Clock.ago(-300)), "just now", "a clock a little ahead is not the future")
        XCTAssertEqual(format.relative(Clock.ago(61)), "1 min ago")
        XCTAssertEqual(format.relative(Clock.ago(3 * 3600 + 5)), "3 h ago")
        XCTAssertEqual(format.relative(Clock.ago(30 * 3600)), "yesterday")
        XCTAssertEqual(format.relative(Clock.ago(4 * 86_400)), "4 days ago")
        XCTAssertEqual(format.relative(Clock.ago(8 * 86_400)), "2026-11-13")
        XCTAssertEqual(format.relative(nil), "")
        // Sizes are the one formatter's (TerminalUI's ByteFormat), which `byteclub ls` uses too.
        XCTAssertEqual(ByteFormat.size(0), "0 B")
        XCTAssertEqual(ByteFormat.size(1023), "1023 B")
        XCTAssertEqual(ByteFormat.size(1234), "1.2 KiB")
        XCTAssertEqual(ByteFormat.size(10_650), "10.4 KiB")
        XCTAssertEqual(ByteFormat.size(183_138), "178.8 KiB")
        XCTAssertEqual(ByteFormat.size(3_635_600), "3.5 MiB")
        XCTAssertEqual(ClubLayout.title(of: "Welcome to Byte Club.txt"), "Welcome to Byte Club")
        XCTAssertEqual(ClubLayout.title(of: ".hidden"), ".hidden")
        XCTAssertEqual(ClubLayout.title(of: "v1.2 notes.md"), "v1.2 notes")
    }

    func testARelativeTimeSaysWhenItNextReadsOtherwise() async {
        let format = Clock.format
        XCTAssertEqual(format.nextChange(of: Clock.ago(5)), Clock.ago(5).addingTimeInterval(60), "just now, for a minute")
        XCTAssertEqual(format.nextChange(of: Clock.ago(-300)), Clock.now.addingTimeInterval(360), "a clock ahead: just now until a minute past it")
        XCTAssertEqual(format.nextChange(of: Clock.ago(125)), Clock.ago(125).addingTimeInterval(180), "2 min ago becomes 3 min ago")
        XCTAssertEqual(format.nextChange(of: Clock.ago(3 * 3600 + 5)), Clock.ago(3 * 3600 + 5).addingTimeInterval(4 * 3600))
        XCTAssertEqual(format.nextChange(of: Clock.ago(23 * 3600 + 10)), Clock.ago(23 * 3600 + 10).addingTimeInterval(86_400), "then yesterday")
        XCTAssertEqual(format.nextChange(of: Clock.ago(30 * 3600)), Clock.ago(30 * 3600).addingTimeInterval(2 * 86_400))
        XCTAssertEqual(format.nextChange(of: Clock.ago(4 * 86_400)), Clock.ago(4 * 86_400).addingTimeInterval(5 * 86_400))
        XCTAssertNil(format.nextChange(of: Clock.ago(8 * 86_400)), "a date never changes")
        XCTAssertNil(format.nextChange(of: nil))
        // At the moment it names, the label has changed, and not a second before.
        let ages: [TimeInterval] = [5, 59, 61, 125, 3599, 3 * 3600 + 5, 23 * 3600 + 10, 30 * 3600, 4 * 86_400, 6.5 * 86_400]
        for age in ages {
            let date = Clock.ago(age)
            guard let next = format.nextChange(of: date) else { return XCTFail("\(age)") }
            let before = DisplayFormat(now: { next.addingTimeInterval(-1) }, timeZone: format.timeZone).relative(date)
            let at = DisplayFormat(now: { next }, timeZone: format.timeZone).relative(date)
            XCTAssertEqual(before, format.relative(date), "unchanged until then (\(age) s old)")
            XCTAssertNotEqual(at, before, "changed then (\(age) s old)")
        }
    }

    func testDaysAgreeWithTheCalendarInEveryTimeZone() async {
        for zone in ["UTC", "Asia/Tokyo", "America/Los_Angeles", "Australia/Lord_Howe", "Asia/Kolkata"] {
            let timeZone = TimeZone(identifier: zone)!
            let format = DisplayFormat(now: { Clock.now }, timeZone: timeZone)
            var calendar = Calendar(identifier: .gregorian)
            calendar.timeZone = timeZone
            // Every 7 hours 13 minutes over three years, across DST changes and a leap day.
            var date = Date(timeIntervalSince1970: 1_700_000_000)
            for _ in 0..<3_600 {
                let parts = calendar.dateComponents([.year, .month, .day], from: date)
                XCTAssertEqual(format.day(date), String(format: "%04d-%02d-%02d", parts.year!, parts.month!, parts.day!), "\(zone) \(date)")
                date.addTimeInterval(7 * 3600 + 13 * 60)
            }
        }
        XCTAssertEqual(Clock.format.day(Date(timeIntervalSince1970: -1)), "1969-12-31")
    }
}
