import ByteClubApp
import ClubServer
import Foundation
import Remote
import XCTest

/// The writes made at once (``OutboxSender/Direct``) beside a queue that still holds changes,
/// against a real club server on loopback: a folder renamed while a save into it waits, a
/// folder deleted under a waiting save, and a write while another sender holds the lock.
extension OutboxSenderTests {
    /// A save queued offline into "Trips" (at the rev it was read at).
    private func queueSaveInTrips() async throws -> OutboxItem {
        _ = try await ray.createFolder("/byteclub/Trips")
        let day = try await ray.upload(data: Data("day 1\n".utf8), to: "/byteclub/Trips/Day one.txt", mode: .add, autorename: false)
        return try outbox.append(item(.save, "/byteclub/Trips/Day one.txt", baseRev: day.rev, text: "day 1\nday 2\n", draftID: "note-day"))
    }

    /// Another sender (`byteclub outbox --send`) holds the outbox's lock until the function
    /// returned is called.
    private func anotherSenderHoldsTheLock() async -> () async -> Void {
        let holding = AsyncStream<Void>.makeStream()
        let release = AsyncStream<Void>.makeStream()
        let holder = Task { [outbox] in
            await outbox!.withSendLock { () async -> Void in
                holding.continuation.yield()
                for await _ in release.stream { break }
            }
        }
        for await _ in holding.stream { break }
        return {
            release.continuation.yield()
            await holder.value
        }
    }

    func testAFolderRenamedWhileASaveIntoItWaitsTakesTheSaveAlong() async throws {
        let queued = try await queueSaveInTrips()
        let direct = OutboxSender.Direct(store: ray, outbox: outbox)

        let moved = try await direct.move(from: "/byteclub/Trips", to: "/byteclub/Travel")
        XCTAssertEqual(moved.path, "/byteclub/Travel")
        XCTAssertEqual(outbox.all().map(\.path), ["/byteclub/Travel/Day one.txt"], "the waiting save follows the folder")
        XCTAssertEqual(outbox.all().first?.id, queued.id)

        let (run, reports) = await send()
        XCTAssertEqual(run, .done)
        XCTAssertEqual(reports.map { Self.summary($0.result).hasPrefix("sent /byteclub/Travel/Day one.txt") }, [true])
        let text = try await text("/byteclub/Travel/Day one.txt")
        XCTAssertEqual(text, "day 1\nday 2\n", "the queued text lands in the renamed folder, not as a draft")
        await assertMissing("/byteclub/Trips")
    }

    func testAFolderWithAWaitingSaveIsNotDeleted() async throws {
        _ = try await queueSaveInTrips()
        let direct = OutboxSender.Direct(store: ray, outbox: outbox)
        do {
            _ = try await direct.delete("/byteclub/Trips")
            XCTFail("a folder that queued text writes into was deleted")
        } catch {
            XCTAssertEqual(error.message, "a change to \"Trips\" waits to be sent first (byteclub outbox lists it)")
        }
        let kept = try await text("/byteclub/Trips/Day one.txt")
        XCTAssertEqual(kept, "day 1\n")
        // Once the save is sent, the folder goes.
        let (run, _) = await send()
        XCTAssertEqual(run, .done)
        let deleted = try await direct.delete("/byteclub/Trips")
        XCTAssertEqual(deleted.kind, .folder)
        await assertMissing("/byteclub/Trips/Day one.txt")
    }

    func testAWriteWaitsForAnotherSenderAndSaysSoWhenItDoesNotLetGo() async throws {
        var direct = OutboxSender.Direct(store: ray, outbox: outbox)
        direct.lockWait = .milliseconds(200)
        let letGo = await anotherSenderHoldsTheLock()
        do {
            _ = try await direct.move(from: "/byteclub/Notes.txt", to: "/byteclub/Moved.txt")
            XCTFail("moved while another sender held the outbox")
        } catch {
            XCTAssertEqual(error.message, "Another byteclub is sending this club's outbox; try again when it is done")
        }
        let still = try await text("/byteclub/Notes.txt")
        XCTAssertEqual(still, "first\n", "nothing moved")
        await letGo()
        let moved = try await direct.move(from: "/byteclub/Notes.txt", to: "/byteclub/Moved.txt")
        XCTAssertEqual(moved.path, "/byteclub/Moved.txt")
    }

    /// `put -r` (``OutboxSender/Direct/putFolder(_:into:mode:transfer:)``): its notes wait for
    /// another sender as the other writes do, and nothing of the folder's notes lands meanwhile;
    /// once the lock is free they land, and their front matter's tags become club tags.
    func testAFolderPutWaitsForAnotherSenderThenLandsWithItsTags() async throws {
        var direct = OutboxSender.Direct(store: ray, outbox: outbox)
        direct.lockWait = .milliseconds(200)
        let local = FileManager.default.temporaryDirectory.appendingPathComponent("put-r-\(UUID().uuidString)/Trip")
        try FileManager.default.createDirectory(at: local.appendingPathComponent("Days"), withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: local.deletingLastPathComponent()) }
        try Data("---\ntags: [travel]\n---\nday one\n".utf8).write(to: local.appendingPathComponent("Days/Day one.md"))
        try Data("packing\n".utf8).write(to: local.appendingPathComponent("List.md"))
        let transfer = { FolderTransfer(store: self.ray, streams: nil, dryRun: false) }

        let letGo = await anotherSenderHoldsTheLock()
        do {
            _ = try await direct.putFolder(local, into: "/byteclub/Trip", mode: .add, transfer: transfer())
            XCTFail("a folder of notes was put while another sender held the outbox")
        } catch {
            XCTAssertEqual((error as? RemoteError)?.message, "Another byteclub is sending this club's outbox; try again when it is done")
        }
        await assertMissing("/byteclub/Trip/List.md")
        await assertMissing("/byteclub/Trip/Days/Day one.md")
        await letGo()

        let (tally, said) = try await direct.putFolder(local, into: "/byteclub/Trip", mode: .add, transfer: transfer())
        XCTAssertEqual(tally.sent, 2)
        XCTAssertEqual(said, [])
        let day = try await text("/byteclub/Trip/Days/Day one.md")
        XCTAssertEqual(day, "---\ntags: [travel]\n---\nday one\n")
        let tags = try await XCTUnwrap(ray as? any TaggingStore).tags(of: ["/byteclub/Trip/Days/Day one.md"])
        XCTAssertEqual(tags["/byteclub/trip/days/day one.md"], ["travel"], "the front matter's tags became club tags")
    }

    /// `import` (``OutboxSender/Direct/importVault(_:event:)``): the vault's notes wait for
    /// another sender as `put -r`'s do, then land.
    func testAVaultImportWaitsForAnotherSenderThenLands() async throws {
        var direct = OutboxSender.Direct(store: ray, outbox: outbox)
        direct.lockWait = .milliseconds(200)
        let vault = FileManager.default.temporaryDirectory.appendingPathComponent("import-\(UUID().uuidString)/Vault")
        try FileManager.default.createDirectory(at: vault.appendingPathComponent("Days"), withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: vault.deletingLastPathComponent()) }
        try Data("day one, see [[Home]]\n".utf8).write(to: vault.appendingPathComponent("Days/Day one.md"))
        try Data("home\n".utf8).write(to: vault.appendingPathComponent("Home.md"))
        let vaultImport = VaultImport(store: ray, vault: VaultFiles(walking: vault), folder: "/byteclub/Vault", photos: "/byteclub/photos")

        let letGo = await anotherSenderHoldsTheLock()
        do {
            _ = try await direct.importVault(vaultImport)
            XCTFail("a vault was imported while another sender held the outbox")
        } catch {
            XCTAssertEqual((error as? RemoteError)?.message, "Another byteclub is sending this club's outbox; try again when it is done")
        }
        await assertMissing("/byteclub/Vault/Home.md")
        await letGo()

        let report = try await direct.importVault(vaultImport)
        XCTAssertEqual(report.sent, 2)
        let day = try await text("/byteclub/Vault/Days/Day one.md")
        XCTAssertEqual(day, "day one, see [[Home]]\n")
    }

    func testAnOverwriteUnderANewTitleMovesTheNoteThenWritesOverTheRevOfNow() async throws {
        // ann changed the note since it was opened: Overwrite writes over her rev.
        let theirs = try await rev("/byteclub/Plans.txt")
        _ = try await ann.upload(data: Data("hers\n".utf8), to: "/byteclub/Plans.txt", mode: .update(rev: theirs), autorename: false)
        let direct = OutboxSender.Direct(store: ray, outbox: outbox)
        let done = try await direct.overwrite(Data("mine\n".utf8), at: "/byteclub/Plans 2.txt", from: "/byteclub/Plans.txt")
        XCTAssertEqual(done.moved?.path, "/byteclub/Plans 2.txt")
        XCTAssertEqual(try done.written.get().path, "/byteclub/Plans 2.txt")
        let text = try await text("/byteclub/Plans 2.txt")
        XCTAssertEqual(text, "mine\n")
        await assertMissing("/byteclub/Plans.txt")
        let history = try await ray.revisions("/byteclub/Plans 2.txt", limit: 10)
        XCTAssertEqual(history.entries.count, 4, "hers, moved and ours are kept: a restore still finds her text")
    }
}
