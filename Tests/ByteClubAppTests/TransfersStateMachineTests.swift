import ByteClubApp
import Foundation
import Remote
import TerminalUI
import XCTest

/// The app's transfers as a value, without a server or a terminal: events in, actions out.
final class TransfersStateMachineTests: XCTestCase {
    private let part = URL(fileURLWithPath: "/tmp/.pano.jpg.byteclub-download")
    private let photo = RemoteEntry(kind: .file, name: "pano.jpg", path: "/byteclub/photos/pano.jpg", rev: "a1b2c3d4e5", size: 1000)

    private func upload(_ id: Int = 1, into machine: inout Transfers) -> [Transfers.Action] {
        let progress = TransferProgress(direction: .upload, name: "pano.jpg", total: 1000)
        return machine.started(PhotoTransfer(id: id, progress: progress, remotePath: photo.path, local: URL(fileURLWithPath: "/tmp/pano.jpg")), at: 10)
    }

    private func download(_ id: Int = 1, into machine: inout Transfers) -> [Transfers.Action] {
        let progress = TransferProgress(direction: .download, name: "pano.jpg", total: 1000, resumedFrom: 200)
        return machine.started(PhotoTransfer(id: id, progress: progress, remotePath: photo.path, local: part), at: 10)
    }

    func testAnUploadShowsTheModalRunsAndFinishes() {
        var machine = Transfers()
        XCTAssertEqual(upload(into: &machine), [.say(StatusMessage("Uploading \"pano.jpg\"…"))])
        XCTAssertEqual(machine.modalID, 1)
        XCTAssertEqual(machine.running, 1)
        XCTAssertTrue(machine.hasActive)

        XCTAssertTrue(machine.progressed(1, done: 400, expected: 1000, at: 11))
        XCTAssertEqual(machine[1]?.progress.done, 400)
        XCTAssertFalse(machine.progressed(7, done: 1, expected: 1, at: 11), "an unknown transfer changes nothing")

        let actions = machine.uploadFinished(1, .success(photo), at: 12)
        XCTAssertEqual(actions, [.say(StatusMessage("Uploaded \"pano.jpg\"")), .refreshPhotos(select: "/byteclub/photos/pano.jpg")])
        XCTAssertNil(machine.modalID)
        XCTAssertNil(machine[1])
        XCTAssertEqual(machine.running, 0)
        XCTAssertEqual(machine.uploadFinished(1, .success(photo), at: 13), [], "a second end is ignored")
    }

    func testCancellingAnUploadClosesTheModalAtOnceAndItRunsUntilItsTaskEnds() {
        var machine = Transfers()
        _ = upload(into: &machine)
        XCTAssertEqual(machine.cancelRequested(1), [.cancelTask(1), .say(StatusMessage("Cancelling the upload…"))])
        XCTAssertNil(machine.modalID)
        XCTAssertEqual(machine[1]?.progress.phase, .cancelled)
        XCTAssertEqual(machine.running, 1, "still stopping: quitting must still ask")
        XCTAssertFalse(machine.hasActive, "no figures to tick")
        _ = machine.progressed(1, done: 900, expected: 1000, at: 11)
        XCTAssertNotEqual(machine[1]?.progress.done, 900, "a late progress report does not bring it back")
        XCTAssertFalse(machine.hasActive)

        XCTAssertEqual(machine.uploadFinished(1, .failure(.cancelled), at: 12), [.say(StatusMessage("Upload cancelled"))])
        XCTAssertNil(machine[1])
        XCTAssertEqual(machine.running, 0)
    }

    func testAnUploadTheServerCommittedAfterEscIsTakenBack() {
        var machine = Transfers()
        _ = upload(into: &machine)
        _ = machine.cancelRequested(1)
        XCTAssertEqual(machine.uploadFinished(1, .success(photo), at: 12), [.deleteCommittedUpload(photo)])
        XCTAssertNil(machine[1])
    }

    func testAFailureStaysInTheModalUntilItIsClosed() {
        var machine = Transfers()
        _ = upload(into: &machine)
        let actions = machine.uploadFinished(1, .failure(.network("Connection refused")), at: 12)
        XCTAssertEqual(actions, [.say(.error("Upload of \"pano.jpg\" failed: Network error: Connection refused"))])
        XCTAssertEqual(machine.modalID, 1)
        XCTAssertEqual(machine[1]?.progress.phase, .failed("Network error: Connection refused"))
        XCTAssertEqual(machine.running, 0)
        machine.modalClosed(1)
        XCTAssertNil(machine.modalID)
        XCTAssertNil(machine[1])
    }

    func testABackgroundFailureIsOnlySaid() {
        var machine = Transfers()
        _ = upload(into: &machine)
        XCTAssertEqual(machine.backgrounded(1), [.say(StatusMessage("Still running in the background · t shows it"))])
        XCTAssertNil(machine.modalID)
        XCTAssertEqual(machine[1]?.isBackground, true)
        _ = machine.uploadFinished(1, .failure(.server(status: 500, detail: "boom")), at: 12)
        XCTAssertNil(machine[1])
        XCTAssertNil(machine.modalID)
    }

    func testTShowsTheNewestRunningTransfer() {
        var machine = Transfers()
        XCTAssertEqual(machine.showNewest(), [.say(StatusMessage("No transfer is running"))])
        _ = upload(1, into: &machine)
        _ = machine.backgrounded(1)
        _ = download(2, into: &machine)
        _ = machine.backgrounded(2)
        XCTAssertEqual(machine.active.map(\.id), [1, 2])
        XCTAssertEqual(machine.showNewest(), [])
        XCTAssertEqual(machine.modalID, 2)
        XCTAssertEqual(machine[2]?.isBackground, false)
    }

    func testADownloadIsPlacedThenReported() {
        var machine = Transfers()
        XCTAssertEqual(download(into: &machine), [], "the controller words a download's start (resuming or not)")
        XCTAssertEqual(machine[1]?.progress.done, 200, "resumed from where it paused")
        XCTAssertEqual(machine.downloadFinished(1, .success(photo), resumable: false), [.placeDownload(1)])
        XCTAssertEqual(machine.running, 0)
        XCTAssertEqual(machine.modalID, 1, "the modal stays until the file is in place")
        let placed = URL(fileURLWithPath: "/home/ray/Downloads/byteclub/pano.jpg")
        XCTAssertEqual(machine.downloadPlaced(1, at: placed), [.say(StatusMessage("Downloaded \"pano.jpg\" to \(placed.path)"))])
        XCTAssertNil(machine.modalID)
        XCTAssertNil(machine[1])
    }

    func testADownloadThatCannotBePlacedRemovesItsPartialFile() {
        var machine = Transfers()
        _ = download(into: &machine)
        _ = machine.downloadFinished(1, .success(photo), resumable: false)
        XCTAssertEqual(machine.downloadNotPlaced(1, why: "Permission denied"),
                       [.removeFile(part), .say(.error("Downloaded \"pano.jpg\" but cannot place it: Permission denied"))])
        XCTAssertEqual(machine[1]?.progress.phase, .failed("Cannot place the file: Permission denied"))
    }

    func testACancelledDownloadPausesWhenItsResumeDataWasKept() {
        var machine = Transfers()
        _ = download(into: &machine)
        XCTAssertEqual(machine.cancelRequested(1), [.cancelTask(1), .say(StatusMessage("Pausing the download…"))])
        XCTAssertEqual(machine[1]?.progress.phase, .paused)
        XCTAssertEqual(machine.downloadFinished(1, .failure(.cancelled), resumable: true), [.say(StatusMessage("Download paused, Enter resumes"))])
        XCTAssertNil(machine[1])

        _ = download(2, into: &machine)
        _ = machine.cancelRequested(2)
        XCTAssertEqual(machine.downloadFinished(2, .failure(.cancelled), resumable: false), [.say(StatusMessage("Download cancelled"))])
    }

    func testAFailedDownloadSaysWhetherEnterResumes() {
        var machine = Transfers()
        _ = download(into: &machine)
        XCTAssertEqual(machine.downloadFinished(1, .failure(.network("timed out")), resumable: true),
                       [.say(.error("Download of \"pano.jpg\" failed: Network error: timed out; Enter resumes"))])
        XCTAssertEqual(machine.transfer(ofPath: "/BYTECLUB/photos/PANO.jpg")?.id, 1, "paths compare without case")
        machine.forget(1)
        XCTAssertNil(machine[1], "Enter on a failed download starts it again")
    }

    func testAStoppingTransferIsNotForgottenAndItsModalCloseWaitsForTheTask() {
        var machine = Transfers()
        _ = download(into: &machine)
        _ = machine.cancelRequested(1)
        machine.forget(1)
        XCTAssertNotNil(machine[1], "its task still writes the partial file")
        machine.show(1)
        machine.modalClosed(1)
        XCTAssertNotNil(machine[1])
        XCTAssertEqual(machine.running, 1)
        _ = machine.downloadFinished(1, .failure(.network("reset")), resumable: true)
        XCTAssertNil(machine[1], "a closed modal's transfer goes when its task ends")
    }

    func testTicksFeedTheRateOfAStalledTransfer() {
        var machine = Transfers()
        _ = upload(into: &machine)
        _ = machine.progressed(1, done: 500, expected: 1000, at: 11)
        _ = machine.progressed(1, done: 1000 - 400, expected: 1000, at: 12)
        let before = machine[1]?.progress.rate ?? 0
        XCTAssertGreaterThan(before, 0)
        for second in 13...20 { machine.ticked(at: Double(second)) }
        XCTAssertLessThan(machine[1]?.progress.rate ?? 0, before, "no bytes for seconds: the rate falls")
    }
}
