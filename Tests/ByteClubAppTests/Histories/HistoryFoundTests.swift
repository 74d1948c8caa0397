import Foundation
import ClubKit
import XCTest

/// Histories the generator found broken, kept as the steps that broke them (seed 103 on the club
/// server and on WebDAV, before the fix): each replays on the same world and checks the same promise.
@MainActor
final class HistoryFoundTests: XCTestCase {
    /// Ann's app saves a line offline (it waits in the outbox, its text in the note's draft); the
    /// server is back; `byteclub edit` sends the outbox, adds a line, meets that save and keeps
    /// its text as the note's draft (exit 4). The app then opened the note from the server and
    /// its journal wrote over that draft: the shell's line was gone. Now the app opens the draft
    /// it finds on disk, and a session that never journalled takes a draft of its own.
    ///
    /// Since merges take the lines both sides inserted once (2026-11-30), the shell's edit no
    /// longer meets a conflict here: its draft held the app's line too, so the only line the
    /// two disagree on is the shell's own, which is added (issue 68's "a merge that asks about
    /// a line nobody deleted"). Nothing is kept as a draft, and the app's next edit still loses
    /// nothing; a draft the shell keeps over the app's open note is the next test's.
    func testADraftTheShellKeptIsNeverWrittenOverByTheApp() async throws {
        for backend in [HistoryBackend.club, .webdav] {
            let run = try await HistoryRun(seed: 103, backend: backend)
            try await run.launch(.ann, on: 0, holdable: true)
            for step: HistoryStep in [.appNew(.ann, note: 1), .offline, .appEdit(.ann, note: 1)] {
                try await run.perform(step)
            }
            // The shell, not the app's next probe, sends the app's queued save: the app stays off
            // the club until the shell has run (on WebDAV its server can take longer to come back
            // than the app's first probe, which then sent the save before the shell met it).
            run.holdOff(.ann, true)
            for step: HistoryStep in [.online, .cliEdit(.ann, club: 0, note: 1)] {
                try await run.perform(step)
            }
            run.holdOff(.ann, false)
            try await run.perform(.appEdit(.ann, note: 1))
            let kept = run.lines.filter { $0.told == .kept }
            XCTAssertEqual(kept.count, 0, "\(backend): the shell's edit merged with the app's save, asking nothing: \(run.log)")
            XCTAssertEqual(run.lines.filter { $0.step == 5 }.map(\.told), [.saved], "\(backend): the shell's line was saved: \(run.log)")
            let broken = try await HistoryCheck.violations(of: run)
            XCTAssertEqual(broken, [], "\(backend): \(run.log.joined(separator: "\n"))")
            await run.close()
        }
    }

    /// Ann types in a note in her app and leaves it unsaved (journalled to the note's draft); bob
    /// changes it; `byteclub edit` on ann's machine opens that draft, meets bob's change and
    /// keeps its text, conflict markers and all, in the same draft file (exit 4). Ann's app
    /// then wrote its own text over that file, and its save removed it (seed 40 on WebDAV): the
    /// shell's line was gone. Now a draft file another process wrote is neither written over
    /// nor removed by the app: its text goes under an id of its own.
    func testADraftTheShellKeptOverTheAppsOpenNoteIsNeitherWrittenOverNorRemoved() async throws {
        for backend in [HistoryBackend.webdav, .club] {
            let run = try await HistoryRun(seed: 40, backend: backend)
            try await run.launch(.ann, on: 0)
            try await run.launch(.bob, on: 0)
            for step: HistoryStep in [.appNew(.bob, note: 1), .appType(.ann, note: 1), .appEdit(.bob, note: 1)] {
                try await run.perform(step)
            }
            // The shell finds ann's unsaved line in the note's draft once her app journalled it.
            let drafts = DraftStore(directory: try XCTUnwrap(run.machines[.ann]).drafts(run.keys[0]))
            let typed = try XCTUnwrap(run.lines.first { $0.step == 2 }).text
            let deadline = Date().addingTimeInterval(10)
            while drafts.load(Draft.id(forPath: "/byteclub/\(HistoryPlan.title(1)).md"))?.body.contains(typed) != true, Date() < deadline {
                try await Task.sleep(for: .milliseconds(10))
            }
            for step: HistoryStep in [.cliEdit(.ann, club: 0, note: 1), .appEdit(.ann, note: 1)] {
                try await run.perform(step)
            }
            let shell = try XCTUnwrap(run.lines.first { $0.step == 4 }, run.log.joined(separator: "\n"))
            XCTAssertEqual(shell.told, .kept, "\(backend): the shell's edit met bob's change and kept its text: \(run.log)")
            let broken = try await HistoryCheck.violations(of: run)
            XCTAssertEqual(broken, [], "\(backend): \(run.log.joined(separator: "\n"))")
            await run.close()
        }
    }

    /// Bob saves, ann removes him, bob saves again within two seconds (seed 109 on an encrypted
    /// club): the roster was read again at most every 2 s before a write, so the second save was
    /// sent and bob told "Saved" for a file every member refuses. Now every write asks for the
    /// roster's revision, and a removal seen once refuses every later write.
    func testARemovedMemberIsRefusedAtTheNextSaveHoweverSoon() async throws {
        let run = try await HistoryRun(seed: 109, backend: .encrypted)
        try await run.launch(.ann, on: 0)
        try await run.launch(.bob, on: 0)
        for step: HistoryStep in [.appNew(.bob, note: 1), .appEdit(.bob, note: 1), .removeBob, .appEdit(.bob, note: 1)] {
            try await run.perform(step)
        }
        XCTAssertTrue(run.view.bobRemoved, run.log.joined(separator: "\n"))
        let last = try XCTUnwrap(run.lines.last { $0.member == .bob })
        XCTAssertEqual(last.step, 4, run.log.joined(separator: "\n"))
        XCTAssertEqual(last.told, .kept, "bob is told his save was refused and his text kept: \(run.log)")
        let broken = try await HistoryCheck.violations(of: run)
        XCTAssertEqual(broken, [], run.log.joined(separator: "\n"))
        await run.close()
    }
}
