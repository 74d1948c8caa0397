import Foundation
import TestSupport
import XCTest

/// Every attachment kept, in the app (issue 55): a real vault (Tests/Fixtures/Tasks-Demo)
/// imported into a club server, its folders' rows count their files beside their notes, a PDF
/// is a row of its folder, and `Enter` on it hands a fetched copy to `$BYTECLUB_OPEN` (here a
/// script that records its argument and the bytes it was given); a program that cannot be
/// started says so on the status bar.
final class AttachmentsEndToEndTests: XCTestCase {
    var app: AppHarness!

    override func setUpWithError() throws {
        app = try AppHarness()
    }

    override func tearDown() {
        app.close()
    }

    static let vault = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Fixtures/Tasks-Demo/vault")

    func testAPDFOfAnImportedVaultIsListedCountedAndOpenedWithTheSystem() throws {
        let root = app.base.appendingPathComponent("served")
        try FileManager.default.createDirectory(at: root.appendingPathComponent("byteclub"), withIntermediateDirectories: true)
        let server = try ServeProcess(root: root, token: "attachments-token")
        defer { _ = server }
        let options = ["--server", server.url, "--token", "attachments-token"]
        let imported = try app.cli(["import", Self.vault.path, "Tasks-Demo"] + options)
        XCTAssertEqual(imported.status, 0, imported.stderr)

        // The opener: writes the path it was given, and copies what is there then.
        let said = app.base.appendingPathComponent("opened-path.txt"), copy = app.base.appendingPathComponent("opened-bytes")
        let opener = app.base.appendingPathComponent("opener.sh")
        try Data("#!/bin/sh\ncp \"$1\" '\(copy.path)' && printf '%s\\n' \"$1\" > '\(said.path)'\n".utf8).write(to: opener)
        try FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: opener.path)

        let tmux = try app.launch(options, environment: ["BYTECLUB_OPEN": opener.path])
        // The vault's folder counts its notes and, beside them, its other files (the PNGs went to photos/).
        // The search index's line comes once it has the notes: waited for, so it never takes the
        // place of what the keys below make the status bar say.
        tmux.waitFor(all: ["▸ Tasks-Demo/", "205 notes", "· 11 files", "Indexed 205 notes"], timeout: 60)
        try tmux.press("Enter")
        tmux.waitFor(all: ["▸ Test Attachments/", "0 notes", "· 1 file"])
        try tmux.type("/")
        try tmux.type("Test Attachments")
        try tmux.press("Enter")
        tmux.waitFor("/ Test Attachments")
        try tmux.press("Enter")
        tmux.waitFor("◇ a_pdf_file.pdf")
        try tmux.type("/")
        try tmux.type("a_pdf")
        try tmux.press("Enter")
        tmux.waitFor("/ a_pdf")

        // Enter on the file's row: fetched, and handed to the opener.
        try tmux.press("Enter")
        tmux.waitFor("Opened \"a_pdf_file.pdf\" with opener.sh")
        // The opener's printf makes the file before it writes the line: waited for whole.
        AppHarness.eventually("the opener ran") { ((try? String(contentsOf: said, encoding: .utf8)) ?? "").hasSuffix("\n") }
        let given = try String(contentsOf: said, encoding: .utf8).trimmingCharacters(in: .newlines)
        XCTAssertTrue(given.hasSuffix("/a_pdf_file.pdf"), given)
        let pdf = try Data(contentsOf: Self.vault.appendingPathComponent("Test Attachments/a_pdf_file.pdf"))
        XCTAssertEqual(try Data(contentsOf: copy), pdf, "the opener got the file's own bytes")
        XCTAssertEqual(try Data(contentsOf: URL(fileURLWithPath: given)), pdf)

        // A program that cannot be started says so.
        try FileManager.default.removeItem(at: opener)
        try tmux.type("o")
        tmux.waitFor("Could not open \"a_pdf_file.pdf\": BYTECLUB_OPEN names")
        try tmux.type("q")
        tmux.waitFor(app.exitLine(0))
    }
}
