import ByteClubApp
import ClubServer
import Foundation
#if canImport(Glibc)
import Glibc
#endif
import Remote
import Synchronization
import TerminalUI
import TestSupport
import XCTest

/// The app offline and back, against a real club server that the test stops and starts again
/// on the same port and folder: saves, renames and deletes queued in the outbox and sent when it
/// returns, and the lists and notes shown from the disk cache at a start without it.
@MainActor
final class OfflineAppTests: XCTestCase {
    var club: RestartableClub!
    var state: URL!

    override func setUp() async throws {
        club = try await RestartableClub(notes: ["Trip plan.txt": "Day 1: Lyon\nDay 2: rest\n", "Ideas.txt": "kites\n", "Old.txt": "old\n"])
        state = FileManager.default.temporaryDirectory.appendingPathComponent("byteclub-offline-app-\(UUID().uuidString)")
    }

    override func tearDown() async throws {
        await club.close()
        try? FileManager.default.removeItem(at: state)
    }

    var outbox: Outbox { Outbox(directory: state.appendingPathComponent("outbox")) }
    var cache: ClubCache { ClubCache(directory: state.appendingPathComponent("cache")) }
    var drafts: DraftStore { DraftStore(directory: state.appendingPathComponent("drafts")) }

    /// Ray's app, as the executable configures it: an outbox, a cache and drafts under `state`,
    /// and a store that does not retry a server it cannot reach.
    func rayApp(counting: ListingCounter? = nil, thumbnails: URL? = nil) -> Harness {
        var retry = RetryPolicy()
        retry.retriesUnreachable = false
        retry.maxAttempts = 5
        retry.maxDelay = 2
        let store = DropboxStore(displayName: "club", endpoints: .club(club.url), tokens: StaticToken(club.rayToken),
                                 connection: ConnectionOptions(idleTimeout: 10), retry: retry)
        let counted: any RemoteStore = counting.map { CountingStore(base: store, counter: $0) } ?? store
        return Harness(store: counted, drafts: drafts) { configuration in
            configuration.outbox = self.outbox
            configuration.cache = self.cache
            configuration.thumbnailsDirectory = thumbnails
        }
    }

    private func type(_ harness: Harness, _ text: String) {
        for character in text { harness.press(.char(character)) }
    }

    private func select(_ title: String, in harness: Harness) {
        guard let index = harness.app.noteItems.firstIndex(where: { $0.title == title }) else {
            return XCTFail("no note \(title) in \(harness.app.noteItems.map(\.title))")
        }
        harness.press(.home)
        for _ in 0..<index { harness.press(.down) }
    }

    private func open(_ title: String, in harness: Harness) async {
        select(title, in: harness)
        harness.press(.enter)
        await harness.waitUntil("\(title) open") { harness.app.state.note?.isEditing == true }
    }

    func testASaveWhileTheServerIsDownWaitsInTheOutboxAndIsSentWhenItIsBack() async throws {
        let harness = rayApp()
        await harness.start()
        await open("Trip plan", in: harness)
        try await club.stop()
        harness.press(.documentEnd)
        type(harness, "Day 3: home")
        harness.press(.ctrl("s"))
        await harness.waitUntil("the save queued") { harness.app.state.offline.waiting == 1 }
        XCTAssertTrue(harness.app.state.offline.isOffline)
        XCTAssertEqual(harness.app.state.offline.figure, "offline · 1 waiting")
        XCTAssertFalse(harness.app.state.hasUnsavedEdits, "queued counts as saved: quitting need not ask")
        XCTAssertTrue(harness.render(width: 100, height: 20).dump().contains("offline · 1 waiting"))
        XCTAssertEqual(outbox.all().map(\.kind), [.save])
        XCTAssertEqual(outbox.all().first?.text, "Day 1: Lyon\nDay 2: rest\nDay 3: home")
        XCTAssertNotNil(drafts.load(Draft.id(forPath: "/byteclub/Trip plan.txt")), "the draft stays until the server has the text")

        try await club.start()
        await harness.waitUntil("the outbox sent", timeout: 15) { harness.app.state.offline.waiting == 0 && !harness.app.state.offline.isOffline }
        XCTAssertEqual(club.text("Trip plan.txt"), "Day 1: Lyon\nDay 2: rest\nDay 3: home")
        XCTAssertTrue(outbox.all().isEmpty)
        await harness.waitUntil("the draft gone") { self.drafts.all().isEmpty }
        // The editor is at the new rev: the next save is a plain update, no conflict.
        type(harness, "!")
        harness.press(.ctrl("s"))
        await harness.waitUntil("saved again") { harness.app.state.message?.text.hasPrefix("Saved \"Trip plan.txt\"") == true }
        XCTAssertEqual(club.text("Trip plan.txt"), "Day 1: Lyon\nDay 2: rest\nDay 3: home!")
        harness.app.requestQuit()
    }

    /// Issue 54: a folder renamed in the app while a save into it waited in the outbox (another
    /// sender, `byteclub outbox --send`, held it) moved the folder at once; the save then went
    /// to where the note was, found it gone, and came back as a draft. The rename waits for the
    /// send under way, and the waiting save follows the folder.
    func testAFolderRenamedWhileASaveIntoItWaitsTakesTheSaveAlong() async throws {
        let ann = DropboxStore(displayName: "club", endpoints: .club(club.url), tokens: StaticToken(club.annToken), configuration: .ephemeral)
        _ = try await ann.createFolder("/byteclub/Trips")
        let day = try await ann.upload(data: Data("day 1\n".utf8), to: "/byteclub/Trips/Day one.txt", mode: .add, autorename: false)
        // Another sender holds the outbox, with a save into Trips queued, as the CLI leaves one.
        let outbox = self.outbox
        try outbox.append(OutboxItem(kind: .save, path: "/byteclub/Trips/Day one.txt", baseRev: day.rev, title: "Day one",
                                     text: "day 1\nday 2\n", queued: Date()))
        let (holding, held) = AsyncStream<Void>.makeStream()
        let (releasing, release) = AsyncStream<Void>.makeStream()
        let other = Task.detached {
            await outbox.withSendLock { () async -> Void in
                held.yield()
                for await _ in releasing { break }
            }
        }
        for await _ in holding { break }

        let harness = rayApp()
        await harness.start()
        await harness.waitUntil("one waiting") { harness.app.state.offline.waiting == 1 }
        XCTAssertEqual(harness.app.noteItems.first?.title, "Trips/", "folders come first")
        harness.press(.home)
        harness.press(.char("R"))
        await harness.waitUntil("the rename prompt") { harness.render(width: 100, height: 24).dump().contains("Rename folder") }
        harness.press(.ctrl("u"))
        type(harness, "Travel")
        harness.press(.enter)
        await harness.waitUntil("the move asked") { harness.app.state.message?.text.hasPrefix("Moving \"Trips\"") == true }
        release.yield()
        await other.value

        await harness.waitUntil("renamed, then the save sent", timeout: 15) {
            harness.app.state.offline.waiting == 0 && self.club.text("Travel/Day one.txt") == "day 1\nday 2\n"
        }
        XCTAssertTrue(outbox.all().isEmpty)
        XCTAssertNil(club.text("Trips/Day one.txt"))
        XCTAssertTrue(drafts.all().isEmpty, "no draft: the text is in the note")
        harness.app.requestQuit()
    }

    /// Issue 43 §5: an unchanged Ctrl-S offline queued a save of the text already there (or
    /// already waiting), a second item that later made a second row. It queues nothing now.
    func testAnUnchangedCtrlSOfflineQueuesNothing() async throws {
        let harness = rayApp()
        await harness.start()
        await open("Trip plan", in: harness)
        try await club.stop()
        harness.press(.ctrl("s"))
        await harness.waitUntil("the answer") { harness.app.state.message?.text.hasPrefix("No changes to save") == true }
        XCTAssertEqual(outbox.all().count, 0, "the server has this text")
        harness.press(.documentEnd)
        type(harness, "Day 3: home")
        harness.press(.ctrl("s"))
        await harness.waitUntil("the save queued") { harness.app.state.offline.waiting == 1 }
        harness.press(.ctrl("s"))
        await harness.waitUntil("the answer again") { harness.app.state.message?.text.hasPrefix("No changes to save") == true }
        XCTAssertEqual(outbox.all().count, 1, "the outbox has this text: one item, not two")
        harness.app.requestQuit()
    }

    /// Issue 43 §5: after an offline restart the status bar called a save waiting in the outbox
    /// an "unsaved draft", while its row said it waits to be sent: the words match the rows now.
    func testAfterAnOfflineRestartAQueuedSaveIsNotCalledUnsaved() async throws {
        let harness = rayApp()
        await harness.start()
        await open("Trip plan", in: harness)
        try await club.stop()
        harness.press(.documentEnd)
        type(harness, "Day 3: home")
        harness.press(.ctrl("s"))
        await harness.waitUntil("the save queued") { harness.app.state.offline.waiting == 1 }
        harness.app.requestQuit()
        XCTAssertEqual(drafts.all().count, 1, "the draft stays until the server has the text")

        let again = rayApp()
        await again.start()
        XCTAssertFalse(again.app.state.message?.text.contains("unsaved draft") ?? false, again.app.state.message?.text ?? "")
        await again.waitUntil("offline, one waiting") { again.app.state.offline.figure == "offline · 1 waiting" }
        again.app.requestQuit()
    }

    func testAColdStartWithoutTheServerShowsTheCachedListsAndNotesAndCatchesUpFromTheCursor() async throws {
        // A first run caches the lists and the opened note.
        let first = rayApp()
        await first.start()
        await open("Ideas", in: first)
        await first.waitUntil("the cache written") {
            self.cache.listing(.notes)?.entries.count == 3 && self.cache.note("/byteclub/Ideas.txt") != nil && self.cache.listing(.notes)?.cursor != nil
        }
        first.app.requestQuit()
        try await club.stop()

        let counter = ListingCounter()
        let second = rayApp(counting: counter)
        second.app.start()
        // At once, before any answer: the cached list, marked.
        XCTAssertEqual(second.app.noteItems.map(\.title), ["Ideas", "Old", "Trip plan"])
        XCTAssertNotNil(second.app.state.notes.cachedAt)
        XCTAssertTrue(second.render(width: 100, height: 20).dump().contains("◷ Cached"))
        await second.waitUntil("offline noticed") { second.app.state.offline.isOffline }
        XCTAssertEqual(second.app.noteItems.count, 3, "a failed load never empties the list")
        XCTAssertEqual(cache.listing(.notes)?.entries.count, 3, "nor the cache")
        // The note opens from the cache, editable, and a save waits in the outbox.
        await open("Ideas", in: second)
        XCTAssertEqual(second.app.state.note?.editor.body.text, "kites\n")
        second.press(.documentEnd)
        type(second, "boats\n")
        second.press(.ctrl("s"))
        await second.waitUntil("queued") { self.outbox.all().count == 1 }

        // Meanwhile ann adds a note; when the server is back only what changed is asked for.
        try await club.start()
        try "ann's\n".write(to: club.folder.appendingPathComponent("Ann.txt"), atomically: true, encoding: .utf8)
        await second.waitUntil("ann's note listed and the edit sent", timeout: 15) {
            second.app.noteItems.contains { $0.title == "Ann" } && self.outbox.all().isEmpty
        }
        XCTAssertEqual(club.text("Ideas.txt"), "kites\nboats\n")
        XCTAssertNil(second.app.state.notes.cachedAt, "no longer marked once the server answered")
        XCTAssertEqual(counter.fullListings(of: "/byteclub"), 0, "the notes list caught up from its cursor, not a new listing")
        second.app.requestQuit()
    }

    /// A warm start whose cached cursor is already the server's: nothing to list and no change
    /// to apply, and the status bar says the list at once. "Loading…" stayed until the first
    /// longpoll's answer, 30 s later (the torture's seed 12252014521736084045 found it).
    func testAStartFromAnUpToDateCacheSaysItsListWithoutWaitingForAChange() async throws {
        let first = rayApp()
        await first.start()
        await first.waitUntil("the list cached at its cursor") {
            self.cache.listing(.notes)?.entries.count == 3 && self.cache.listing(.notes)?.cursor != nil
        }
        first.app.requestQuit()

        let counter = ListingCounter()
        let second = rayApp(counting: counter)
        second.app.start()
        XCTAssertEqual(second.app.state.message?.text, "Loading…")
        await second.waitUntil("the list said", timeout: 10) { second.app.state.message?.text == "3 notes" }
        XCTAssertFalse(second.render(width: 100, height: 20).dump().contains("Loading"))
        XCTAssertEqual(counter.fullListings(of: "/byteclub"), 0, "caught up from the cursor, not a new listing")
        second.app.requestQuit()
    }

    func testARenameAndADeleteOfflineShowAtOnceAndReachTheServerInOrder() async throws {
        let harness = rayApp()
        await harness.start()
        try await club.stop()
        // A refused refresh is how the app finds out.
        harness.app.refresh(.notes)
        await harness.waitUntil("offline") { harness.app.state.offline.isOffline }

        select("Old", in: harness)
        harness.press(.char("d"))
        harness.press(.enter)  // the dialog's default is Cancel: move to Delete first
        await harness.waitUntil("the delete dialog gone") { harness.compositor.layers.count == 1 }
        XCTAssertTrue(outbox.all().isEmpty, "Cancel queued nothing")
        harness.press(.char("d"), .left, .enter)
        await harness.waitUntil("the delete queued") { self.outbox.all().count == 1 }
        XCTAssertFalse(harness.app.noteItems.contains { $0.title == "Old" })

        select("Ideas", in: harness)
        harness.press(.char("R"))
        for _ in 0..<5 { harness.press(.backspace) }
        type(harness, "Plans")
        harness.press(.enter)
        await harness.waitUntil("the rename queued") { self.outbox.all().count == 2 }
        XCTAssertTrue(harness.app.noteItems.contains { $0.title == "Plans" })
        XCTAssertTrue(harness.render(width: 100, height: 20).dump().contains("⇡ Plans"))

        try await club.start()
        await harness.waitUntil("sent", timeout: 15) { self.outbox.all().isEmpty && harness.app.state.offline.waiting == 0 }
        XCTAssertNil(club.text("Old.txt"))
        XCTAssertNil(club.text("Ideas.txt"))
        XCTAssertEqual(club.text("Plans.txt"), "kites\n")
        harness.app.requestQuit()
    }
}

extension OfflineAppTests {
    /// Issue 43 §5: a note renamed, then deleted, offline must stay gone: in the list at once,
    /// after a restart from the cache, and on the server once it is back.
    func testANoteRenamedThenDeletedOfflineStaysGone() async throws {
        let harness = rayApp()
        await harness.start()
        await harness.waitUntil("the list cached") { self.cache.listing(.notes)?.entries.count == 3 }
        try await club.stop()
        harness.app.refresh(.notes)
        await harness.waitUntil("offline") { harness.app.state.offline.isOffline }

        select("Ideas", in: harness)
        harness.press(.char("R"))
        for _ in 0..<5 { harness.press(.backspace) }
        type(harness, "Kites")
        harness.press(.enter)
        await harness.waitUntil("the rename queued") { self.outbox.all().count == 1 }
        select("Kites", in: harness)
        harness.press(.char("d"), .left, .enter)
        await harness.waitUntil("the delete queued") { self.outbox.all().count == 2 }
        XCTAssertFalse(harness.app.noteItems.contains { $0.title == "Kites" || $0.title == "Ideas" })
        harness.app.requestQuit()

        // A start from the cache, the server still away: neither name comes back.
        let again = rayApp()
        await again.start()
        await again.waitUntil("the cached list") { !again.app.noteItems.isEmpty }
        XCTAssertFalse(again.app.noteItems.contains { $0.title == "Kites" || $0.title == "Ideas" }, "\(again.app.noteItems.map(\.title))")

        try await club.start()
        await again.waitUntil("sent", timeout: 15) { self.outbox.all().isEmpty && again.app.state.offline.waiting == 0 }
        XCTAssertNil(club.text("Ideas.txt"))
        XCTAssertNil(club.text("Kites.txt"))
        again.app.refresh(.notes)
        await again.waitUntil("the server's list, without either name") {
            !again.app.state.offline.isOffline && again.app.state.notes.cachedAt == nil
                && !again.app.noteItems.contains { $0.title == "Kites" || $0.title == "Ideas" }
        }
        again.app.requestQuit()
    }

    func testAStalledServerIsNoticedWithinTheIdleLimitAndTheSaveWaits() async throws {
        // Accepts connections (the kernel's backlog) and never says a byte.
        let silent = try SilentListener()
        defer { silent.close() }
        let store = DropboxStore(displayName: "club", endpoints: .club(URL(string: "http://127.0.0.1:\(silent.port)")!),
                                 tokens: StaticToken("t"), connection: ConnectionOptions(idleTimeout: 1), retry: {
                                     var retry = RetryPolicy()
                                     retry.retriesUnreachable = false
                                     return retry
                                 }())
        let harness = Harness(store: store, drafts: drafts) { configuration in
            configuration.outbox = self.outbox
            configuration.cache = self.cache
            configuration.liveUpdates = false
        }
        harness.app.start()
        await harness.waitUntil("the stall noticed", timeout: 8) { harness.app.state.offline.isOffline }
        XCTAssertEqual(harness.app.state.offline.figure, "offline")
        // A new note saved now goes to the outbox, not into another stall.
        harness.press(.char("n"))
        type(harness, "Stalled")
        harness.press(.tab)
        type(harness, "kept\n")
        harness.press(.ctrl("s"))
        await harness.waitUntil("queued") { self.outbox.all().count == 1 }
        XCTAssertEqual(outbox.all().first?.kind, .create)
        XCTAssertEqual(outbox.all().first?.text, "kept\n")
        let screen = harness.render(width: 100, height: 20).dump()
        XCTAssertTrue(screen.contains("⇡ Stalled"), screen)
        harness.app.requestQuit()
    }

    func testPhotoUploadsQueuedOfflineAreSentAndOneChangedSinceIsReportedNotSent() async throws {
        let harness = rayApp()
        await harness.start()
        try await club.stop()
        harness.app.refresh(.photos)
        await harness.waitUntil("offline") { harness.app.state.offline.isOffline }
        let local = state.appendingPathComponent("pictures")
        try FileManager.default.createDirectory(at: local, withIntermediateDirectories: true)
        let kept = local.appendingPathComponent("kept.jpg"), changed = local.appendingPathComponent("changed.jpg")
        let sample = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("Resources/SampleClub/byteclub/photos")
        try FileManager.default.copyItem(at: sample.appendingPathComponent("city-dusk.jpg"), to: kept)
        try FileManager.default.copyItem(at: sample.appendingPathComponent("coast-noon.jpg"), to: changed)
        harness.app.upload(kept)
        harness.app.upload(changed)
        await harness.waitUntil("both queued") { self.outbox.all().count == 2 }
        XCTAssertEqual(outbox.all().map(\.kind), [.upload, .upload])
        let handle = try FileHandle(forWritingTo: changed)
        try handle.seekToEnd()
        try handle.write(contentsOf: Data("edited".utf8))
        try handle.close()

        try await club.start()
        await harness.waitUntil("sent", timeout: 15) { self.outbox.all().isEmpty && harness.app.state.offline.waiting == 0 }
        XCTAssertEqual(try? Data(contentsOf: club.folder.appendingPathComponent("photos/kept.jpg")), try Data(contentsOf: kept))
        XCTAssertFalse(FileManager.default.fileExists(atPath: club.folder.appendingPathComponent("photos/changed.jpg").path),
                       "a file changed since it was queued is not sent")
        XCTAssertEqual(harness.app.state.message?.kind, .error)
        XCTAssertTrue(harness.app.state.message?.text.contains("changed.jpg") ?? false, harness.app.state.message?.text ?? "")
        harness.app.requestQuit()
    }

    func testAFailingOrEmptyAnswerNeverEmptiesTheCache() async throws {
        let entries = ["A", "B", "C"].map { FakeStore.file("/byteclub/\($0).txt", size: 3, modified: Clock.ago(60)) }
        try cache.saveListing(.notes, ClubCache.Listing(entries: entries, cursor: nil, saved: Clock.ago(3600)))
        let store = FakeStore(files: [], failure: .server(status: 503, detail: "down for maintenance"))
        let harness = Harness(store: store, drafts: drafts) { configuration in
            configuration.outbox = self.outbox
            configuration.cache = self.cache
        }
        await harness.start()
        XCTAssertEqual(harness.app.noteItems.count, 3, "an error keeps the cached list on screen")
        XCTAssertEqual(cache.listing(.notes)?.entries.count, 3)
        // Now the server answers, with nothing: the screen follows, the cache does not.
        store.set(files: [], failure: nil)
        harness.app.refresh(.notes)
        await harness.waitForLoads(3)
        XCTAssertEqual(harness.app.noteItems.count, 0)
        var written: [Bool] = []
        harness.app.onCacheWritten = { tab, saved in if tab == .notes { written.append(saved) } }
        await harness.waitUntil("the cache write done") { !written.isEmpty }
        XCTAssertEqual(written, [false], "refused")
        XCTAssertEqual(cache.listing(.notes)?.entries.map(\.name), ["A.txt", "B.txt", "C.txt"])
        harness.app.requestQuit()
    }
}

extension OfflineAppTests {
    func testANewNoteSavedTwiceOfflineUnderANewTitleIsOneNoteAndReopensAsWaiting() async throws {
        let harness = rayApp()
        await harness.start()
        try await club.stop()
        harness.app.refresh(.notes)
        await harness.waitUntil("offline") { harness.app.state.offline.isOffline }
        harness.press(.char("n"))
        type(harness, "Picnic")
        harness.press(.tab)
        type(harness, "bread\n")
        harness.press(.ctrl("s"))
        await harness.waitUntil("the create queued") { self.outbox.all().count == 1 }
        // A new title and more text, still offline: a rename of what the create makes, then a save.
        harness.press(.ctrl("t"))
        for _ in 0..<6 { harness.press(.backspace) }
        type(harness, "Lunch")
        harness.press(.tab, .documentEnd)
        type(harness, "cheese\n")
        harness.press(.ctrl("s"))
        await harness.waitUntil("three items") { self.outbox.all().count == 3 }
        XCTAssertEqual(outbox.all().map(\.kind), [.create, .rename, .save])
        // And once more: a save after that save, of the same editor's chain.
        type(harness, "olives\n")
        harness.press(.ctrl("s"))
        await harness.waitUntil("four items") { self.outbox.all().count == 4 }
        let chain = outbox.all()
        XCTAssertEqual(chain.dropFirst().map(\.follows), chain.dropLast().map(\.id), "each follows the one before")
        // Closed and reopened from its row: the text that waits, counted as saved.
        harness.press(.escape)
        await harness.waitUntil("closed") { harness.app.state.note == nil }
        await open("Lunch", in: harness)
        XCTAssertEqual(harness.app.state.note?.editor.body.text, "bread\ncheese\nolives\n")
        XCTAssertFalse(harness.app.state.hasUnsavedEdits, "it waits in the outbox: nothing to ask about")
        harness.press(.escape)

        try await club.start()
        await harness.waitUntil("sent", timeout: 15) { self.outbox.all().isEmpty && harness.app.state.offline.waiting == 0 }
        XCTAssertEqual(club.text("Lunch.md"), "bread\ncheese\nolives\n")
        XCTAssertNil(club.text("Picnic.md"), "one note, not two")
        await harness.waitUntil("the draft gone") { self.drafts.all().isEmpty }
        harness.app.requestQuit()
    }
}

extension OfflineAppTests {
    func testACachedPhotosListShowsItsCachedThumbnailsOffline() async throws {
        let sample = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("Resources/SampleClub/byteclub/photos")
        for name in ["city-dusk.jpg", "coast-noon.jpg"] {
            try FileManager.default.copyItem(at: sample.appendingPathComponent(name), to: club.folder.appendingPathComponent("photos/\(name)"))
        }
        let thumbnails = state.appendingPathComponent("thumbnails")
        let first = rayApp(thumbnails: thumbnails)
        await first.start()
        first.press(.char("2"))
        _ = first.render(width: 120, height: 36)
        await first.waitUntil("both thumbnails fetched") { first.app.thumbnails.fetchedCount == 2 }
        await first.waitUntil("the photos list cached") { self.cache.listing(.photos)?.entries.count == 2 }
        first.app.requestQuit()
        try await club.stop()

        let second = rayApp(thumbnails: thumbnails)
        second.app.start()
        second.press(.char("2"))
        XCTAssertEqual(second.app.state.photos.entries.map(\.name), ["city-dusk.jpg", "coast-noon.jpg"])
        _ = second.render(width: 120, height: 36)
        await second.waitUntil("thumbnails from disk, offline") { second.app.thumbnails.diskHits == 2 }
        XCTAssertEqual(second.app.thumbnails.fetchedCount, 0)
        XCTAssertTrue(second.render(width: 120, height: 36).dump().contains("◷ Cached"))
        second.app.requestQuit()
    }
}
