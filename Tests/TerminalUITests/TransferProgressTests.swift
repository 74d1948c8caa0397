import TerminalUI
import TestSupport
import XCTest

/// The transfer state machine, its figures and texts (times are seconds on a made-up clock).
final class TransferProgressTests: XCTestCase {
    private func upload(total: Int64? = 100) -> TransferProgress {
        TransferProgress(direction: .upload, name: "photo.jpg", total: total)
    }

    func testStartThenProgressRuns() {
        var p = upload()
        XCTAssertEqual(p.phase, .starting)
        XCTAssertTrue(p.isActive)
        XCTAssertTrue(p.start(total: 200, at: 10))
        XCTAssertEqual(p.phase, .running)
        XCTAssertEqual(p.total, 200, "start may learn the size")
        XCTAssertEqual(p.startedAt, 10)
        XCTAssertFalse(p.start(at: 11), "a running transfer cannot start again")
        XCTAssertEqual(p.startedAt, 10)
        XCTAssertTrue(p.progress(done: 50, at: 11))
        XCTAssertEqual(p.done, 50)
    }

    func testProgressBeforeStartStartsTheTransfer() {
        var p = upload(total: nil)
        XCTAssertTrue(p.progress(done: 10, total: 1000, at: 5))
        XCTAssertEqual(p.phase, .running)
        XCTAssertEqual(p.startedAt, 5)
        XCTAssertEqual(p.total, 1000)
    }

    func testFinalPhasesIgnoreEveryEvent() {
        var cancelled = upload()
        cancelled.progress(done: 30, at: 1)
        XCTAssertTrue(cancelled.cancel())
        var finished = upload()
        finished.progress(done: 30, at: 1)
        XCTAssertTrue(finished.finish(at: 2))
        var failed = upload()
        failed.progress(done: 30, at: 1)
        XCTAssertTrue(failed.fail("Connection reset"))

        for var p in [cancelled, finished, failed] {
            let before = p
            XCTAssertTrue(p.isFinal)
            XCTAssertFalse(p.isActive)
            XCTAssertFalse(p.progress(done: 60, at: 3), "\(p.phase)")
            XCTAssertFalse(p.start(at: 3), "\(p.phase)")
            XCTAssertFalse(p.finish(at: 3), "\(p.phase)")
            XCTAssertFalse(p.fail("late"), "\(p.phase)")
            XCTAssertFalse(p.cancel(), "\(p.phase)")
            XCTAssertFalse(p.pause(), "\(p.phase)")
            XCTAssertEqual(p, before, "an ignored event changes nothing")
        }
        XCTAssertEqual(cancelled.phase, .cancelled)
        XCTAssertEqual(failed.phase, .failed("Connection reset"))
        XCTAssertEqual(finished.done, 100, "finishing fills in the last bytes")
    }

    func testCancelFailAndPauseWorkBeforeAnyByte() {
        var a = upload(), b = upload(), c = upload()
        XCTAssertTrue(a.cancel())
        XCTAssertTrue(b.fail("401 invalid_access_token"))
        XCTAssertTrue(c.pause())
        XCTAssertEqual([a.phase, b.phase, c.phase], [.cancelled, .failed("401 invalid_access_token"), .paused])
    }

    func testPausedDownloadResumesFromItsOffset() {
        var p = TransferProgress(direction: .download, name: "pano.jpg", total: 1000)
        p.start(at: 0)
        p.progress(done: 420, at: 1)
        XCTAssertTrue(p.pause())
        XCTAssertEqual(p.outcomeText, "Download paused at 42%, Enter resumes")
        XCTAssertEqual(p.statusText(), "↓ pano.jpg paused 42%")
        XCTAssertFalse(p.progress(done: 500, at: 2), "a late callback after the pause")
        XCTAssertFalse(p.finish(at: 2))
        XCTAssertFalse(p.pause())
        XCTAssertEqual(p.done, 420)
        XCTAssertNil(p.resumeMessage)

        XCTAssertTrue(p.start(at: 100))
        XCTAssertEqual(p.phase, .running)
        XCTAssertEqual(p.resumedFrom, 420)
        XCTAssertEqual(p.resumeMessage, "Resuming at 42%")
        XCTAssertEqual(p.percent, 42)
        XCTAssertNil(p.rate, "the rate starts afresh, not from the pause")
        p.progress(done: 920, at: 101)
        XCTAssertEqual(p.rate, 500, "only this run's bytes count")
    }

    func testTransferResumedAtCreation() {
        var p = TransferProgress(direction: .download, name: "pano.jpg", total: 2000, resumedFrom: 500)
        XCTAssertEqual(p.done, 500)
        XCTAssertEqual(p.resumeMessage, "Resuming at 25%")
        p.start(at: 0)
        p.progress(done: 1500, at: 2)
        p.finish(at: 2.5)
        XCTAssertEqual(p.averageRate, 600, "1500 bytes of this run in 2.5 s")
        var unknown = TransferProgress(direction: .download, name: "x", resumedFrom: 3_300_000)
        unknown.start(at: 0)
        XCTAssertEqual(unknown.resumeMessage, "Resuming at 3.1 MiB")
    }

    func testPercentRoundsDownAndReaches100OnlyWhenDone() {
        var p = upload(total: 100)
        p.start(at: 0)
        XCTAssertEqual(p.percent, 0)
        XCTAssertEqual(p.percentText, "0%")
        p.progress(done: 29, at: 1)
        XCTAssertEqual(p.percent, 29, "no 28.999…")
        p.progress(done: 42, at: 2)
        XCTAssertEqual(p.percentText, "42%")

        var big = upload(total: 1_000_000)
        big.progress(done: 999_999, at: 1)
        XCTAssertEqual(big.percent, 99)
        XCTAssertLessThan(big.fraction!, 1)
        big.progress(done: 1_000_000, at: 2)
        XCTAssertEqual(big.percent, 100, "every byte has moved")
        XCTAssertEqual(big.fraction, 1)
        XCTAssertEqual(big.phase, .running)

        var finished = upload(total: 1000)
        finished.progress(done: 10, at: 1)
        finished.finish(at: 2)
        XCTAssertEqual(finished.percent, 100)
        XCTAssertEqual(finished.fraction, 1)

        var empty = upload(total: 0)
        empty.start(at: 0)
        XCTAssertEqual(empty.percent, 0)
        empty.finish(at: 0)
        XCTAssertEqual(empty.percent, 100)
    }

    func testRateOverASlidingWindowFollowsASpeedChange() {
        var p = upload(total: 100_000_000)
        p.start(at: 0)
        // 1 MB/s for 4 s, reported every 1/8 s (exact in binary, so window edges are exact).
        var done: Int64 = 0
        var t = 0.0
        func run(steps: Int, bytesPerStep: Int64) {
            for _ in 0..<steps {
                t += 0.125
                done += bytesPerStep
                p.progress(done: done, at: t)
            }
        }
        run(steps: 32, bytesPerStep: 125_000)
        XCTAssertEqual(p.rate!, 1_000_000, accuracy: 1)
        XCTAssertEqual(p.rateText, "976.6 KiB/s")
        // Then 3 MB/s: after one second the window mixes both speeds, after two only the new one.
        run(steps: 8, bytesPerStep: 375_000)
        XCTAssertEqual(p.rate!, 2_000_000, accuracy: 1)
        run(steps: 8, bytesPerStep: 375_000)
        XCTAssertEqual(p.rate!, 3_000_000, accuracy: 1)
        XCTAssertEqual(p.rateText, "2.9 MiB/s")
    }

    func testRateIsUnknownForTheFirstHalfSecond() {
        var p = upload(total: 10_000_000)
        p.start(at: 7)
        p.progress(done: 100_000, at: 7.1)
        p.progress(done: 400_000, at: 7.4)
        XCTAssertNil(p.rate)
        XCTAssertEqual(p.rateText, "--")
        XCTAssertEqual(p.etaText, "--")
        p.progress(done: 500_000, at: 7.5)
        XCTAssertEqual(p.rate!, 1_000_000, accuracy: 1)
    }

    func testStalledConnectionLowersTheRate() {
        var p = upload(total: 10_000_000)
        p.start(at: 0)
        p.progress(done: 2_000_000, at: 2)
        XCTAssertEqual(p.rate!, 1_000_000, accuracy: 1)
        p.progress(done: 2_000_000, at: 3)
        XCTAssertEqual(p.rate!, 2_000_000 / 3, accuracy: 1, "the same bytes again, a second later")
        p.progress(done: 2_000_000, at: 4)
        XCTAssertEqual(p.rate, 0)
        XCTAssertNil(p.secondsLeft, "no ETA at zero speed")
        XCTAssertEqual(p.etaText, "--")
    }

    func testRetryFromZeroRestartsTheRate() {
        var p = upload(total: 10_000_000)
        p.start(at: 0)
        p.progress(done: 3_000_000, at: 1)
        p.progress(done: 0, at: 1.2)
        XCTAssertEqual(p.done, 0)
        XCTAssertNil(p.rate)
        p.progress(done: 1_000_000, at: 2.2)
        XCTAssertEqual(p.rate!, 1_000_000, accuracy: 1)
    }

    func testETAFromTheRate() {
        var p = upload(total: 20_000_000)
        p.start(at: 0)
        p.progress(done: 1_000_000, at: 1)
        p.progress(done: 3_000_000, at: 3)
        XCTAssertEqual(p.secondsLeft!, 17, accuracy: 0.001)
        XCTAssertEqual(p.etaText, "0:17")
        XCTAssertEqual(p.sizeText, "2.9 MiB / 19.1 MiB")
        XCTAssertEqual(p.detailText, "2.9 MiB / 19.1 MiB · 976.6 KiB/s · 0:17 left")

        var long = TransferProgress(direction: .download, name: "big.jpg", total: 3_723_000_000)
        long.start(at: 0)
        long.progress(done: 1_000_000, at: 1)
        XCTAssertEqual(long.etaText, "1:02:02")
        long.progress(done: 1_000_000, at: 2)
        XCTAssertEqual(long.etaText, "2:04:04", "half the speed, twice the time")
    }

    func testUnknownTotal() {
        var p = upload(total: nil)
        p.start(at: 0)
        p.progress(done: 3_300_000, at: 1)
        XCTAssertNil(p.fraction)
        XCTAssertNil(p.percent)
        XCTAssertEqual(p.percentText, "")
        XCTAssertEqual(p.sizeText, "3.1 MiB")
        XCTAssertEqual(p.rateText, "3.1 MiB/s")
        XCTAssertNil(p.secondsLeft)
        XCTAssertEqual(p.etaText, "--")
        XCTAssertEqual(p.statusText(), "↑ photo.jpg 3.1 MiB")
        p.finish(at: 2)
        XCTAssertEqual(p.total, 3_300_000, "the size is what arrived")
        XCTAssertEqual(p.percent, 100)
    }

    func testTexts() {
        var up = TransferProgress(direction: .upload, name: "photo.jpg", total: 1000)
        XCTAssertEqual(up.title, "Uploading photo.jpg")
        XCTAssertNil(up.outcomeText)
        up.progress(done: 420, at: 1)
        XCTAssertEqual(up.statusText(), "↑ photo.jpg 42%")
        XCTAssertEqual(up.statusText(nameWidth: 4), "↑ pho… 42%")
        up.cancel()
        XCTAssertEqual(up.outcomeText, "Upload cancelled")

        var down = TransferProgress(direction: .download, name: "pano.jpg", total: 8_000_000)
        XCTAssertEqual(down.title, "Downloading pano.jpg")
        down.start(at: 10)
        down.progress(done: 4_000_000, at: 12)
        down.finish(at: 14)
        XCTAssertEqual(down.outcomeText, "Downloaded pano.jpg")
        XCTAssertEqual(down.detailText, "7.6 MiB in 0:04 · 1.9 MiB/s")
        XCTAssertNil(down.rate, "no live rate once finished")

        var failed = TransferProgress(direction: .download, name: "pano.jpg")
        failed.fail("The connection stalled (no data for 30 s)")
        XCTAssertEqual(failed.outcomeText, "Download failed: The connection stalled (no data for 30 s)")
        XCTAssertEqual(failed.statusText(), "↓ pano.jpg failed")
    }

    func testByteFormat() {
        XCTAssertEqual(ByteFormat.size(0), "0 B")
        XCTAssertEqual(ByteFormat.size(999), "999 B")
        // Binary units, one decimal, as `byteclub ls` always wrote them: the app and the CLI
        // say the same size the same way.
        XCTAssertEqual(ByteFormat.size(1023), "1023 B")
        XCTAssertEqual(ByteFormat.size(1024), "1.0 KiB")
        XCTAssertEqual(ByteFormat.size(1075), "1.0 KiB")
        XCTAssertEqual(ByteFormat.size(1076), "1.1 KiB")
        XCTAssertEqual(ByteFormat.size(10_650), "10.4 KiB")
        XCTAssertEqual(ByteFormat.size(1_048_524), "1023.9 KiB")
        XCTAssertEqual(ByteFormat.size(1_048_525), "1.0 MiB", "rounding carries into the next unit")
        XCTAssertEqual(ByteFormat.size(12_345_678), "11.8 MiB")
        XCTAssertEqual(ByteFormat.size(20 << 20), "20.0 MiB")
        XCTAssertEqual(ByteFormat.size(1 << 30), "1.0 GiB")
        XCTAssertEqual(ByteFormat.size(Int64.max), "8192.0 PiB")
        XCTAssertEqual(ByteFormat.size(-5), "0 B")
        XCTAssertEqual(ByteFormat.rate(1_048_576), "1.0 MiB/s")
        XCTAssertEqual(ByteFormat.rate(512), "512 B/s")
        XCTAssertEqual(ByteFormat.rate(nil), "--")
        XCTAssertEqual(ByteFormat.rate(.nan), "--")
        XCTAssertEqual(ByteFormat.duration(0), "0:00")
        XCTAssertEqual(ByteFormat.duration(0.2), "0:01")
        XCTAssertEqual(ByteFormat.duration(17), "0:17")
        XCTAssertEqual(ByteFormat.duration(62), "1:02")
        XCTAssertEqual(ByteFormat.duration(3723), "1:02:03")
        XCTAssertEqual(ByteFormat.duration(nil), "--")
        XCTAssertEqual(ByteFormat.duration(.infinity), "--")
    }
}

/// The transfer modal: its keys and how it looks (golden snapshots at 80×24).
@MainActor
final class TransferModalTests: XCTestCase {
    /// An upload of 7.9 MB, 42% done at 1.2 MB/s.
    private func upload42() -> TransferProgress {
        var p = TransferProgress(direction: .upload, name: "pano-basement-lab.jpg", total: 7_900_000)
        p.start(at: 0)
        p.progress(done: 918_000, at: 1)
        p.progress(done: 3_318_000, at: 3)
        return p
    }

    private func open(_ progress: TransferProgress) -> (Compositor, TransferModal, () -> [TransferModal.Outcome]) {
        var outcomes: [TransferModal.Outcome] = []
        let compositor = Compositor()
        compositor.push(Fixture.Screen())
        let modal = TransferModal(progress) { outcomes.append($0) }
        compositor.push(modal)
        return (compositor, modal, { outcomes })
    }

    func testEscAndCCancelAndClose() async {
        for key in [Key.escape, .char("c")] {
            let (compositor, modal, outcomes) = open(upload42())
            XCTAssertEqual(compositor.handle(key), .consumed)
            XCTAssertEqual(outcomes(), [.cancel], "\(key)")
            XCTAssertFalse(compositor.contains(modal), "the modal closes at once")
        }
    }

    func testBSendsToTheBackground() async {
        let (compositor, modal, outcomes) = open(upload42())
        compositor.handle(.char("b"))
        XCTAssertEqual(outcomes(), [.background])
        XCTAssertFalse(compositor.contains(modal))
    }

    func testOtherKeysStopAtTheModal() async {
        let (compositor, modal, outcomes) = open(upload42())
        let screen = compositor.layers[0] as! Fixture.Screen
        XCTAssertEqual(compositor.handle(.down), .consumed)
        XCTAssertEqual(compositor.handle(.char("x")), .consumed)
        XCTAssertEqual(screen.list.selected, 0, "the list under the modal did not move")
        var interrupted = false
        compositor.onInterrupt = { interrupted = true }
        compositor.handle(.ctrl("c"))
        XCTAssertTrue(interrupted, "Ctrl-C passes through to quit")
        compositor.handle(.f(1))
        XCTAssertTrue(compositor.top is HelpOverlay, "F1 passes through to help")
        XCTAssertEqual(outcomes(), [])
        XCTAssertTrue(compositor.contains(modal))
    }

    func testAfterTheEndKeysOnlyClose() async {
        var finished = upload42()
        finished.finish(at: 6)
        let (compositor, modal, outcomes) = open(finished)
        compositor.handle(.char("b"))
        XCTAssertTrue(compositor.contains(modal), "nothing to send to the background")
        compositor.handle(.enter)
        XCTAssertEqual(outcomes(), [.close])
        XCTAssertFalse(compositor.contains(modal))

        var failed = upload42()
        failed.fail("Server error 503")
        let (compositor2, _, outcomes2) = open(failed)
        compositor2.handle(.escape)
        XCTAssertEqual(outcomes2(), [.close])
    }

    func testHelpListsTheKeys() async {
        let (compositor, modal, _) = open(upload42())
        let labels = compositor.commands().map { "\($0.keyLabel) \($0.description)" }
        XCTAssertTrue(labels.contains("Esc / c Cancel the transfer"), "\(labels)")
        XCTAssertTrue(labels.contains("b Keep it running in the background"), "\(labels)")
        modal.transfer.finish(at: 9)
        XCTAssertEqual(modal.commands().map(\.keyLabel), ["Esc / Enter / c"])
    }

    func testModalAtZeroPercent() async {
        var p = TransferProgress(direction: .upload, name: "pano-basement-lab.jpg", total: 7_900_000)
        p.start(at: 0)
        let (_, modal, _) = open(p)
        let canvas = Fixture.render([Fixture.Screen(), modal], width: 80, height: 24)
        assertSnapshot(canvas, named: "transfer-0-80x24")
        let text = canvas.dump()
        XCTAssertTrue(text.contains("Uploading pano-basement-lab.jpg"))
        XCTAssertTrue(text.contains("0%"))
        XCTAssertTrue(text.contains("0 B / 7.5 MiB · -- · -- left"))
        XCTAssertTrue(text.contains("Esc cancel · b background"))
    }

    func testModalAt42Percent() async {
        let (_, modal, _) = open(upload42())
        let canvas = Fixture.render([Fixture.Screen(), modal], width: 80, height: 24)
        assertSnapshot(canvas, named: "transfer-42-80x24")
        let text = canvas.dump()
        XCTAssertTrue(text.contains("42%"))
        XCTAssertTrue(text.contains("3.2 MiB / 7.5 MiB · 1.1 MiB/s · 0:04 left"))
        XCTAssertTrue(text.contains("Esc cancel · b background"))
    }

    func testModalAt100Percent() async {
        var p = upload42()
        p.progress(done: 7_900_000, at: 6)
        p.finish(at: 6.5)
        let (_, modal, _) = open(p)
        let canvas = Fixture.render([Fixture.Screen(), modal], width: 80, height: 24)
        assertSnapshot(canvas, named: "transfer-100-80x24")
        let text = canvas.dump()
        XCTAssertTrue(text.contains("100%"))
        XCTAssertTrue(text.contains("Uploaded pano-basement-lab.jpg"))
        XCTAssertTrue(text.contains("Esc close"))
        XCTAssertFalse(text.contains("b background"))
    }

    func testModalFailed() async {
        var p = upload42()
        p.fail("The connection stalled: no data for 30 s")
        let (_, modal, _) = open(p)
        let canvas = Fixture.render([Fixture.Screen(), modal], width: 80, height: 24)
        assertSnapshot(canvas, named: "transfer-failed-80x24")
        let error = canvas.position(of: "Upload failed")!
        XCTAssertEqual(canvas.style(x: error.x, y: error.y), canvas.theme.error)
        XCTAssertTrue(canvas.dump().contains("42%"), "the bar stays where it stopped")
    }

    func testModalWithUnknownSizeShowsNoBar() async {
        var p = TransferProgress(direction: .download, name: "pano.jpg")
        p.start(at: 0)
        p.progress(done: 2_400_000, at: 2)
        let (_, modal, _) = open(p)
        XCTAssertNil(modal.modal.progress)
        XCTAssertEqual(modal.modal.body, ["2.3 MiB · 1.1 MiB/s · -- left"])
        let canvas = Fixture.render([Fixture.Screen(), modal], width: 80, height: 24)
        XCTAssertNotNil(canvas.position(of: "2.3 MiB · 1.1 MiB/s · -- left"))
        XCTAssertNil(canvas.position(of: "░"))
    }
}
