import ByteClubApp
import ClubServer
import Foundation
import Remote
import Synchronization
import XCTest

/// The outbox's sender against a real club server on loopback with two members: ray sends his
/// outbox while ann changes notes meanwhile.
final class OutboxSenderTests: XCTestCase {
    static let base = "a\nb\nc\nd\n"
    var club: MembersClub!
    var folder: URL!
    var outbox: Outbox!
    var drafts: DraftStore!
    var ray: (any RemoteStore)!
    var ann: (any RemoteStore)!

    override func setUp() async throws {
        club = try await MembersClub(notes: ["Plans.txt": Self.base, "Notes.txt": "first\n"])
        folder = club.base.appendingPathComponent("state")
        outbox = Outbox(directory: folder.appendingPathComponent("outbox"))
        drafts = DraftStore(directory: folder.appendingPathComponent("drafts"))
        ray = store(club.rayToken)
        ann = store(club.annToken)
    }

    override func tearDown() async throws {
        await club?.close()
    }

    /// A member's store that gives up quickly: a dead server is the sender's business, not the retry loop's.
    func store(_ token: String) -> any RemoteStore {
        var retry = RetryPolicy()
        retry.maxAttempts = 2
        retry.baseDelay = 0.05
        return DropboxStore(displayName: "club", endpoints: .club(club.server.baseURL), tokens: StaticToken(token),
                            configuration: .ephemeral, retry: retry)
    }

    func sender(_ outbox: Outbox? = nil, drafts: DraftStore?? = .none, store: (any RemoteStore)? = nil) -> OutboxSender {
        let chosen: DraftStore? = switch drafts { case .none: self.drafts; case .some(let value): value }
        return OutboxSender(store: store ?? ray, outbox: outbox ?? self.outbox, drafts: chosen, now: { Clock.now })
    }

    /// Runs the sender and collects its reports.
    func send(_ sender: OutboxSender? = nil) async -> (run: OutboxRun, reports: [OutboxReport]) {
        let collected = ReportBox()
        let run = await (sender ?? self.sender()).sendAll { collected.add($0) }
        return (run, collected.all)
    }

    func text(_ path: String) async throws -> String {
        String(decoding: try await ray.read(path).data, as: UTF8.self)
    }

    func rev(_ path: String) async throws -> String {
        let entry = try await ray.metadata(path)
        return try XCTUnwrap(entry.rev)
    }

    /// A result as "sent PATH REV" (entries from different calls differ in fields the server
    /// fills in only on some answers, such as who made the revision).
    static func summary(_ result: OutboxResult) -> String {
        switch result {
        case .sent(let entry): return "sent \(entry?.path ?? "-") \(entry?.rev ?? "-")"
        case .merged(let entry, _): return "merged \(entry.path) \(entry.rev ?? "-")"
        case .conflict(_, let reason): return "conflict \(reason)"
        case .refused(let reason): return "refused \(reason)"
        }
    }

    func item(_ kind: OutboxItem.Kind, _ path: String, newPath: String? = nil, baseRev: String? = nil, text: String? = nil,
              draftID: String? = nil, follows earlier: OutboxItem? = nil) -> OutboxItem {
        let title = ((newPath ?? path) as NSString).lastPathComponent.replacingOccurrences(of: ".txt", with: "")
        return OutboxItem(kind: kind, path: path, newPath: newPath, baseRev: baseRev, title: title, text: text, draftID: draftID,
                          follows: earlier?.id, queued: Clock.now)
    }

    // MARK: - Order

    func testCreatesSavesRenamesAndDeletesReachTheServerInOrder() async throws {
        let plans = try await rev("/byteclub/Plans.txt")
        let notes = try await rev("/byteclub/Notes.txt")
        // One editor's chain: each item follows the one before it.
        let created = try outbox.append(item(.create, "/byteclub/Trip.txt", text: "day 1\n"))
        // A later save of the note created offline, queued as a create too.
        let again = try outbox.append(item(.create, "/byteclub/Trip.txt", text: "day 1\nday 2\n", follows: created))
        let renamed = try outbox.append(item(.rename, "/byteclub/Trip.txt", newPath: "/byteclub/Journey.txt", follows: again))
        // A save after the rename, queued under the name the note had.
        try outbox.append(item(.save, "/byteclub/Trip.txt", text: "day 1\nday 2\nday 3\n", follows: renamed))
        try outbox.append(item(.delete, "/byteclub/Plans.txt", baseRev: plans))
        try outbox.append(item(.save, "/byteclub/Notes.txt", baseRev: notes, text: "first\nsecond\n"))

        let (run, reports) = await send()
        XCTAssertEqual(run, .done)
        XCTAssertEqual(reports.map(\.item.seq), [1, 2, 3, 4, 5, 6])
        for report in reports {
            guard case .sent = report.result else { return XCTFail("\(report.item.kind) \(report.item.path): \(report.result)") }
        }
        XCTAssertTrue(outbox.isEmpty)
        let journey = try await text("/byteclub/Journey.txt")
        XCTAssertEqual(journey, "day 1\nday 2\nday 3\n")
        let history = try await ray.revisions("/byteclub/Journey.txt", limit: 10)
        XCTAssertEqual(history.entries.count, 4, "created, saved, moved, saved: each once, in that order")
        await assertMissing("/byteclub/Trip.txt")
        await assertMissing("/byteclub/Plans.txt")
        let saved = try await text("/byteclub/Notes.txt")
        XCTAssertEqual(saved, "first\nsecond\n")
    }

    // MARK: - Never twice

    func testASaveThatReachedTheServerBeforeACrashIsNotSentAgain() async throws {
        let base = try await rev("/byteclub/Notes.txt")
        let queued = try outbox.append(item(.save, "/byteclub/Notes.txt", baseRev: base, text: "first\nsecond\n", draftID: "note-notes"))
        try drafts.save(Draft(id: "note-notes", path: "/byteclub/Notes.txt", baseRev: base, title: "Notes", body: "first\nsecond\n", updated: Clock.now))
        // The send happened, the confirmation was never written: the item is still queued.
        let direct = try await ray.upload(data: Data("first\nsecond\n".utf8), to: "/byteclub/Notes.txt", mode: .update(rev: base), autorename: false)

        let (run, reports) = await send()
        XCTAssertEqual(run, .done)
        XCTAssertEqual(reports.map(\.item), [queued])
        XCTAssertEqual(reports.map { Self.summary($0.result) }, [Self.summary(.sent(direct))])
        let history = try await ray.revisions("/byteclub/Notes.txt", limit: 10)
        XCTAssertEqual(history.entries.map(\.rev), [direct.rev, base], "one new revision, not two")
        XCTAssertTrue(outbox.isEmpty)
        XCTAssertNil(drafts.load("note-notes"), "the draft of the sent text goes once the server has it")
    }

    func testACreateARenameAndAnUploadRepeatedAfterACrashAreNotDoneTwice() async throws {
        // Saved through the server, as the app saves, so the server's history holds the rev.
        let saved = try await ray.upload(data: Data("saved\n".utf8), to: "/byteclub/Plans.txt", mode: .overwrite, autorename: false)
        let plans = try XCTUnwrap(saved.rev)
        // The photo folder already holds another photo of the same name.
        _ = try await ann.upload(data: Data("someone else's".utf8), to: "/byteclub/photos/a.jpg", mode: .add, autorename: false)
        let photo = folder.appendingPathComponent("a.jpg")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        try Data(repeating: 7, count: 3000).write(to: photo)
        let attributes = try FileManager.default.attributesOfItem(atPath: photo.path)
        try outbox.append(item(.create, "/byteclub/New.txt", text: "new\n"))
        try outbox.append(item(.rename, "/byteclub/Plans.txt", newPath: "/byteclub/Ideas.txt", baseRev: plans))
        try outbox.append(OutboxItem(kind: .upload, path: "/byteclub/photos/a.jpg", title: "a.jpg", localFile: photo.path,
                                     localSize: 3000, localModified: attributes[.modificationDate] as? Date, queued: Clock.now))
        let created = try await ray.upload(data: Data("new\n".utf8), to: "/byteclub/New.txt", mode: .add, autorename: false)
        let moved = try await ray.move(from: "/byteclub/Plans.txt", to: "/byteclub/Ideas.txt", autorename: false)
        let uploaded = try await ray.upload(file: photo, to: "/byteclub/photos/a.jpg", mode: .add, autorename: true, progress: nil)
        XCTAssertNotEqual(uploaded.name, "a.jpg")

        let (run, reports) = await send()
        XCTAssertEqual(run, .done)
        XCTAssertEqual(reports.map { Self.summary($0.result) }, [.sent(created), .sent(moved), .sent(uploaded)].map(Self.summary))
        let newHistory = try await ray.revisions("/byteclub/New.txt", limit: 10)
        XCTAssertEqual(newHistory.entries.count, 1)
        let ideasRev = try await rev("/byteclub/Ideas.txt")
        XCTAssertEqual(ideasRev, moved.rev)
        let photos = try await ray.list("/byteclub/photos")
        XCTAssertEqual(photos.count, 2, "the photo is there once, beside the other one")
        XCTAssertTrue(outbox.isEmpty)
    }

    func testSavesOfOneNoteFromTwoEditorsAreMergedNotBuiltOnEachOther() async throws {
        // Two apps (or an editor reopened from the cache) queued saves from the same base: the
        // second is not of the first's chain, so it merges with it instead of replacing it.
        let base = try await rev("/byteclub/Plans.txt")
        try outbox.append(item(.save, "/byteclub/Plans.txt", baseRev: base, text: "A\nb\nc\nd\n"))
        try outbox.append(item(.save, "/byteclub/Plans.txt", baseRev: base, text: "a\nb\nc\nB\n"))
        let (run, reports) = await send()
        XCTAssertEqual(run, .done)
        guard case .sent = reports.first?.result, case .merged = reports.last?.result else { return XCTFail("\(reports.map(\.result))") }
        let merged = try await text("/byteclub/Plans.txt")
        XCTAssertEqual(merged, "A\nb\nc\nB\n", "both edits, neither overwritten")
    }

    /// Issue 43 §5: two saves of one editor, the first merged with another member's change:
    /// the second was merged from the old base, where its own first change met itself on both
    /// sides and conflicted, and it was kept as a draft (a second row). It builds on the first
    /// save's text now, and both arrive.
    func testASaveThatFollowsOneMergedBuildsOnItsTextAndMergesToo() async throws {
        let base = try await rev("/byteclub/Plans.txt")
        let first = try outbox.append(item(.save, "/byteclub/Plans.txt", baseRev: base, text: "RAY\nb\nc\nd\n"))
        try outbox.append(item(.save, "/byteclub/Plans.txt", baseRev: base, text: "RAY\nLAKE\nc\nd\n", follows: first))
        _ = try await ann.upload(data: Data("a\nb\nc\nANN\n".utf8), to: "/byteclub/Plans.txt", mode: .update(rev: base), autorename: false)
        let (run, reports) = await send()
        XCTAssertEqual(run, .done)
        XCTAssertEqual(reports.count, 2)
        for report in reports { guard case .merged = report.result else { return XCTFail("\(reports.map(\.result))") } }
        let merged = try await text("/byteclub/Plans.txt")
        XCTAssertEqual(merged, "RAY\nLAKE\nc\nANN\n", "both saves and ann's line")
        XCTAssertTrue(outbox.isEmpty)
        XCTAssertTrue(drafts.all().isEmpty, "no draft left to make a second row")
    }

    func testTwoSendersNeverSendAtOnce() async throws {
        let base = try await rev("/byteclub/Notes.txt")
        try outbox.append(item(.save, "/byteclub/Notes.txt", baseRev: base, text: "first\nsecond\n"))
        let gate = OutboxGate()
        let first = sender(store: OutboxHeldStore(base: ray, gate: gate))
        let running = Task { await first.sendAll() }
        try await poll("the first sender to be uploading") { await gate.isWaiting }
        // A second sender, on another instance of the same folder (a second app), is refused.
        let second = sender(Outbox(directory: outbox.directory))
        let (busy, nothing) = await send(second)
        XCTAssertEqual(busy, .busy)
        XCTAssertEqual(nothing, [])
        await gate.open()
        let firstRun = await running.value
        XCTAssertEqual(firstRun, .done)
        // And once it is done, a later sender finds nothing to send.
        let (later, none) = await send(sender(Outbox(directory: outbox.directory)))
        XCTAssertEqual(later, .done)
        XCTAssertEqual(none, [])
        let history = try await ray.revisions("/byteclub/Notes.txt", limit: 10)
        XCTAssertEqual(history.entries.count, 2)
    }

    // MARK: - Conflicts

    func testASaveThatMeetsAChangeToOtherLinesIsMerged() async throws {
        let base = try await rev("/byteclub/Plans.txt")
        try outbox.append(item(.save, "/byteclub/Plans.txt", baseRev: base, text: "RAY\nb\nc\nd\n"))
        _ = try await ann.upload(data: Data("a\nb\nc\nANN\n".utf8), to: "/byteclub/Plans.txt", mode: .update(rev: base), autorename: false)
        let annID = try await ann.currentAccount().id

        let (run, reports) = await send()
        XCTAssertEqual(run, .done)
        guard case .merged(let entry, let by)? = reports.first?.result else { return XCTFail("\(reports)") }
        XCTAssertEqual(by, annID)
        let merged = try await text("/byteclub/Plans.txt")
        XCTAssertEqual(merged, "RAY\nb\nc\nANN\n")
        let current = try await rev("/byteclub/Plans.txt")
        XCTAssertEqual(entry.rev, current)
        XCTAssertTrue(outbox.isEmpty)
    }

    func testOverlappingChangesAreKeptAsADraftAndNeverOverwrite() async throws {
        let base = try await rev("/byteclub/Plans.txt")
        try outbox.append(item(.save, "/byteclub/Plans.txt", baseRev: base, text: "a\nRAY\nc\nd\n"))
        let theirs = try await ann.upload(data: Data("a\nANN\nc\nd\n".utf8), to: "/byteclub/Plans.txt", mode: .update(rev: base), autorename: false)

        // Without a drafts folder the text has nowhere else to go: it stays in the outbox.
        let (kept, _) = await send(sender(drafts: .some(nil)))
        guard case .stopped(.local) = kept else { return XCTFail("\(kept)") }
        XCTAssertEqual(outbox.count, 1)

        let (run, reports) = await send()
        XCTAssertEqual(run, .done)
        guard case .conflict(let draftID, let reason)? = reports.first?.result else { return XCTFail("\(reports)") }
        XCTAssertEqual(reason, "\"Plans\" was changed by someone else meanwhile; open it to merge")
        let server = try await text("/byteclub/Plans.txt")
        XCTAssertEqual(server, "a\nANN\nc\nd\n", "the server's text is untouched")
        let serverRev = try await rev("/byteclub/Plans.txt")
        XCTAssertEqual(serverRev, theirs.rev)
        let draft = try XCTUnwrap(drafts.load(draftID))
        XCTAssertEqual(draft.body, "a\nRAY\nc\nd\n")
        XCTAssertEqual(draft.baseRev, base, "over the rev it was based on, so opening it merges")
        XCTAssertEqual(draft.path, "/byteclub/Plans.txt")
        XCTAssertTrue(outbox.isEmpty)
    }

    func testADraftEditedSinceTheSaveWasQueuedIsNeverOverwritten() async throws {
        let base = try await rev("/byteclub/Plans.txt")
        try outbox.append(item(.save, "/byteclub/Plans.txt", baseRev: base, text: "a\nRAY\nc\nd\n", draftID: "note-plans"))
        let newer = Draft(id: "note-plans", path: "/byteclub/Plans.txt", baseRev: base, title: "Plans", body: "a\nRAY, later\nc\nd\n", updated: Clock.now)
        try drafts.save(newer)
        _ = try await ann.upload(data: Data("a\nANN\nc\nd\n".utf8), to: "/byteclub/Plans.txt", mode: .update(rev: base), autorename: false)
        let (_, reports) = await send()
        guard case .conflict(let draftID, _)? = reports.first?.result else { return XCTFail("\(reports)") }
        XCTAssertNotEqual(draftID, "note-plans")
        XCTAssertEqual(drafts.load("note-plans"), newer, "the newer draft is untouched")
        let kept = try XCTUnwrap(drafts.load(draftID))
        XCTAssertEqual(kept.body, "a\nRAY\nc\nd\n")
        XCTAssertNil(kept.path, "a row of its own, beside the note's draft")
    }

    /// Issue 68, item 5, as `outbox --send` (or the next app) sends it: a draft typed on since
    /// its item was queued moves onto the note the club now has (a create's, or a save merged
    /// with another member's change, the typing laid onto the merge), never left a new note's
    /// draft (a second row beside the note, whose save asked to overwrite it) or over the old rev.
    func testADraftTypedOnSinceItsItemWasQueuedMovesOntoTheNote() async throws {
        try outbox.append(item(.create, "/byteclub/Trip.txt", text: "day 1\n", draftID: "new-trip"))
        try drafts.save(Draft(id: "new-trip", path: nil, baseRev: nil, title: "Trip", body: "day 1\nday 2\n", updated: Clock.now))
        let base = try await rev("/byteclub/Plans.txt")
        try outbox.append(item(.save, "/byteclub/Plans.txt", baseRev: base, text: "a\nb\nc\nd\nRAY\n", draftID: "note-plans"))
        try drafts.save(Draft(id: "note-plans", path: "/byteclub/Plans.txt", baseRev: base, title: "Plans", body: "a\nb\nc\nd\nRAY\nRAY 2\n", updated: Clock.now))
        _ = try await ann.upload(data: Data("ANN\nb\nc\nd\n".utf8), to: "/byteclub/Plans.txt", mode: .update(rev: base), autorename: false)

        let (run, reports) = await send()
        XCTAssertEqual(run, .done)
        XCTAssertEqual(reports.map { Self.summary($0.result).split(separator: " ").first.map(String.init) ?? "" }, ["sent", "merged"])
        let trip = try XCTUnwrap(drafts.load("new-trip"), "newer work stays")
        XCTAssertEqual(trip.path, "/byteclub/Trip.txt", "a draft of the note the create made")
        let tripRev = try await rev("/byteclub/Trip.txt")
        XCTAssertEqual(trip.baseRev, tripRev)
        XCTAssertEqual(trip.baseText, "day 1\n")
        XCTAssertEqual(trip.body, "day 1\nday 2\n")
        let plans = try XCTUnwrap(drafts.load("note-plans"))
        let plansRev = try await rev("/byteclub/Plans.txt")
        let merged = try await text("/byteclub/Plans.txt")
        XCTAssertEqual(merged, "ANN\nb\nc\nd\nRAY\n")
        XCTAssertEqual(plans.baseRev, plansRev, "over the merge the club has")
        XCTAssertEqual(plans.baseText, merged)
        XCTAssertEqual(plans.body, "ANN\nb\nc\nd\nRAY\nRAY 2\n", "the typing since, laid onto the merge")
    }

    func testANewNoteWhoseNameIsTakenBecomesADraftAndANewPhotoIsUploaded() async throws {
        let photo = folder.appendingPathComponent("new.jpg")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        try Data(repeating: 9, count: 500).write(to: photo)
        let modified = try FileManager.default.attributesOfItem(atPath: photo.path)[.modificationDate] as? Date
        try outbox.append(item(.create, "/byteclub/Notes.txt", text: "other\n", draftID: "new-1"))
        try outbox.append(OutboxItem(kind: .upload, path: "/byteclub/photos/new.jpg", title: "new.jpg", localFile: photo.path,
                                     localSize: 500, localModified: modified, queued: Clock.now))
        let (run, reports) = await send()
        XCTAssertEqual(run, .done)
        XCTAssertEqual(reports.map { Self.summary($0.result) }.first,
                       "conflict A note named \"Notes.txt\" already exists on the server; yours is kept as a draft of a new note")
        let draft = try XCTUnwrap(drafts.load("new-1"))
        XCTAssertEqual(draft.body, "other\n")
        XCTAssertNil(draft.path)
        let notes = try await text("/byteclub/Notes.txt")
        XCTAssertEqual(notes, "first\n")
        guard reports.count == 2, case .sent(let uploaded?) = reports[1].result else { return XCTFail("\(reports)") }
        XCTAssertEqual(uploaded.path, "/byteclub/photos/new.jpg")
        XCTAssertEqual(uploaded.size, 500)
    }

    /// Issue 68, "your own note, twice": a new note saved offline, `byteclub` on the same machine
    /// sends the outbox (the note's create with it), and the app, not told, queues the note's next
    /// save after the create it thinks still waits. That save has no rev, so it went as a create
    /// of its own, met the note its create made, and was kept as a draft of a new note (seed 1:
    /// `A note named "Note 012.md" already exists`; the user was then asked to overwrite their own
    /// note). The note the create made is found by the save's base text: it is saved, once.
    func testASaveQueuedAfterItsCreateWasSentByAnotherProcessSavesThatNote() async throws {
        let created = try outbox.append(item(.create, "/byteclub/Trip.txt", text: "day 1\n", draftID: "new-trip"))
        // `byteclub` (another process) sends the outbox: the create goes.
        let shell = await send()
        XCTAssertEqual(shell.run, .done)
        // The app queues its next save over the create it last queued.
        var later = item(.save, "/byteclub/Trip.txt", text: "day 1\nday 2\n", draftID: "new-trip", follows: created)
        later.baseText = "day 1\n"
        try outbox.append(later)

        let (run, reports) = await send()
        XCTAssertEqual(run, .done)
        XCTAssertEqual(reports.count, 1)
        guard case .sent(let saved?)? = reports.first?.result else { return XCTFail("\(reports.map { Self.summary($0.result) })") }
        XCTAssertEqual(saved.path, "/byteclub/Trip.txt")
        let trip = try await text("/byteclub/Trip.txt")
        XCTAssertEqual(trip, "day 1\nday 2\n")
        let history = try await ray.revisions("/byteclub/Trip.txt", limit: 10)
        XCTAssertEqual(history.entries.count, 2, "created, then saved")
        XCTAssertFalse(drafts.all().contains { $0.body.contains("day 2") && $0.path == nil }, "no draft of a second new note")
        let names = try await ray.list("/byteclub").map(\.name)
        XCTAssertFalse(names.contains { $0.hasPrefix("Trip (") }, "no copy: \(names)")
    }

    /// The same, with another member's change after the create landed: merged over the
    /// revision the create made (found among the note's revisions), both lines kept.
    func testASaveQueuedAfterItsCreateWasSentElsewhereMergesWithAChangeMadeSince() async throws {
        let created = try outbox.append(item(.create, "/byteclub/Trip.txt", text: "day 1\n", draftID: "new-trip"))
        _ = await send()
        let landed = try await rev("/byteclub/Trip.txt")
        _ = try await ann.upload(data: Data("ANN\nday 1\n".utf8), to: "/byteclub/Trip.txt", mode: .update(rev: landed), autorename: false)
        var later = item(.save, "/byteclub/Trip.txt", text: "day 1\nday 2\n", draftID: "new-trip", follows: created)
        later.baseText = "day 1\n"
        try outbox.append(later)

        let (run, reports) = await send()
        XCTAssertEqual(run, .done)
        guard case .merged? = reports.first?.result else { return XCTFail("\(reports.map { Self.summary($0.result) })") }
        let trip = try await text("/byteclub/Trip.txt")
        XCTAssertEqual(trip, "ANN\nday 1\nday 2\n")
    }

    func testASaveOfANoteDeletedMeanwhileBecomesADraftOfANewNote() async throws {
        let base = try await rev("/byteclub/Plans.txt")
        try outbox.append(item(.save, "/byteclub/Plans.txt", baseRev: base, text: "mine\n"))
        _ = try await ann.delete("/byteclub/Plans.txt")
        let (_, reports) = await send()
        guard case .conflict(let draftID, let reason)? = reports.first?.result else { return XCTFail("\(reports)") }
        XCTAssertTrue(reason.contains("was deleted on the server"), reason)
        let draft = try XCTUnwrap(drafts.load(draftID))
        XCTAssertEqual(draft.body, "mine\n")
        XCTAssertNil(draft.path)
        await assertMissing("/byteclub/Plans.txt")
    }

    func testARenameOfANoteChangedMeanwhileLetsTheNextSaveMergeNotOverwrite() async throws {
        let base = try await rev("/byteclub/Plans.txt")
        let renamed = try outbox.append(item(.rename, "/byteclub/Plans.txt", newPath: "/byteclub/Ideas.txt", baseRev: base))
        try outbox.append(item(.save, "/byteclub/Plans.txt", baseRev: base, text: "RAY\nb\nc\nd\n", follows: renamed))
        _ = try await ann.upload(data: Data("a\nb\nc\nANN\n".utf8), to: "/byteclub/Plans.txt", mode: .update(rev: base), autorename: false)
        // A note renamed to a name that is taken by then: refused, nothing replaced.
        let notes = try await rev("/byteclub/Notes.txt")
        try outbox.append(item(.rename, "/byteclub/Notes.txt", newPath: "/byteclub/Ideas.txt", baseRev: notes))

        let (run, reports) = await send()
        XCTAssertEqual(run, .done)
        guard reports.count == 3, case .merged(let moved, _) = reports[0].result, case .merged = reports[1].result else { return XCTFail("\(reports)") }
        XCTAssertEqual(moved.path, "/byteclub/Ideas.txt")
        XCTAssertEqual(reports[1].item.path, "/byteclub/Ideas.txt", "the save followed the rename")
        XCTAssertEqual(reports[1].item.baseRev, base, "and kept its base rev, since the rev after the move holds ann's change")
        let ideas = try await text("/byteclub/Ideas.txt")
        XCTAssertEqual(ideas, "RAY\nb\nc\nANN\n", "ann's change is merged, not overwritten")
        XCTAssertEqual(reports[2].result, .refused("Not renamed: \"Ideas\": a note named \"Ideas.txt\" already exists"))
        let untouched = try await text("/byteclub/Notes.txt")
        XCTAssertEqual(untouched, "first\n")
    }

    // MARK: - Refused

    func testAPhotoChangedSinceItWasQueuedAndADeleteOfAChangedNoteAreRefused() async throws {
        let photo = folder.appendingPathComponent("b.jpg")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        try Data(repeating: 1, count: 100).write(to: photo)
        let modified = try FileManager.default.attributesOfItem(atPath: photo.path)[.modificationDate] as? Date
        try outbox.append(OutboxItem(kind: .upload, path: "/byteclub/photos/b.jpg", title: "b.jpg", localFile: photo.path,
                                     localSize: 100, localModified: modified, queued: Clock.now))
        try outbox.append(OutboxItem(kind: .upload, path: "/byteclub/photos/c.jpg", title: "c.jpg", localFile: folder.appendingPathComponent("c.jpg").path,
                                     localSize: 100, localModified: modified, queued: Clock.now))
        let base = try await rev("/byteclub/Plans.txt")
        try outbox.append(item(.delete, "/byteclub/Plans.txt", baseRev: base))
        try Data(repeating: 2, count: 150).write(to: photo)
        _ = try await ann.upload(data: Data("changed\n".utf8), to: "/byteclub/Plans.txt", mode: .update(rev: base), autorename: false)

        let (run, reports) = await send()
        XCTAssertEqual(run, .done)
        XCTAssertEqual(reports.map(\.result), [
            .refused("Not uploaded: b.jpg changed since it was queued"),
            .refused("Not uploaded: c.jpg was removed since it was queued"),
            .refused("Not deleted: \"Plans\" was changed on the server since; it is kept"),
        ])
        let photos = try await ray.list("/byteclub/photos")
        XCTAssertEqual(photos, [])
        let kept = try await text("/byteclub/Plans.txt")
        XCTAssertEqual(kept, "changed\n")
        XCTAssertTrue(outbox.isEmpty)
    }

    // MARK: - A server that is down

    func testAServerThatIsDownStopsTheRunAndKeepsEveryItem() async throws {
        let base = try await rev("/byteclub/Notes.txt")
        let items = [
            try outbox.append(item(.save, "/byteclub/Notes.txt", baseRev: base, text: "offline\n")),
            try outbox.append(item(.create, "/byteclub/Offline.txt", text: "offline\n")),
        ]
        await club.server.stop()
        let (run, reports) = await send()
        guard case .stopped(.network) = run else { return XCTFail("\(run)") }
        XCTAssertEqual(reports, [])
        XCTAssertEqual(outbox.all(), items)
    }

    // MARK: - Helpers

    func assertMissing(_ path: String, file: StaticString = #filePath, line: UInt = #line) async {
        do {
            let entry = try await ray.metadata(path)
            XCTFail("\(path) is still there: \(entry)", file: file, line: line)
        } catch {
            XCTAssertEqual(error, .notFound(path), file: file, line: line)
        }
    }

    /// Polls `condition` until it holds, for at most 10 s.
    func poll(_ what: String, _ condition: () async -> Bool) async throws {
        let deadline = Date().addingTimeInterval(10)
        while await !condition() {
            guard Date() < deadline else {
                XCTFail("timed out waiting for \(what)")
                throw CancellationError()
            }
            await Task.yield()
            try await Task.sleep(nanoseconds: 2_000_000)
        }
    }
}

/// Reports as the sender hands them over.
final class ReportBox: Sendable {
    private let reports = Mutex<[OutboxReport]>([])
    func add(_ report: OutboxReport) { reports.withLock { $0.append(report) } }
    var all: [OutboxReport] { reports.withLock { $0 } }
}

/// Holds uploads until opened, and says when one waits.
actor OutboxGate {
    private var waiting: [CheckedContinuation<Void, Never>] = []
    private var isOpen = false
    var isWaiting: Bool { !waiting.isEmpty }

    func pass() async {
        if isOpen { return }
        await withCheckedContinuation { waiting.append($0) }
    }

    func open() {
        isOpen = true
        for continuation in waiting { continuation.resume() }
        waiting = []
    }
}

/// A store whose uploads wait at an ``OutboxGate`` first; everything else is forwarded.
struct OutboxHeldStore: ForwardingStore {
    let base: any RemoteStore
    let gate: OutboxGate

    func upload(file: URL, to path: String, mode: WriteMode, autorename: Bool, progress: ProgressHandler?) async throws(RemoteError) -> RemoteEntry {
        await gate.pass()
        return try await base.upload(file: file, to: path, mode: mode, autorename: autorename, progress: progress)
    }
    func upload(data: Data, to path: String, mode: WriteMode, autorename: Bool) async throws(RemoteError) -> RemoteEntry {
        await gate.pass()
        return try await base.upload(data: data, to: path, mode: mode, autorename: autorename)
    }
}
