import Foundation
import TerminalUI
import XCTest

/// kitty keeps what it is sent: each picture goes once under an id (`a=t`) and is then only
/// placed (`a=p`), moved, removed (`a=d,d=i`) and at last freed (`a=d,d=I`). (Async tests:
/// swift-corelibs-xctest runs a `@MainActor` class's test methods only when they are.)
@MainActor
final class KittyPlacementTests: XCTestCase {
    private let picture = PixelImage(width: 64, height: 16, filledWith: (200, 40, 40))

    /// One frame placing each of `keys` (a key with its rect), as a layer would.
    private func frame(_ graphics: TerminalGraphics, _ pictures: [(key: String, rect: Rect)]) -> String {
        graphics.beginFrame()
        for (key, rect) in pictures { graphics.place(key: key, at: rect) { self.picture } }
        return String(decoding: graphics.endFrame().bytes, as: UTF8.self)
    }

    /// Every kitty command in `bytes`, without its payload, as `a=t,…` strings.
    private func commands(_ bytes: String) -> [String] {
        bytes.components(separatedBy: "\u{1B}_G").dropFirst().map { $0.split(separator: ";").first.map(String.init) ?? "" }
            .map { $0.components(separatedBy: "\u{1B}").first ?? $0 }
    }

    private func id(in bytes: String, action: String) -> String? {
        commands(bytes).first { $0.hasPrefix("a=\(action),") }?.split(separator: ",").first { $0.hasPrefix("i=") }.map(String.init)
    }

    private let top = Rect(x: 2, y: 1, width: 8, height: 2)
    private let below = Rect(x: 2, y: 4, width: 8, height: 2)

    func testAPictureIsSentOnceThenOnlyPlaced() async throws {
        let graphics = TerminalGraphics(mode: .kitty)
        let first = frame(graphics, [("a", top)])
        let sent = try XCTUnwrap(id(in: first, action: "t"), commands(first).description)
        XCTAssertEqual(id(in: first, action: "p"), sent, "placed under the id it was sent with")
        XCTAssertTrue(first.contains("\u{1B}7\u{1B}[2;3H\u{1B}_Ga=p,\(sent),p=1,c=8,r=2,C=1,q=2\u{1B}\\\u{1B}8"), first.suffix(80).debugDescription)
        XCTAssertEqual(frame(graphics, [("a", top)]), "", "nothing changed, nothing sent")

        let moved = frame(graphics, [("a", below)])
        XCTAssertEqual(commands(moved), ["a=p,\(sent),p=1,c=8,r=2,C=1,q=2"], "a scroll moves the placement (same ids replace it)")
        XCTAssertTrue(moved.contains("\u{1B}[5;3H"))

        let gone = frame(graphics, [])
        XCTAssertEqual(commands(gone), ["a=d,d=i,\(sent),p=1,q=2"], "off the screen: the placement goes, the image stays")
        let back = frame(graphics, [("a", top)])
        XCTAssertEqual(commands(back), ["a=p,\(sent),p=1,c=8,r=2,C=1,q=2"], "back on the screen: placed, not sent")
        XCTAssertEqual(graphics.imagesWritten, 1)
        XCTAssertEqual(graphics.placementsWritten, 3)
    }

    func testAScrollSendsOnlyTheNewPicture() async {
        let graphics = TerminalGraphics(mode: .kitty)
        let rows = (0..<4).map { Rect(x: 0, y: $0 * 3, width: 8, height: 2) }
        _ = frame(graphics, [("one", rows[0]), ("two", rows[1]), ("three", rows[2])])
        XCTAssertEqual(graphics.imagesWritten, 3)
        let scrolled = frame(graphics, [("two", rows[0]), ("three", rows[1]), ("four", rows[2])])
        let sent = commands(scrolled).filter { $0.hasPrefix("a=t,") }
        XCTAssertEqual(sent.count, 1, "only the picture that scrolled in is sent: \(commands(scrolled))")
        XCTAssertEqual(commands(scrolled).filter { $0.hasPrefix("a=p,") }.count, 3)
        XCTAssertEqual(commands(scrolled).filter { $0.hasPrefix("a=d,d=i,") }.count, 1, "the one that scrolled off")
        XCTAssertEqual(graphics.imagesWritten, 4)
    }

    func testASourceRectangleMovesWithoutPixels() async throws {
        let graphics = TerminalGraphics(mode: .kitty)
        let wide = PixelImage(width: 400, height: 20, filledWith: (1, 2, 3))
        func pan(_ x: Int) -> String {
            graphics.beginFrame()
            graphics.place(key: "panorama", source: Rect(x: x, y: 0, width: 100, height: 20), at: top) { wide }
            return String(decoding: graphics.endFrame().bytes, as: UTF8.self)
        }
        let first = pan(0)
        XCTAssertTrue(commands(first).contains { $0.hasPrefix("a=t,q=2,f=24,s=400,v=20,") }, "the whole picture is sent")
        let step = pan(30)
        XCTAssertEqual(commands(step).count, 1)
        XCTAssertTrue(commands(step)[0].hasSuffix(",x=30,y=0,w=100,h=20"), commands(step)[0])
        XCTAssertLessThan(step.utf8.count, 120, "a pan step costs a placement")
        XCTAssertEqual(graphics.imagesWritten, 1)

        // Other protocols get the part cut out and sent, as before.
        let sixel = TerminalGraphics(mode: .sixel, cellSize: Size(width: 8, height: 16))
        sixel.beginFrame()
        sixel.place(key: "panorama", source: Rect(x: 30, y: 0, width: 100, height: 20), at: top) { wide }
        XCTAssertTrue(String(decoding: sixel.endFrame().bytes, as: UTF8.self).contains("\u{1B}P"))
    }

    func testReleaseFreesAndAResizeReplacesAndCtrlLResends() async throws {
        let graphics = TerminalGraphics(mode: .kitty)
        let sent = try XCTUnwrap(id(in: frame(graphics, [("a", top)]), action: "t"))

        graphics.invalidate()  // what a resize does
        XCTAssertEqual(commands(frame(graphics, [("a", top)])), ["a=d,q=2", "a=p,\(sent),p=1,c=8,r=2,C=1,q=2"], "re-placed, not sent")

        graphics.screenWasRepainted()  // Ctrl-L: the terminal may have lost it
        let redrawn = frame(graphics, [("a", top)])
        XCTAssertEqual(commands(redrawn).first, "a=d,d=I,\(sent),q=2", "freed first")
        let again = try XCTUnwrap(id(in: redrawn, action: "t"), "and sent again")

        graphics.release(key: "a")  // the viewer closed
        XCTAssertEqual(commands(frame(graphics, [])), ["a=d,d=I,\(again),q=2"])
        XCTAssertEqual(graphics.exitBytes(), [], "nothing left to free")
        _ = frame(graphics, [("b", top)])
        XCTAssertTrue(String(decoding: graphics.exitBytes(), as: UTF8.self).contains("a=d,d=I,"), "on the way out every image is freed")
    }

    func testPicturesOffTheScreenAreFreedBeyondTheBudget() async throws {
        let graphics = TerminalGraphics(mode: .kitty)
        graphics.kittyUnplacedBudget = 64 * 16 * 3 * 3 / 2  // one and a half pictures
        let a = try XCTUnwrap(id(in: frame(graphics, [("a", top)]), action: "t"))
        XCTAssertFalse(frame(graphics, [("b", top)]).contains("d=I"), "one picture off the screen fits")
        let third = frame(graphics, [("c", top)])
        XCTAssertTrue(commands(third).contains("a=d,d=I,\(a),q=2"), "the least recently shown goes: \(commands(third))")
        XCTAssertFalse(third.contains("a=d,d=I,i=\(Int(a.dropFirst(2)).map { $0 + 1 } ?? 0),"), "the other stays")
    }

    func testLargePicturesGoInChunksThatAddUpToThePixels() async throws {
        let graphics = TerminalGraphics(mode: .kitty)
        var bytes: [UInt8] = []
        for i in 0..<(100 * 100) { bytes += [UInt8(i % 251), UInt8(i % 13), UInt8(i % 7)] }
        let image = PixelImage(width: 100, height: 100, bytes: bytes)
        graphics.beginFrame()
        graphics.place(key: "big", at: top) { image }
        let written = String(decoding: graphics.endFrame().bytes, as: UTF8.self)
        let chunks = written.components(separatedBy: "\u{1B}_G").dropFirst().filter { !$0.hasPrefix("a=p") }
        XCTAssertEqual(chunks.count, 10, "30,000 bytes are 40,000 in base64: ten chunks of at most 4096")
        XCTAssertTrue(chunks.first?.hasPrefix("a=t,q=2,f=24,s=100,v=100,") == true)
        XCTAssertTrue(chunks.first?.contains(",m=1;") == true)
        XCTAssertTrue(chunks.dropFirst().dropLast().allSatisfy { $0.hasPrefix("m=1,q=2;") })
        XCTAssertTrue(chunks.last?.hasPrefix("m=0,q=2;") == true)
        let payload = chunks.map { $0.split(separator: ";", maxSplits: 1)[1].prefix { $0 != "\u{1B}" } }.joined()
        XCTAssertEqual(Data(base64Encoded: payload).map { [UInt8]($0) }, bytes)
    }

    func testAPictureTooLargeForKittyIsNotSent() async {
        let graphics = TerminalGraphics(mode: .kitty)
        graphics.beginFrame()
        graphics.place(key: "huge", at: top) { PixelImage(width: TerminalGraphics.kittyMaxSide + 1, height: 1, filledWith: (0, 0, 0)) }
        XCTAssertEqual(graphics.endFrame().bytes, [], "neither sent nor placed")
        XCTAssertEqual(graphics.imagesWritten, 0)
    }

    func testInsideTmuxEveryCommandIsWrapped() async {
        let graphics = TerminalGraphics(mode: .kitty)
        graphics.wrapsForTmux = true
        let written = frame(graphics, [("a", top)])
        XCTAssertTrue(written.hasPrefix("\u{1B}Ptmux;\u{1B}\u{1B}_Ga=t,"), written.prefix(40).debugDescription)
        XCTAssertTrue(written.contains("\u{1B}Ptmux;\u{1B}\u{1B}_Ga=p,"))
    }
}

/// The picture kitty is sent for the viewer: once per zoom, at the screen's scale, never past
/// kitty's 10,000 pixels a side; a pan step only moves the source rectangle within it.
final class PanoramaRenditionTests: XCTestCase {
    func testTheRenditionDependsOnTheZoomNotThePan() {
        var port = PanoramaViewport(imageWidth: 16000, imageHeight: 2000, columns: 200, rows: 58, cellWidth: 10, cellHeight: 20)
        let size = port.rendition(maxSide: 10_000)
        XCTAssertEqual(size, Size(width: 9280, height: 1160), "the screen shows 1160 pixels high")
        XCTAssertEqual(port.sourceRect(in: size), Rect(x: 0, y: 0, width: 2000, height: 1160))
        port.pan(by: 20)
        XCTAssertEqual(port.rendition(maxSide: 10_000), size, "panning keeps the picture sent")
        XCTAssertEqual(port.sourceRect(in: size), Rect(x: 200, y: 0, width: 2000, height: 1160))
        port.panToEnd()
        let end = port.sourceRect(in: size)
        XCTAssertEqual(end.x + end.width, 9280, "the right end")

        port.setZoom(8)
        let zoomed = port.rendition(maxSide: 10_000)
        XCTAssertEqual(zoomed, Size(width: 10_000, height: 1250), "past the picture's own pixels: the picture, within kitty's limit")
        let part = port.sourceRect(in: zoomed)
        XCTAssertLessThanOrEqual(part.x + part.width, zoomed.width)
        XCTAssertLessThanOrEqual(part.y + part.height, zoomed.height)
        XCTAssertEqual(Double(part.width) / Double(part.height), 2000.0 / 1160.0, accuracy: 0.02, "the screen's shape")
    }
}
