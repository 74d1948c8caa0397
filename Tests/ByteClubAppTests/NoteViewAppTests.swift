import ByteClubApp
import Foundation
import Markdown
import Remote
import TerminalUI
import XCTest

/// The rendered view inside the app, against a real club server: its keys in help (none taken
/// from the editor), Alt-V to and from the editor keeping the text, the seams to links between
/// notes (backlinks listed, missing notes marked, note links handed on), and "Insert a photo"
/// typing the chosen photo's reference.
@MainActor
final class NoteViewAppTests: XCTestCase {
    var club: SampleClubServer?

    override func tearDown() async throws {
        await club?.close()
        club = nil
    }

    private func harness(_ configure: @escaping (inout AppConfiguration) -> Void = { _ in }) async throws -> Harness {
        let club = try await SampleClubServer()
        self.club = club
        let harness = Harness(store: club.store(), configure: configure)
        await harness.start()
        return harness
    }

    private func openFirstNote(_ harness: Harness) async {
        harness.press(.enter)
        await harness.waitUntil("the note to open") { harness.app.state.note?.isEditing == true }
    }

    /// A new Markdown note "Viewed" holding `text` (typed as a paste), saved.
    private func newNote(_ text: String, _ harness: Harness) async {
        harness.press(.char("n"))
        for character in "Viewed" { harness.press(.char(character)) }
        harness.press(.tab, .paste(text), .ctrl("s"))
        await harness.waitUntil("the note saved") { harness.app.state.note?.entry?.name == "Viewed.md" }
    }

    func testTheViewsKeysAreInHelpAndTakeNoEditorKey() async throws {
        let harness = try await harness()
        await openFirstNote(harness)
        let help = harness.compositor.commands()
        for words in ["Rendered view", "Insert a photo", "Upload a photo and insert it"] {
            XCTAssertTrue(help.contains { $0.description.contains(words) }, words)
        }
        let mine: [Key] = [.alt("v"), .alt("i"), .alt("u")]
        for key in mine {
            let users = help.filter { $0.keys.contains(key) }
            XCTAssertEqual(users.count, 1, "\(key) is bound once in the editor: \(users.map(\.description))")
        }
        harness.press(.alt("v"))
        XCTAssertNotNil(harness.app.state.noteView)
        let viewHelp = harness.compositor.commands()
        for words in ["Follow the link", "Rendered view off", "Next link or photo"] {
            XCTAssertTrue(viewHelp.contains { $0.description.contains(words) && $0.group == "Rendered view" }, words)
        }
    }

    func testAltVSwapsWithTheEditorAndTypingNeverReachesTheNote() async throws {
        let harness = try await harness()
        await newNote("# Title here\n\n- [x] done thing\n\nSee [[Other note]] and [[Missing one]].", harness)
        let text = harness.app.state.note?.editor.body.text
        harness.press(.alt("v"))
        let screen = harness.render(width: 80, height: 24).dump()
        XCTAssertTrue(screen.contains("Rendered view"), screen)
        XCTAssertTrue(screen.contains("☑ done thing"), screen)
        XCTAssertTrue(screen.contains("See Other note and Missing one."), screen)
        XCTAssertFalse(screen.contains("# Title here"), screen)
        // Letters, `?` and Enter in the view never type into the note under it.
        harness.press(.char("x"), .char("?"), .enter, .char("j"))
        harness.press(.escape)  // closes help, if `?` opened it
        XCTAssertEqual(harness.app.state.note?.editor.body.text, text)
        harness.press(.alt("v"))
        XCTAssertNil(harness.app.state.noteView)
        XCTAssertEqual(harness.app.state.note?.isEditing, true)
    }

    func testBacklinksMissingNotesAndFollowingGoThroughTheSeams() async throws {
        let harness = try await harness()
        var followed: [NoteLinkTarget] = []
        var askedFor: [String] = []
        harness.app.backlinks = { path, deliver in
            askedFor.append(path)
            deliver([LinkingNote(path: "/byteclub/Plan.md", name: "Plan.md", modified: nil, modifiedBy: nil, line: 0, context: "see [[Welcome to Byte Club]] first")])
        }
        harness.app.noteExists = { target in target != .note(title: "Missing one") }
        harness.app.onFollowNoteLink = { followed.append($0) }
        await newNote("See [[Other note]] and [[Missing one]].", harness)
        harness.press(.alt("v"))
        let canvas = harness.render(width: 80, height: 24)
        let screen = canvas.dump()
        XCTAssertEqual(askedFor, ["/byteclub/Viewed.md"])
        XCTAssertTrue(screen.contains("Backlinks"), screen)
        XCTAssertTrue(screen.contains("← Plan · see [[Welcome to Byte Club]] first"), screen)
        // The missing note is drawn in the error style, the other as a link.
        let row = try XCTUnwrap(screen.split(separator: "\n", omittingEmptySubsequences: false).firstIndex { $0.contains("See Other note") })
        let line = String(screen.split(separator: "\n", omittingEmptySubsequences: false)[row])
        let column = { (word: String) in TextWidth.of(line[..<line.range(of: word)!.lowerBound]) }
        XCTAssertEqual(canvas.cell(x: column("Missing one"), y: row).style.foreground, canvas.theme.error.foreground)
        XCTAssertNotEqual(canvas.cell(x: column("Other note"), y: row).style.foreground, canvas.theme.error.foreground)

        harness.press(.tab, .enter)
        XCTAssertEqual(followed, [.note(title: "Other note")])
        harness.press(.tab, .enter)
        XCTAssertEqual(followed, [.note(title: "Other note"), .note(title: "Missing one")])
    }

    /// As the app wires them: a note link followed from the view opens that note in the view
    /// (issue 43: the mode the link was followed in), and a link to a note the club lacks is
    /// drawn as missing.
    func testANoteLinkFollowedFromTheViewOpensItsNote() async throws {
        let harness = try await harness()
        await newNote("Read [[Welcome to Byte Club]], not [[Nowhere at all]].", harness)
        harness.press(.alt("v"))
        let canvas = harness.render(width: 80, height: 24)
        let lines = canvas.dump().split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        let row = try XCTUnwrap(lines.firstIndex { $0.contains("Read Welcome to Byte Club") }, canvas.dump())
        let column = { (word: String) in TextWidth.of(lines[row][..<lines[row].range(of: word)!.lowerBound]) }
        XCTAssertEqual(canvas.cell(x: column("Nowhere"), y: row).style.foreground, canvas.theme.error.foreground)
        XCTAssertNotEqual(canvas.cell(x: column("Welcome"), y: row).style.foreground, canvas.theme.error.foreground)
        harness.press(.tab, .enter)
        await harness.waitUntil("the linked note to open") {
            harness.app.state.note?.entry?.name == "Welcome to Byte Club.txt" && harness.app.state.note?.isEditing == true
                && harness.app.state.noteView != nil
        }
        XCTAssertTrue(harness.render(width: 80, height: 24).dump().contains("Welcome to Byte Club.txt · Rendered view"))
    }

    /// The status bar says where the user is: the view and the note's title, with `?` for help
    /// (the view takes it), never the editor's "Ctrl-S saves" from under it.
    func testTheStatusBarNamesTheRenderedViewAndItsNote() async throws {
        let harness = try await harness()
        await newNote("# Title here\n\nSome text.", harness)
        harness.press(.alt("v"))
        let bar = harness.render(width: 80, height: 24).line(23)
        XCTAssertTrue(bar.contains("Rendered view · Viewed"), bar)
        XCTAssertTrue(bar.hasSuffix("? help"), bar)
        XCTAssertFalse(bar.contains("Ctrl-S"), bar)
        harness.press(.alt("v"))
        let editor = harness.render(width: 80, height: 24).line(23)
        XCTAssertFalse(editor.contains("Rendered view"), "back in the editor: \(editor)")
        XCTAssertTrue(editor.hasSuffix("F1 help"), editor)
    }

    /// A photo scrolled partly above the top keeps the part still on screen, drawn over its
    /// rows, instead of leaving them blank until the whole slot has gone.
    func testAPictureScrolledPartlyAboveTheTopIsDrawnCut() async throws {
        let harness = try await harness()
        let lines = (1...40).map { "Line \($0)." }.joined(separator: "\n\n")
        await newNote("![my desk](photos/desk-at-night.jpg)\n\n" + lines, harness)
        // The view opens where the cursor is (the end): `g` goes to the top.
        harness.press(.alt("v"))
        _ = harness.render(width: 80, height: 24)
        harness.press(.char("g"))
        // Text 78 wide: the slot is 9 rows, from the view's first text row (row 2).
        let slotRows = 2..<11
        await harness.waitUntil("the photo drawn") {
            let canvas = harness.render(width: 80, height: 24)
            return !canvas.dump().contains("▣ desk-at-night.jpg") && slotRows.allSatisfy { !canvas.line($0).trimmingCharacters(in: .whitespaces).isEmpty }
        }
        for scrolled in 1...8 {
            harness.press(.char("j"))
            let canvas = harness.render(width: 80, height: 24)
            XCTAssertEqual(harness.app.state.noteView?.scroll, scrolled)
            let cut = 2..<(11 - scrolled)
            for row in cut {
                XCTAssertGreaterThan(canvas.line(row).trimmingCharacters(in: .whitespaces).count, 20,
                                     "row \(row) holds the picture's cut part after \(scrolled) rows of scrolling:\n\(canvas.dump())")
            }
            XCTAssertTrue(canvas.line(11 - scrolled).contains("my desk"), "the caption follows the picture:\n\(canvas.dump())")
        }
    }

    func testInsertAPhotoTypesTheChosenPhotosReference() async throws {
        let harness = try await harness()
        await openFirstNote(harness)
        harness.press(.documentEnd, .alt("i"))
        let screen = harness.render(width: 80, height: 24).dump()
        XCTAssertTrue(screen.contains("Insert a photo"), screen)
        let first = try XCTUnwrap(harness.app.state.photos.entries.first)
        XCTAssertTrue(screen.contains(first.name), screen)
        harness.press(.enter)
        let stem = (first.name as NSString).deletingPathExtension
        XCTAssertTrue(harness.app.state.note?.editor.body.text.hasSuffix("![\(stem)](photos/\(first.name))") ?? false,
                      harness.app.state.note?.editor.body.text ?? "")
        XCTAssertTrue(harness.app.state.hasUnsavedEdits)
    }

    func testUploadAPhotoAndInsertItTypesTheNameTheServerGave() async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("note-view-upload-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: folder) }
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let sample = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("Resources/SampleClub/byteclub/photos/desk-at-night.jpg")
        // The club has a different desk-at-night.jpg already: the upload is renamed, and the note
        // names it so.
        let local = folder.appendingPathComponent("desk-at-night.jpg")
        try (try Data(contentsOf: sample) + Data("another shot".utf8)).write(to: local)
        let harness = try await harness { $0.uploadStartDirectory = folder }
        await openFirstNote(harness)
        harness.press(.documentEnd, .alt("u"))
        XCTAssertTrue(harness.compositor.top is FileChooser)
        harness.press(.paste(local.path), .enter)
        await harness.waitUntil("the reference typed") {
            harness.app.state.note?.editor.body.text.hasSuffix("![desk-at-night (1)](photos/desk-at-night%20%281%29.jpg)") ?? false
        }
        XCTAssertTrue(harness.app.state.hasUnsavedEdits)
    }
}
