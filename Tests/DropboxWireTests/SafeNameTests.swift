@testable import DropboxWire
import TestSupport
import Foundation
import XCTest

/// The rule for names from the network used as local file names, the check for paths in a
/// server's answers, and the one terminal sanitizer.
final class SafeNameTests: XCTestCase {
    func testSafeNamesPassUnchanged() throws {
        for name in ["alps-sunrise.jpg", "Grüße 你好 🎉.jpg", ".hidden", "...", "..jpg", "a..b", "name with spaces (1).jpg",
                     String(repeating: "é", count: 127) + ".", "\u{A0}nbsp"] {
            XCTAssertNil(SafeName.problem(name), name)
            XCTAssertEqual(try SafeName.check(name), name)
            XCTAssertEqual(SafeName.sanitized(name), name)
        }
    }

    func testUnsafeNamesAreRefusedWithAClearMessage() {
        let cases: [(String, SafeName.Problem)] = [
            ("", .empty),
            (".", .dotOrDotDot),
            ("..", .dotOrDotDot),
            ("../../evil.jpg", .separator("/")),
            ("../../../../../../etc/x.jpg", .separator("/")),
            ("a/b.jpg", .separator("/")),
            ("..\\..\\evil.jpg", .separator("\\")),
            ("nul\0.jpg", .control("\0")),
            ("\u{1B}]0;PWNED\u{07}.jpg", .control("\u{1B}")),
            ("tab\there.jpg", .control("\t")),
            ("new\nline.jpg", .control("\n")),
            ("del\u{7F}.jpg", .control("\u{7F}")),
            ("csi\u{9B}2J.jpg", .control("\u{9B}")),
            ("nel\u{85}.jpg", .control("\u{85}")),
            ("c1-first\u{80}.jpg", .control("\u{80}")),
            ("c1-last\u{9F}.jpg", .control("\u{9F}")),
            (String(repeating: "x", count: 252) + ".jpg", .tooLong(bytes: 256)),
        ]
        for (name, expected) in cases {
            XCTAssertEqual(SafeName.problem(name), expected, TerminalSafe.escape(name))
            XCTAssertThrowsError(try SafeName.check(name)) { error in
                guard let refusal = error as? SafeName.Refusal else { return XCTFail("\(error)") }
                XCTAssertEqual(refusal.problem, expected)
                XCTAssertTrue(refusal.message.contains("is not a safe file name"), refusal.message)
                XCTAssertFalse(TerminalSafe.needsEscaping(refusal.message), "the message itself is safe to print: \(refusal.message)")
            }
        }
        XCTAssertEqual(SafeName.Refusal(name: "../../evil.jpg", problem: .separator("/")).message,
                       #""../../evil.jpg" is not a safe file name: it contains "/""#)
        XCTAssertEqual(SafeName.Refusal(name: "a\u{1B}b", problem: .control("\u{1B}")).message,
                       #""a\x1bb" is not a safe file name: it contains the control character \x1b"#)
    }

    func testTheSanitizerKeepsTheLastComponentAndReplacesControls() {
        let cases: [(String, String)] = [
            ("../../evil.jpg", "evil.jpg"),
            ("../../../../../../etc/x.jpg", "x.jpg"),
            ("..\\..\\evil.jpg", "evil.jpg"),
            ("photos/alps.jpg", "alps.jpg"),
            ("evil.jpg/..", "evil.jpg"),
            ("trailing/", "trailing"),
            ("\u{1B}]0;PWNED\u{07}.jpg", "_]0;PWNED_.jpg"),
            ("\u{1B}[2J.jpg", "_[2J.jpg"),
            ("\u{1B}]52;c;aGk=\u{07}x.jpg", "_]52;c;aGk=_x.jpg"),
            ("c1\u{9B}\u{85}.jpg", "c1__.jpg"),
            ("nul\0.jpg", "nul_.jpg"),
            ("", SafeName.fallback),
            (".", SafeName.fallback),
            ("..", SafeName.fallback),
            ("../..", SafeName.fallback),
            ("/", SafeName.fallback),
        ]
        for (name, expected) in cases {
            let sanitized = SafeName.sanitized(name)
            XCTAssertEqual(sanitized, expected, TerminalSafe.escape(name))
            XCTAssertNil(SafeName.problem(sanitized), "the sanitized name is safe: \(sanitized)")
        }
        // Too long: cut at a character boundary, the extension kept.
        let long = String(repeating: "日", count: 100) + ".jpg"
        let cut = SafeName.sanitized(long)
        XCTAssertLessThanOrEqual(cut.utf8.count, SafeName.maxBytes)
        XCTAssertTrue(cut.hasSuffix("日.jpg"), cut)
        XCTAssertNil(SafeName.problem(cut))
    }

    func testPathsInAnswersMustLieInsideTheFolderAskedFor() {
        XCTAssertTrue(SafeName.path("/byteclub/photos/a.jpg", isInside: "/byteclub/photos"))
        XCTAssertTrue(SafeName.path("/ByteClub/Photos/deep/a.jpg", isInside: "/byteclub/photos"), "compared case-insensitively")
        XCTAssertTrue(SafeName.path("/anything", isInside: ""), "the root holds every absolute path")
        for outside in ["/etc/x.jpg", "/byteclub/other/y.jpg", "/byteclub/photos", "/byteclub/photosX/a.jpg", "/byteclub/photos/../../etc/x.jpg",
                        "/byteclub/photos/./a.jpg", "/byteclub/photos//a.jpg", "byteclub/photos/a.jpg", "", "/byteclub/photos/a\0/b"] {
            XCTAssertFalse(SafeName.path(outside, isInside: "/byteclub/photos"), outside)
        }
        XCTAssertFalse(SafeName.path("/../etc", isInside: ""))
    }

    /// The byte-level shortcut answers as the component-by-component check does, wherever it
    /// answers at all.
    func testTheQuickPathCheckAgreesWithTheFullOne() {
        let folders = ["", "/byteclub", "/byteclub/photos", "/ByteClub", "/byteclub/", "byteclub"]
        let pieces = ["byteclub", "ByteClub", "photos", "a.jpg", ".", "..", "...", "", "a\0b", "日本", ".hidden", "x."]
        var generator = SeededGenerator(seed: 7)
        var quickAnswers = 0
        for _ in 0..<20_000 {
            let count = Int.random(in: 0...4, using: &generator)
            var path = (0..<count).map { _ in pieces.randomElement(using: &generator)! }.joined(separator: "/")
            if Bool.random(using: &generator) { path = "/" + path }
            if Int.random(in: 0..<8, using: &generator) == 0 { path += "/" }
            let folder = folders.randomElement(using: &generator)!
            let full = SafeName.fullCheck(path, isInside: folder)
            if let quick = SafeName.quickCheck(path, isInside: folder) {
                quickAnswers += 1
                XCTAssertEqual(quick, full, "\(path.debugDescription) in \(folder.debugDescription)")
            }
            XCTAssertEqual(SafeName.path(path, isInside: folder), full)
        }
        XCTAssertGreaterThan(quickAnswers, 1_000, "the shortcut is taken")
    }

    func testTerminalSafeEscapesC0DelAndC1Only() throws {
        XCTAssertEqual(TerminalSafe.escape("plain Grüße 你好 🎉 \\ done"), "plain Grüße 你好 🎉 \\ done")
        XCTAssertEqual(TerminalSafe.escape("\u{1B}]0;PWNED\u{07}"), #"\x1b]0;PWNED\x07"#)
        XCTAssertEqual(TerminalSafe.escape("\u{1B}[2J"), #"\x1b[2J"#)
        XCTAssertEqual(TerminalSafe.escape("a\u{7F}b\u{9B}c\u{80}\u{9F}\u{A0}"), "a\\x7fb\\x9bc\\x80\\x9f\u{A0}")
        XCTAssertEqual(TerminalSafe.escape("line\nnext\ttab\0"), #"line\x0anext\x09tab\x00"#)
        let once = TerminalSafe.escape("\u{1B}x")
        XCTAssertEqual(TerminalSafe.escape(once), once, "escaping twice changes nothing")
        for value in UInt32(0)...0x10FF {
            guard let scalar = Unicode.Scalar(value) else { continue }
            let escaped = TerminalSafe.escape(String(scalar))
            XCTAssertFalse(escaped.unicodeScalars.contains(where: TerminalSafe.isControl), "U+\(String(value, radix: 16))")
        }
    }

    func testJSONTextStaysExactAndPrintable() throws {
        let names = ["\u{1B}]0;PWNED\u{07}.jpg", "csi\u{9B}2J\u{85}\u{7F}.jpg", "plain é.jpg"]
        let encoded = try JSONEncoder().encode(names)
        let safe = TerminalSafe.jsonText(encoded)
        let text = String(decoding: safe, as: UTF8.self)
        XCTAssertFalse(text.unicodeScalars.contains(where: TerminalSafe.isControl), text)
        XCTAssertTrue(text.contains(#"\u001b"#) || text.contains(#"\u001B"#), text)
        XCTAssertTrue(text.contains(#"\u009b"#), text)
        XCTAssertEqual(try JSONDecoder().decode([String].self, from: safe), names)
        XCTAssertEqual(TerminalSafe.jsonText(Data(#"["é"]"#.utf8)), Data(#"["é"]"#.utf8), "nothing to escape: unchanged")
    }
}
