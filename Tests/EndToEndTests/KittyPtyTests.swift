import Foundation
import TestSupport
import XCTest

/// What kitty pictures cost once sent: the app in a pseudo-terminal that answers the start-up
/// questions as kitty does (as in ``ViewerPtyTests``) and counts the bytes of each step.
///
/// kitty keeps what it is sent, so a pan step in the viewer must only move the placement's
/// source rectangle, and a scroll of the photo list must only re-place the thumbnails it
/// already sent. Each step waits for the placement it causes (no fixed sleeps).
final class KittyPtyTests: XCTestCase {
    var base: URL!

    override func setUpWithError() throws {
        base = FileManager.default.temporaryDirectory.appendingPathComponent("byteclub-kitty-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: base, withIntermediateDirectories: true)
    }

    override func tearDown() {
        try? FileManager.default.removeItem(at: base)
    }

    /// What the fake terminal measured.
    struct Seen: Decodable {
        var reached: String
        /// Pan: bytes written from the end of the first placement to the end of the tenth step's.
        var panBytes: Int?
        var panPlacements: Int?
        var panTransmits: Int?
        var panSources: [String]?
        /// Pan: the viewer's image was freed and sent again after Ctrl-L, and freed on Esc.
        var resentAfterRedraw: Bool?
        /// Pan: help over the viewer removed the placement and closing it re-placed the picture, unsent.
        var helpKeptPicture: Bool?
        var freedOnClose: Bool?
        /// Scroll: the ids sent (`a=t`), in order, and what the scroll back up wrote.
        var transmitted: [Int]?
        var scrollBytes: Int?
        var scrollTransmits: Int?
        var scrollPlaced: [Int]?
        /// Note: the photo in a note's rendered view, sent how often, and what three scroll steps sent.
        var noteSends: Int?
        var noteScrollPlacements: Int?
        var noteScrollSends: Int?
        /// Note: scrolled on until the photo is partly above the top: the last placement's
        /// source top (pixels) and rows, the rows of the whole one before, and what those steps sent.
        var noteCutSource: [Int]?
        var noteCutSends: Int?
        /// Note: the web link's OSC 8 hyperlink was written around its text.
        var hyperlink: Bool?
        var status: Int?
    }

    func run(_ mode: String, columns: Int, rows: Int) throws -> Seen {
        let binary = try AppHarness.binary.path
        let script = base.appendingPathComponent("terminal.py")
        try Self.terminal.write(to: script, atomically: true, encoding: .utf8)
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["python3", script.path, mode, String(columns), String(rows), binary,
                             "--data-dir", base.appendingPathComponent("club").path,
                             "--download-dir", base.appendingPathComponent("downloads").path]
        process.environment = [
            "HOME": base.appendingPathComponent("home").path,
            "XDG_STATE_HOME": base.appendingPathComponent("state").path,
            "XDG_CONFIG_HOME": base.appendingPathComponent("config").path,
            "XDG_CACHE_HOME": base.appendingPathComponent("cache").path,
            "XDG_DATA_HOME": base.appendingPathComponent("data").path,
            "PATH": "/usr/bin:/bin", "TERM": "xterm-256color", "LANG": "C.UTF-8", "USER": "ray",
            "SWIFT_BACKTRACE": "interactive=no",
        ]
        let output = Pipe()
        process.standardOutput = output
        process.standardError = FileHandle.standardError
        try process.run()
        let data = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        do {
            return try JSONDecoder().decode(Seen.self, from: data)
        } catch {
            XCTFail("the fake terminal said: \(String(decoding: data, as: UTF8.self))")
            throw error
        }
    }

    /// The picture is sent once; ten pan steps at 140×40 then cost at most 20 KiB in all
    /// (before: the whole visible window, 5.8 MB a step).
    func testTenPanStepsMoveThePlacementAndSendNoPixels() throws {
        let seen = try run("pan", columns: 140, rows: 40)
        XCTAssertEqual(seen.reached, "done", "the steps ran to the end")
        XCTAssertEqual(seen.panPlacements, 10, "one placement a step")
        XCTAssertEqual(seen.panTransmits, 0, "no picture sent again while panning")
        XCTAssertEqual(Set(seen.panSources ?? []).count, 10, "each step shows another part: \(seen.panSources ?? [])")
        let bytes = try XCTUnwrap(seen.panBytes)
        XCTAssertLessThanOrEqual(bytes, 20 * 1024, "ten pan steps wrote \(bytes) bytes")
        print("kitty: ten pan steps at 140×40 wrote \(bytes) bytes")
        XCTAssertEqual(seen.helpKeptPicture, true, "help hides the picture and gives it back without sending it")
        XCTAssertEqual(seen.resentAfterRedraw, true, "Ctrl-L frees the picture and sends it again")
        XCTAssertEqual(seen.freedOnClose, true, "closing the viewer frees the picture (a=d,d=I)")
        XCTAssertEqual(seen.status, 0)
    }

    /// Two thumbnails fit; scrolling down sends the third, and scrolling back up re-places the
    /// first two without sending them again.
    func testScrollingBackSendsNoPictureAlreadyShown() throws {
        let seen = try run("scroll", columns: 100, rows: 13)
        XCTAssertEqual(seen.reached, "done", "the steps ran to the end")
        let transmitted = try XCTUnwrap(seen.transmitted)
        XCTAssertEqual(transmitted.count, Set(transmitted).count, "no thumbnail sent twice: \(transmitted)")
        XCTAssertGreaterThanOrEqual(transmitted.count, 3, "the scroll down brought a third thumbnail")
        XCTAssertEqual(seen.scrollTransmits, 0, "the scroll back up sent no picture data")
        XCTAssertEqual(Set(seen.scrollPlaced ?? []), Set(transmitted.prefix(2)), "the first two were placed again")
        let bytes = try XCTUnwrap(seen.scrollBytes)
        XCTAssertLessThanOrEqual(bytes, 4096, "a one-row scroll back wrote \(bytes) bytes")
        print("kitty: a one-row scroll of the photo list over pictures already sent wrote \(bytes) bytes")
        XCTAssertEqual(seen.status, 0)
    }

    /// A club photo in a note's rendered view is sent to kitty once; scrolling the view only
    /// places it again (as the viewer and the photo list do).
    func testAPhotoInARenderedNoteIsSentOnceAndScrollingRePlacesIt() throws {
        let notes = base.appendingPathComponent("club/byteclub")
        try FileManager.default.createDirectory(at: notes.appendingPathComponent("photos"), withIntermediateDirectories: true)
        let sample = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("Resources/SampleClub/byteclub/photos/desk-at-night.jpg")
        try FileManager.default.copyItem(at: sample, to: notes.appendingPathComponent("photos/desk-at-night.jpg"))
        let text = "Intro, [the site](https://example.com/a?b=1)\n\nSecond\n\nThird\n\n![desk](photos/desk-at-night.jpg)\n\n" + (1...60).map { "Line \($0) of the note." }.joined(separator: "\n\n")
        try text.write(to: notes.appendingPathComponent("Kitty note.md"), atomically: true, encoding: .utf8)
        let seen = try run("note", columns: 100, rows: 30)
        XCTAssertEqual(seen.reached, "done", "the steps ran to the end")
        XCTAssertEqual(seen.noteSends, 1, "the photo was sent once")
        XCTAssertEqual(seen.noteScrollPlacements, 3, "each scroll step placed it again")
        XCTAssertEqual(seen.noteScrollSends, 0, "no picture data sent while scrolling")
        // Four rows on, the photo's first row is above the view: the rest of it stays on screen,
        // the part of the picture kitty holds, not blank rows until it has gone.
        let cut = try XCTUnwrap(seen.noteCutSource, "the photo was placed cut")
        XCTAssertGreaterThan(cut[0], 0, "the picture's top pixels are left out")
        XCTAssertEqual(cut[1], cut[2] - 1, "all of its rows but the first are on screen")
        XCTAssertEqual(seen.noteCutSends, 0, "kitty shows the part it holds: nothing sent again")
        XCTAssertEqual(seen.hyperlink, true, "the web link is an OSC 8 hyperlink around its text")
        XCTAssertEqual(seen.status, 0)
    }

    /// The fake terminal. argv: mode (pan, scroll, note), columns, rows, then the command to run.
    static let terminal = #"""
    import fcntl, json, os, pty, re, select, struct, sys, termios, time

    mode, columns, rows, command = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), sys.argv[4:]
    pid, fd = pty.fork()
    if pid == 0:
        os.execv(command[0], command)
    # Cells of 10x20 pixels.
    fcntl.ioctl(fd, termios.TIOCSWINSZ, struct.pack("HHHH", rows, columns, columns * 10, rows * 20))
    out = bytearray()
    seen = {"reached": "start", "status": None}
    answered = False
    deadline = time.time() + 60
    PLACE = re.compile(rb"\x1b_Ga=p,([^\x1b]*)\x1b\\\x1b8")
    SEND = re.compile(rb"\x1b_Ga=t,([^\x1b;]*);")

    def pump(timeout=0.05):
        ready, _, _ = select.select([fd], [], [], timeout)
        if not ready:
            return True
        try:
            data = os.read(fd, 1 << 16)
        except OSError:
            return False
        if not data:
            return False
        out.extend(data)
        return True

    def keys(text):
        return dict(pair.split(b"=", 1) for pair in text.split(b","))

    # Commands found so far, by where they start; the output is scanned once, as it grows (a
    # command's head is under 300 bytes, so rescanning the last 300 finds any cut by a read).
    found = {"scanned": 0, "places": [], "sends": []}

    def scan():
        start = max(0, found["scanned"] - 300)
        for kind, pattern in (("places", PLACE), ("sends", SEND)):
            last = found[kind][-1][0] if found[kind] else -1
            for m in pattern.finditer(out, start):
                if m.start() > last:
                    found[kind].append((m.start(), m.end(), keys(m.group(1))))
        found["scanned"] = len(out)

    # (image id, source x or None, where the placement ends) of each placement since `since`.
    def places(since):
        scan()
        return [(int(k[b"i"]), k.get(b"x"), end) for start, end, k in found["places"] if start >= since]

    # The ids of the images transmitted since `since`; with `height`, only those that tall.
    def sends(since, height=None):
        scan()
        return [int(k[b"i"]) for start, _, k in found["sends"] if start >= since and (height is None or int(k[b"v"]) == height)]

    def wait(condition):
        global alive
        while time.time() < deadline:
            if condition():
                return True
            if not pump():
                alive = False
                return False
        return False

    def answer():
        global answered
        if not answered and b"\x1b[c" in bytes(out):
            answered = True
            os.write(fd, b"\x1b_Gi=31;OK\x1b\\\x1b[6;20;10t\x1b[?62;22c")
        return answered

    alive = True

    def script():
        # A club holding the note mode's note is not seeded with the sample notes.
        first = b"Kitty note" if mode == "note" else b"Welcome to Byte Club"
        if not wait(answer) or not wait(lambda: first in out):
            return
        seen["reached"] = "notes"
        if mode == "note":
            if not wait(lambda: b"Kitty note" in out):
                return
            start = len(out)
            os.write(fd, b"v")
            if not wait(lambda: len(places(start)) > 0):
                return
            seen["reached"] = "view"
            seen["hyperlink"] = wait(lambda: out.find(b"\x1b]8;;https://example.com/a?b=1\x1b\\the site\x1b]8;;\x1b\\", start) >= 0)
            seen["noteSends"] = len(sends(start))
            mark = len(out)
            for step in range(3):
                before = len(places(mark))
                os.write(fd, b"j")
                if not wait(lambda: len(places(mark)) > before):
                    return
            seen["noteScrollPlacements"] = len(places(mark))
            seen["noteScrollSends"] = len(sends(mark))
            seen["noteSends"] = len(sends(start))
            # On until the photo's first row has gone above the view (it starts on row 6).
            cut = len(out)
            for step in range(4):
                before = len(places(cut))
                os.write(fd, b"j")
                if not wait(lambda: len(places(cut)) > before):
                    return
            whole = [k for start, _, k in found["places"] if start < cut][-1]
            last = [k for start, _, k in found["places"] if start >= cut][-1]
            seen["noteCutSource"] = [int(last.get(b"y", b"-1")), int(last[b"r"]), int(whole[b"r"])]
            seen["noteCutSends"] = len(sends(cut))
            # Esc closes the view and the note; the list takes the final q.
            closing = len(out)
            os.write(fd, b"\x1b")
            if not wait(lambda: b"Rendered view" not in out[closing:] and len(out) > closing + 20):
                return
            seen["reached"] = "done"
            return
        os.write(fd, b"2")
        if mode == "pan":
            if not wait(lambda: b"alps-sunrise.jpg" in out):
                return
            start = len(out)
            os.write(fd, b"v")
            # The first picture from the full file (3200x800, shown 760 pixels high: the screen
            # less two rows), after the smaller rendition: sent, then placed with a source
            # rectangle.
            full_height = (rows - 2) * 20
            def placed_full():
                full = sends(start, full_height)
                return full and any(p[0] in full for p in places(start))
            if not wait(placed_full):
                return
            first = [p for p in places(start) if p[0] in sends(start, full_height)][0]
            viewer_id, mark = first[0], first[2]
            seen["reached"] = "viewer"
            for step in range(10):
                before = len(places(mark))
                os.write(fd, b"l")
                if not wait(lambda: len(places(mark)) > before):
                    return
            done = places(mark)
            end = done[-1][2]
            seen["panBytes"] = end - mark
            seen["panPlacements"] = len(done)
            seen["panTransmits"] = len(sends(mark))
            seen["panSources"] = [p[1].decode() if p[1] else "" for p in done]
            seen["reached"] = "panned"
            # Help over the viewer hides the picture (its placement goes, the image stays);
            # closing help places it again without sending it.
            helping = len(out)
            os.write(fd, b"?")
            if not wait(lambda: out.find(b"a=d,d=i,i=%d," % viewer_id, helping) >= 0):
                return
            helped = len(out)
            os.write(fd, b"?")
            if not wait(lambda: viewer_id in [p[0] for p in places(helped)]):
                return
            seen["helpKeptPicture"] = len(sends(helping)) == 0 and out.find(b"d=I", helping) < 0
            redraw = len(out)
            os.write(fd, b"\x0c")
            if not wait(lambda: set(sends(redraw)) & set(p[0] for p in places(redraw))):
                return
            freed = out.find(b"a=d,d=I,i=%d," % viewer_id, redraw) >= 0
            seen["resentAfterRedraw"] = freed and len(sends(redraw)) > 0
            latest = sends(redraw)[-1]
            closing = len(out)
            os.write(fd, b"\x1b")
            seen["freedOnClose"] = wait(lambda: out.find(b"a=d,d=I,i=%d," % latest, closing) >= 0)
        else:
            # Two thumbnails placed, then down twice (the second scrolls), then up twice (the
            # second scrolls back).
            if not wait(lambda: len(set(p[0] for p in places(0))) >= 2):
                return
            first_two = sends(0)[:2]
            mark = len(out)
            os.write(fd, b"\x1b[B")
            if not wait(lambda: len(out) > mark):
                return
            before = set(sends(0))
            mark = len(out)
            os.write(fd, b"\x1b[B")
            if not wait(lambda: any(p[0] not in before for p in places(mark))):
                return
            seen["reached"] = "scrolled"
            mark = len(out)
            os.write(fd, b"\x1b[A")
            if not wait(lambda: len(out) > mark):
                return
            # The next key scrolls back one row: both first thumbnails placed again.
            mark = len(out)
            os.write(fd, b"\x1b[A")
            if not wait(lambda: set(first_two) <= set(p[0] for p in places(mark))):
                return
            done = [p for p in places(mark)]
            seen["scrollBytes"] = max(p[2] for p in done) - mark
            seen["scrollTransmits"] = len(sends(mark))
            seen["scrollPlaced"] = sorted(set(p[0] for p in done))
            seen["transmitted"] = sends(0)
        seen["reached"] = "done"

    script()
    if alive:
        os.write(fd, b"q")
        wait(lambda: False)
    if alive:
        os.kill(pid, 9)
        os.waitpid(pid, 0)
    else:
        _, status = os.waitpid(pid, 0)
        seen["status"] = os.waitstatus_to_exitcode(status)
    print(json.dumps(seen))
    """#
}
