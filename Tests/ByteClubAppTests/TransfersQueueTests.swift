import ByteClubApp
import Foundation
import Remote
import TerminalUI
import XCTest

/// Many transfers as a value: the queue, the limit of transfers at once, and the Transfers
/// panel's commands (cancel, pause, retry, clear), without a server or a terminal.
final class TransfersQueueTests: XCTestCase {
    private func photo(_ n: Int) -> RemoteEntry {
        RemoteEntry(kind: .file, name: "trip-\(n).jpg", path: "/byteclub/photos/trip-\(n).jpg", rev: "0000\(n)", size: 1000)
    }

    private func upload(_ id: Int) -> PhotoTransfer {
        PhotoTransfer(id: id, progress: TransferProgress(direction: .upload, name: "trip-\(id).jpg", total: 1000),
                      remotePath: "/byteclub/photos/trip-\(id).jpg", local: URL(fileURLWithPath: "/home/ray/trip-\(id).jpg"))
    }

    private func download(_ id: Int) -> PhotoTransfer {
        PhotoTransfer(id: id, progress: TransferProgress(direction: .download, name: "trip-\(id).jpg", total: 1000),
                      remotePath: "/byteclub/photos/trip-\(id).jpg", local: URL(fileURLWithPath: "/tmp/.trip-\(id).jpg.byteclub-download"))
    }

    /// Five uploads queued in a batch with room for `limit`.
    private func batch(limit: Int = 3, count: Int = 5) -> (Transfers, [Transfers.Action]) {
        var machine = Transfers()
        machine.limit = limit
        var actions: [Transfers.Action] = []
        for id in 1...count { actions += machine.enqueue(upload(id), showsModal: false) }
        return (machine, actions)
    }

    func testAtMostTheLimitRunAndTheRestWaitInOrder() {
        let (machine, actions) = batch()
        XCTAssertEqual(actions, [.startTask(1), .startTask(2), .startTask(3)], "a batch says nothing per file")
        XCTAssertEqual(machine.slotsInUse, 3)
        XCTAssertEqual(machine.queued.map(\.id), [4, 5])
        XCTAssertEqual(machine.rows.map(\.rowState), [.running, .running, .running, .queued, .queued])
        XCTAssertEqual(machine.active.map(\.id), [1, 2, 3], "queued transfers move no bytes")
        XCTAssertEqual(machine.running, 5, "quitting asks about queued ones too")
        XCTAssertNil(machine.modalID)
    }

    func testAnEndAdmitsTheNextInLine() {
        var (machine, _) = batch()
        let photo = photo(2)
        XCTAssertEqual(machine.uploadFinished(2, .success(photo), at: 20),
                       [.say(StatusMessage("Uploaded \"trip-2.jpg\"")), .refreshPhotos(select: photo.pathLower), .startTask(4)])
        XCTAssertEqual(machine.uploadFinished(1, .failure(.network("reset")), at: 21),
                       [.say(.error("Upload of \"trip-1.jpg\" failed: Network error: reset")), .startTask(5)])
        XCTAssertEqual(machine.queued, [])
        XCTAssertEqual(machine.rows.map(\.rowState), [.failed, .done, .running, .running, .running])
    }

    func testTheLimitIsHeldByStoppingTasksToo() {
        var (machine, _) = batch(limit: 1, count: 2)
        XCTAssertEqual(machine.cancelFromPanel(1), [.cancelTask(1), .say(StatusMessage("Cancelling the upload…"))])
        XCTAssertEqual(machine.slotsInUse, 1, "its connection is still open")
        XCTAssertEqual(machine.queued.map(\.id), [2])
        XCTAssertEqual(machine.uploadFinished(1, .failure(.cancelled), at: 12), [.say(StatusMessage("Upload cancelled")), .startTask(2)])
        XCTAssertEqual(machine.rows.map(\.rowState), [.cancelled, .running])
    }

    func testCancellingAQueuedTransferDropsItWithoutATask() {
        var (machine, _) = batch()
        XCTAssertEqual(machine.cancelFromPanel(5), [.cancelTask(5), .say(StatusMessage("Cancelled \"trip-5.jpg\" before it started"))])
        XCTAssertNil(machine[5])
        XCTAssertEqual(machine.queued.map(\.id), [4])
        XCTAssertEqual(machine.rows.last?.rowState, .cancelled)
        XCTAssertEqual(machine.running, 4)
        // Its slot never opened, so the end of another admits 4 only.
        XCTAssertEqual(machine.uploadFinished(1, .success(photo(1)), at: 20).last, .startTask(4))
        XCTAssertEqual(machine.queued, [])
    }

    func testCancellingARunningUploadAfterTheServerCommittedTakesItBack() {
        var (machine, _) = batch(count: 1)
        _ = machine.cancelFromPanel(1)
        XCTAssertEqual(machine.uploadFinished(1, .success(photo(1)), at: 12), [.deleteCommittedUpload(photo(1))])
        XCTAssertEqual(machine.rows.map(\.rowState), [.cancelled])
    }

    func testCancellingARunningDownloadDiscardsItsResumeData() {
        var machine = Transfers()
        XCTAssertEqual(machine.enqueue(download(1)), [.startTask(1)])
        XCTAssertEqual(machine.modalID, 1, "the transfer just asked for shows in the modal")
        XCTAssertEqual(machine.cancelFromPanel(1), [.cancelTask(1), .say(StatusMessage("Cancelling the download of \"trip-1.jpg\"…"))])
        XCTAssertNil(machine.modalID)
        let part = URL(fileURLWithPath: "/tmp/.trip-1.jpg.byteclub-download")
        XCTAssertEqual(machine.downloadFinished(1, .failure(.cancelled), resumable: true),
                       [.discardDownload(path: "/byteclub/photos/trip-1.jpg", part: part), .say(StatusMessage("Download cancelled"))])
        XCTAssertEqual(machine.rows.map(\.rowState), [.cancelled])
    }

    func testPauseAndResumeADownloadFromThePanel() {
        var machine = Transfers()
        _ = machine.enqueue(download(1), showsModal: false)
        XCTAssertEqual(machine.pauseOrResume(1), [.cancelTask(1), .say(StatusMessage("Pausing the download…"))])
        XCTAssertEqual(machine.downloadFinished(1, .failure(.cancelled), resumable: true), [.say(StatusMessage("Download paused, Enter resumes"))])
        XCTAssertEqual(machine.rows.map(\.rowState), [.paused])
        XCTAssertEqual(machine.running, 0)

        XCTAssertEqual(machine.pauseOrResume(1), [.download(path: "/byteclub/photos/trip-1.jpg")])
        XCTAssertEqual(machine.rows, [], "the resumed download gets a row of its own")

        _ = machine.enqueue(upload(2), showsModal: false)
        XCTAssertEqual(machine.pauseOrResume(2), [.say(StatusMessage("An upload cannot pause; c cancels it"))])
    }

    func testCancellingAPausedDownloadDropsItsResumeData() {
        var machine = Transfers()
        _ = machine.enqueue(download(1), showsModal: false)
        _ = machine.pauseOrResume(1)
        _ = machine.downloadFinished(1, .failure(.cancelled), resumable: true)
        XCTAssertEqual(machine.cancelFromPanel(1), [.discardDownload(path: "/byteclub/photos/trip-1.jpg", part: download(1).local),
                                                    .say(StatusMessage("Download of \"trip-1.jpg\" cancelled"))])
        XCTAssertEqual(machine.rows.map(\.rowState), [.cancelled])
    }

    func testRetryAsksForAFailedTransferAgain() {
        var (machine, _) = batch(count: 2)
        _ = machine.uploadFinished(1, .failure(.network("reset")), at: 12)
        XCTAssertEqual(machine.retry(2), [.say(StatusMessage("Only a failed transfer can be retried"))])
        XCTAssertEqual(machine.retry(1), [.upload(URL(fileURLWithPath: "/home/ray/trip-1.jpg"))])
        XCTAssertEqual(machine.rows.map(\.id), [2])

        var downloads = Transfers()
        _ = downloads.enqueue(download(3))
        _ = downloads.downloadFinished(3, .failure(.server(status: 500, detail: "boom")), resumable: false)
        XCTAssertEqual(downloads[3]?.rowState, .failed, "its modal shows the failure")
        XCTAssertEqual(downloads.retry(3), [.download(path: "/byteclub/photos/trip-3.jpg")])
        XCTAssertNil(downloads[3])
        XCTAssertNil(downloads.modalID)
    }

    func testClearDropsFinishedRowsOnly() {
        var (machine, _) = batch(count: 4)
        _ = machine.uploadFinished(1, .success(photo(1)), at: 12)
        _ = machine.uploadFinished(2, .failure(.network("reset")), at: 12)
        _ = machine.cancelFromPanel(3)
        _ = machine.uploadFinished(3, .failure(.cancelled), at: 12)
        _ = machine.enqueue(download(9), showsModal: false)
        _ = machine.pauseOrResume(9)
        _ = machine.downloadFinished(9, .failure(.cancelled), resumable: true)
        XCTAssertEqual(machine.rows.map(\.rowState), [.done, .failed, .cancelled, .running, .paused])
        machine.clearFinished()
        XCTAssertEqual(machine.rows.map(\.id), [4, 9], "running and paused rows stay")
    }

    func testTheStatusBarSumsSeveralTransfers() {
        var machine = Transfers()
        XCTAssertNil(machine.statusFigure)
        _ = machine.enqueue(upload(1), showsModal: false)
        _ = machine.progressed(1, done: 420, expected: 1000, at: 11)
        XCTAssertEqual(machine.statusFigure, "↑ trip-1.jpg 42%", "one alone by name, as before")
        _ = machine.enqueue(upload(2), showsModal: false)
        _ = machine.enqueue(download(3), showsModal: false)
        _ = machine.progressed(3, done: 870, expected: 1000, at: 11)
        XCTAssertEqual(machine.statusFigure, "↑2 ↓1 43%")
    }

    func testTheModalShowsAQueuedTransferAndEscDropsIt() {
        var machine = Transfers()
        machine.limit = 1
        _ = machine.enqueue(upload(1), showsModal: false)
        let actions = machine.enqueue(upload(2))
        XCTAssertEqual(actions, [.say(StatusMessage("\"trip-2.jpg\" waits for a free slot (1 at once) · T shows the transfers"))])
        XCTAssertEqual(machine.modalID, 2)
        XCTAssertEqual(machine.cancelRequested(2), [.cancelTask(2), .say(StatusMessage("Cancelled \"trip-2.jpg\" before it started"))])
        XCTAssertNil(machine.modalID)
        XCTAssertEqual(machine.uploadFinished(1, .success(photo(1)), at: 20).contains(.startTask(2)), false)
    }
}
