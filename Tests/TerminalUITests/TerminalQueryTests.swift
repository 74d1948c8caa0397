import TerminalUI
import XCTest

/// The terminal's answers to the start-up questions, taken out of the key stream (whole, cut
/// across reads, mixed with keys), the detection that reads them, and how pictures are placed.
final class TerminalQueryTests: XCTestCase {
    private let kittyOK = "\u{1B}_Gi=31;OK\u{1B}\\"
    private let da1Sixel = "\u{1B}[?62;4;22c"

    func testAnswersNeverBecomeKeys() {
        var decoder = KeyDecoder()
        let keys = decoder.feed(Array(("a" + kittyOK + "\u{1B}P>|kitty(0.35.2)\u{1B}\\" + "\u{1B}[6;20;10t" + da1Sixel + "b").utf8))
            + decoder.flush()
        XCTAssertEqual(keys, [.char("a"), .char("b")])
        XCTAssertEqual(decoder.takeReplies(), [
            .kittyGraphics(id: 31, ok: true), .version("kitty(0.35.2)"), .cellSize(width: 10, height: 20), .deviceAttributes([62, 4, 22]),
        ])
        XCTAssertEqual(decoder.takeReplies(), [], "taken once")
    }

    func testAKittyErrorAndABELTerminator() {
        var decoder = KeyDecoder()
        let keys = decoder.feed(Array("\u{1B}_Gi=31;ENOTSUPPORTED:no\u{07}x".utf8)) + decoder.flush()
        XCTAssertEqual(keys, [.char("x")])
        XCTAssertEqual(decoder.takeReplies(), [.kittyGraphics(id: 31, ok: false)])
    }

    func testAnswersCutAcrossReadsAreHeldWhileAwaited() {
        let stream = Array(("j" + kittyOK + "\u{1B}P>|WezTerm 2024\u{1B}\\" + da1Sixel + "k").utf8)
        // Every cut, with the input going quiet (flush) after each piece, as curses' reads do.
        for cut in 1..<stream.count {
            var decoder = KeyDecoder()
            decoder.awaitingReplies = true
            var keys = decoder.feed(stream[..<cut]) + decoder.flush()
            keys += decoder.feed(stream[cut...]) + decoder.flush()
            XCTAssertEqual(keys, [.char("j"), .char("k")], "cut at \(cut)")
            XCTAssertEqual(decoder.takeReplies(), [.kittyGraphics(id: 31, ok: true), .version("WezTerm 2024"), .deviceAttributes([62, 4, 22])],
                           "cut at \(cut)")
        }
    }

    func testByteByByteAsCursesHandsThemOver() {
        var decoder = KeyDecoder()
        decoder.awaitingReplies = true
        var keys: [Key] = []
        for byte in Array((kittyOK + "q" + da1Sixel).utf8) { keys += decoder.feed([byte]) }
        keys += decoder.flush()
        XCTAssertEqual(keys, [.char("q")])
        XCTAssertEqual(decoder.takeReplies().count, 2)
    }

    func testKeysThatLookLikeAnswersStayKeys() {
        // Alt-P, Alt-_ and an Alt-P followed by Enter are keys when nothing was asked.
        XCTAssertEqual(KeyDecoder.decode("\u{1B}P"), [.alt("P")])
        XCTAssertEqual(KeyDecoder.decode("\u{1B}_"), [.alt("_")])
        XCTAssertEqual(KeyDecoder.decode("\u{1B}Px"), [.alt("P"), .char("x")])
        XCTAssertEqual(KeyDecoder.decode("\u{1B}_Gab\r"), [.alt("_"), .char("G"), .char("a"), .char("b"), .enter],
                       "a control key ends what is not an answer")
        XCTAssertEqual(KeyDecoder.decode("\u{1B}[A\u{1B}[1;5C"), [.up, .wordRight])
    }

    func testTypingAfterAnAltKeyThatLooksLikeAnAnswerIsNotHeld() {
        // Alt-_ then "Gab", the input then quiet (curses' flush): the keys come out at once,
        // not when some later control key ends the would-be answer.
        var decoder = KeyDecoder()
        var keys = decoder.feed(Array("\u{1B}_Gab".utf8))
        keys += decoder.flush()
        XCTAssertEqual(keys, [.alt("_"), .char("G"), .char("a"), .char("b")])
        keys = decoder.feed(Array("\u{1B}Pq\u{1B}".utf8)) + decoder.flush()
        XCTAssertEqual(keys, [.alt("P"), .char("q"), .escape])
    }

    func testDetectionPrefersKittyThenITermThenSixel() {
        var detection = GraphicsDetection()
        XCTAssertFalse(detection.receive(.kittyGraphics(id: 31, ok: true)))
        XCTAssertTrue(detection.receive(.deviceAttributes([62, 4])), "device attributes end it")
        XCTAssertEqual(detection.mode, .kitty)

        detection = GraphicsDetection()
        _ = detection.receive(.version("iTerm2 3.5.0"))
        _ = detection.receive(.deviceAttributes([62, 4]))
        XCTAssertEqual(detection.mode, .iterm)

        detection = GraphicsDetection()
        _ = detection.receive(.deviceAttributes([62, 4, 22]))
        XCTAssertEqual(detection.mode, .sixel)

        detection = GraphicsDetection()
        _ = detection.receive(.deviceAttributes([1, 2]))
        XCTAssertEqual(detection.mode, .symbols)

        detection = GraphicsDetection()
        XCTAssertTrue(detection.timeOut(), "a terminal that answers nothing")
        XCTAssertFalse(detection.timeOut())
        XCTAssertEqual(detection.mode, .symbols)

        detection = GraphicsDetection(inTmux: true, tmuxPassthrough: false)
        _ = detection.receive(.kittyGraphics(id: 31, ok: true))
        XCTAssertEqual(detection.mode, .symbols, "tmux without passthrough gets symbols")
        XCTAssertFalse(detection.questions.contains("tmux;"))
        XCTAssertTrue(GraphicsDetection(inTmux: true, tmuxPassthrough: true).questions.hasPrefix("\u{1B}Ptmux;\u{1B}\u{1B}_G"))
    }

    func testImagesOption() {
        XCTAssertEqual(ImagesOption(argument: "auto"), .auto)
        XCTAssertEqual(ImagesOption(argument: "sixel"), .forced(.sixel))
        XCTAssertNil(ImagesOption(argument: "png"))
    }
}

/// Pictures placed over the cells: sent when they change, removed when they go. (Async tests:
/// swift-corelibs-xctest runs a `@MainActor` class's test methods only when they are.)
@MainActor
final class TerminalGraphicsTests: XCTestCase {
    private let picture = PixelImage(width: 64, height: 16, filledWith: (200, 40, 40))

    private func frame(_ graphics: TerminalGraphics, key: String?, rect: Rect = Rect(x: 2, y: 1, width: 8, height: 2)) -> TerminalGraphics.FrameOutput {
        graphics.beginFrame()
        if let key { graphics.place(key: key, at: rect) { self.picture } }
        return graphics.endFrame()
    }

    func testKittyImagesAreSentOnChangeAndDeleted() async {
        let graphics = TerminalGraphics(mode: .kitty)
        let first = String(decoding: frame(graphics, key: "a").bytes, as: UTF8.self)
        XCTAssertTrue(first.contains("\u{1B}[2;3H"), "at the picture's top-left")
        XCTAssertTrue(first.contains("\u{1B}_Ga=t,q=2,f=24,s=64,v=16,i=1000,m=0;"), first.prefix(80).debugDescription)
        XCTAssertEqual(frame(graphics, key: "a").bytes, [], "nothing changed, nothing sent")
        let other = String(decoding: frame(graphics, key: "b").bytes, as: UTF8.self)
        XCTAssertTrue(other.hasPrefix("\u{1B}_Ga=d,d=i,i=1000,p=1,q=2\u{1B}\\"), "the old placement is deleted first")
        XCTAssertEqual(String(decoding: frame(graphics, key: nil).bytes, as: UTF8.self), "\u{1B}_Ga=d,d=i,i=1001,p=1,q=2\u{1B}\\", "closed: deleted")
        XCTAssertEqual(graphics.imagesWritten, 2)
    }

    func testSixelsNeedARepaintToGo() async {
        let graphics = TerminalGraphics(mode: .sixel, cellSize: Size(width: 8, height: 16))
        let first = String(decoding: frame(graphics, key: "a").bytes, as: UTF8.self)
        XCTAssertTrue(first.contains("\u{1B}P") && first.contains("q"), "a sixel image")
        let same = frame(graphics, key: "b")
        XCTAssertFalse(same.needsRepaint, "a new picture in the same place covers the old one")
        let gone = frame(graphics, key: nil)
        XCTAssertTrue(gone.needsRepaint)
        XCTAssertEqual(gone.bytes, [])
        XCTAssertFalse(frame(graphics, key: nil).needsRepaint, "once")
    }

    func testAResizeOrCtrlLSendsThemAgain() async {
        let kitty = TerminalGraphics(mode: .kitty)
        _ = frame(kitty, key: "a")
        kitty.invalidate()  // what a resize does
        let again = String(decoding: frame(kitty, key: "a").bytes, as: UTF8.self)
        XCTAssertTrue(again.hasPrefix("\u{1B}_Ga=d,q=2\u{1B}\\") && again.contains("a=p,i=1000,"), "deleted and placed again")

        let sixel = TerminalGraphics(mode: .sixel, cellSize: Size(width: 8, height: 16))
        _ = frame(sixel, key: "a")
        sixel.screenWasRepainted()  // Ctrl-L: curses repainted over it
        let repainted = frame(sixel, key: "a")
        XCTAssertFalse(repainted.needsRepaint, "the repaint already erased it")
        XCTAssertTrue(String(decoding: repainted.bytes, as: UTF8.self).contains("\u{1B}P"), "drawn again")
        sixel.invalidate()  // a resize: the old one must go first
        XCTAssertTrue(frame(sixel, key: "a").needsRepaint)
        XCTAssertTrue(String(decoding: frame(sixel, key: "a").bytes, as: UTF8.self).contains("\u{1B}P"))
    }

    func testSymbolsPlaceNothing() async {
        let graphics = TerminalGraphics(mode: .symbols)
        XCTAssertEqual(frame(graphics, key: "a"), TerminalGraphics.FrameOutput())
    }

    func testITermImages() async {
        let graphics = TerminalGraphics(mode: .iterm)
        let bytes = String(decoding: frame(graphics, key: "a").bytes, as: UTF8.self)
        XCTAssertTrue(bytes.contains("\u{1B}]1337;File=inline=1"), bytes.prefix(60).debugDescription)
    }
}

/// The viewer's arithmetic: fitted to the height, panned, zoomed, fitted whole.
final class PanoramaViewportTests: XCTestCase {
    func testFitsTheHeightAndPans() {
        var port = PanoramaViewport(imageWidth: 16000, imageHeight: 2000, columns: 200, rows: 58)
        XCTAssertEqual(port.contentRows, 58)
        XCTAssertEqual(port.contentColumns, 928)
        XCTAssertEqual(port.maxOffset, 728)
        port.pan(by: -5)
        XCTAssertEqual(port.offset, 0)
        port.pan(by: 20)
        XCTAssertEqual(port.offset, 20)
        port.panToEnd()
        XCTAssertEqual(port.offset, 728)
        XCTAssertEqual(port.shownFraction.end, 1)
        port.pan(by: 50)
        XCTAssertEqual(port.offset, 728)
    }

    func testZoomKeepsTheMiddleAndFitShowsTheWhole() {
        var port = PanoramaViewport(imageWidth: 16000, imageHeight: 2000, columns: 200, rows: 58, offset: 300)
        let middle = (Double(port.offset) + 100) / Double(port.contentColumns)
        port.zoom(in: true)
        XCTAssertEqual(port.zoom, 1.5)
        XCTAssertEqual((Double(port.offset) + 100) / Double(port.contentColumns), middle, accuracy: 0.01)
        XCTAssertEqual(port.rowOffset, (port.contentRows - 58) / 2, "zoomed in, the middle band")
        port.fitWhole()
        XCTAssertTrue(port.showsWholeWidth)
        XCTAssertEqual(port.offset, 0)
        XCTAssertEqual(port.contentColumns, 200)
        port.zoom(in: false)
        XCTAssertEqual(port.zoom, port.fitWholeZoom, "no further out than the whole")
    }

    func testPixelCellsAndTheSourceRegion() {
        let port = PanoramaViewport(imageWidth: 8000, imageHeight: 1000, columns: 100, rows: 50, cellWidth: 10, cellHeight: 20, offset: 100)
        // 50 rows of 20 px show 1000 px: one picture pixel a display pixel.
        XCTAssertEqual(port.scale, 1)
        XCTAssertEqual(port.contentColumns, 800)
        let region = port.sourceRegion
        XCTAssertEqual(region.x, 1000)
        XCTAssertEqual(region.width, 1000)
        XCTAssertEqual(region.height, 1000)
    }

    func testOnlyTheWindowBecomesCells() {
        let picture = PanoramaPicture(PixelImage(width: 1600, height: 200, filledWith: (10, 200, 10)))
        let port = PanoramaViewport(imageWidth: 1600, imageHeight: 200, columns: 40, rows: 10, offset: 30)
        let cells = picture.cells(port, depth: .truecolor)
        XCTAssertEqual(cells.size, Size(width: 40, height: 10))
        XCTAssertEqual(picture.window(PanoramaViewport(imageWidth: 1600, imageHeight: 200, columns: 40, rows: 10, cellWidth: 10, cellHeight: 20)).height, 200)
    }
}
