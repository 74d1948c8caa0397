import Foundation
@testable import Remote
import TestSupport
import XCTest

/// Saves on WebDAV that must neither invent a conflict nor leave a cut-off file: `rclone serve
/// webdav` behind a ``WebDAVProxy`` that writes PROPFIND's ETags unquoted (or weak) while GET
/// keeps them quoted, or cuts a PUT's connection half-way through its body.
final class WebDAVSafeSaveTests: XCTestCase {
    var server: RcloneWebDAV!
    var proxy: WebDAVProxy?

    override func setUp() async throws {
        try Requirement.tool(RcloneWebDAV.executable != nil, "rclone is not installed (make deps)")
        server = try RcloneWebDAV()
        try FileManager.default.createDirectory(at: server.file("byteclub"), withIntermediateDirectories: true)
    }

    override func tearDown() async throws {
        proxy?.stop()
        server?.remove()
    }

    /// A store on the server through a proxy answering ETags in `form`.
    private func makeStore(_ form: WebDAVProxy.ETagForm) async throws -> WebDAVStore {
        let proxy = try WebDAVProxy(upstreamPort: server.port, etagForm: form)
        self.proxy = proxy
        return try await WebDAVStore.connect(url: proxy.url, user: server.user, password: server.password)
    }

    private func write(_ text: String, _ relative: String) throws {
        try Data(text.utf8).write(to: server.file(relative))
    }

    private func contents(_ relative: String) -> String? {
        (try? Data(contentsOf: server.file(relative))).map { String(decoding: $0, as: UTF8.self) }
    }

    /// The names in the served notes folder, on the server's disk (hidden ones included).
    private func namesOnDisk() throws -> [String] {
        try FileManager.default.contentsOfDirectory(atPath: server.file("byteclub").path).sorted()
    }

    /// The names once no temporary upload is left, or as they are after 10 s: rclone may still
    /// be reading a cut PUT when the store's DELETE comes and make the name after it, which the
    /// store's sweep then removes (`WebDAVStore.discardSweep`).
    /// The names on disk once no temporary upload is left, or as they are when the store's sweep
    /// of a temporary name the server made late (``WebDAVStore/discardSweep``) has run its course.
    private func namesOnDiskSettled() async throws -> [String] {
        // The sweep's whole span and a second for its last DELETE: a name the server makes
        // seconds late is the sweep's to remove, and it keeps looking that long.
        let deadline = ContinuousClock.now + WebDAVStore.discardSweep.reduce(.zero, +) + .seconds(1)
        while ContinuousClock.now < deadline, try namesOnDisk().contains(where: WebDAVStore.isTemporary) {
            try await Task.sleep(for: .milliseconds(50))
        }
        return try namesOnDisk()
    }

    func testEntityTagsAreComparedByTheirOpaqueValue() {
        XCTAssertEqual(WebDAVEntityTag.opaque("\"18eaa0b1\""), "18eaa0b1")
        XCTAssertEqual(WebDAVEntityTag.opaque("W/\"18eaa0b1\""), "18eaa0b1")
        XCTAssertEqual(WebDAVEntityTag.opaque(" 18eaa0b1 "), "18eaa0b1")
        XCTAssertTrue(WebDAVEntityTag.same("\"18eaa0b1\"", "18eaa0b1"))
        XCTAssertTrue(WebDAVEntityTag.same("W/\"18eaa0b1\"", "\"18eaa0b1\""))
        XCTAssertFalse(WebDAVEntityTag.same("\"18eaa0b1\"", "\"18eaa0b2\""))
        XCTAssertFalse(WebDAVEntityTag.same(nil, nil), "two missing tags name nothing")
        XCTAssertFalse(WebDAVEntityTag.same("\"\"", ""))
        XCTAssertEqual(WebDAVEntityTag.canonical("18eaa0b1"), "\"18eaa0b1\"")
        XCTAssertEqual(WebDAVEntityTag.canonical("W/\"18eaa0b1\""), "\"18eaa0b1\"")
        XCTAssertNil(WebDAVEntityTag.canonical("\"\""))
    }

    /// Opened with GET (quoted ETag), checked with PROPFIND (unquoted or weak): the same file,
    /// so the save goes through; a real change by someone else is still a conflict.
    func testAnUnchangedNoteSavesOnServersThatWriteTheETagInAnotherForm() async throws {
        for form in [WebDAVProxy.ETagForm.unquoted, .weak] {
            let store = try await makeStore(form)
            try write("Day 1: Lyon\n", "byteclub/plan.txt")
            let opened = try await store.read("/byteclub/plan.txt")
            let listed = try await store.list("/byteclub").first { $0.name == "plan.txt" }
            XCTAssertEqual(listed?.rev, opened.entry.rev, "\(form): the listing and the download name the same version alike")
            let saved = try await store.upload(data: Data("Day 1: Lyon, saved\n".utf8), to: "/byteclub/plan.txt",
                                               mode: .update(rev: try XCTUnwrap(opened.entry.rev)), autorename: false)
            XCTAssertEqual(contents("byteclub/plan.txt"), "Day 1: Lyon, saved\n", "\(form)")
            XCTAssertGreaterThan(proxy?.rewrites ?? 0, 0, "the proxy rewrote PROPFIND's ETags")

            // Another member's save meanwhile: a conflict, their text untouched.
            XCTAssertEqual(try server.curl(["-X", "PUT", "--data-binary", "theirs", server.url.appendingPathComponent("byteclub/plan.txt").absoluteString]), 0)
            do {
                _ = try await store.upload(data: Data("mine".utf8), to: "/byteclub/plan.txt", mode: .update(rev: try XCTUnwrap(saved.rev)), autorename: false)
                XCTFail("\(form): a stale save went through")
            } catch {
                XCTAssertEqual(error as? RemoteError, .conflict("/byteclub/plan.txt"))
            }
            XCTAssertEqual(contents("byteclub/plan.txt"), "theirs")
            proxy?.stop()
        }
    }

    /// The connection dies half-way through the PUT of a save: the note on the server keeps its
    /// old text whole, no temporary file is left behind, and the next save from the same rev works.
    func testAPUTCutMidBodyLeavesTheOldTextWhole() async throws {
        let store = try await makeStore(.asSent)
        let old = String(repeating: "the old text, whole\n", count: 2000)
        try write(old, "byteclub/note.txt")
        let opened = try await store.metadata("/byteclub/note.txt")
        let rev = try XCTUnwrap(opened.rev)
        let mine = Data(String(repeating: "my new text\n", count: 40_000).utf8)
        proxy?.cutNextPUT(afterBodyBytes: 100_000)
        do {
            _ = try await store.upload(data: mine, to: "/byteclub/note.txt", mode: .update(rev: rev), autorename: false)
            XCTFail("a save whose connection was cut reported success")
        } catch {
            XCTAssertNotEqual(error as? RemoteError, .conflict("/byteclub/note.txt"), "a cut connection is no one else's change")
        }
        XCTAssertEqual(proxy?.cuts, 1, "the PUT was cut")
        XCTAssertEqual(contents("byteclub/note.txt"), old, "the old text is whole")
        let afterCut = try await namesOnDiskSettled()
        XCTAssertEqual(afterCut, ["note.txt"], "no temporary file left")

        let saved = try await store.upload(data: mine, to: "/byteclub/note.txt", mode: .update(rev: rev), autorename: false)
        XCTAssertEqual(saved.size, Int64(mine.count))
        XCTAssertEqual(try Data(contentsOf: server.file("byteclub/note.txt")), mine)
        XCTAssertEqual(try namesOnDisk(), ["note.txt"])
    }

    /// A new note (add) and a `put --mode overwrite` cut off half-way leave nothing and the old
    /// file respectively, and an upload on its way in is listed by no one.
    func testCutAddsAndOverwritesLeaveNoTraceAndTemporaryNamesAreHidden() async throws {
        let store = try await makeStore(.asSent)
        let body = Data(String(repeating: "0123456789", count: 30_000).utf8)
        proxy?.cutNextPUT(afterBodyBytes: 50_000)
        do {
            _ = try await store.upload(data: body, to: "/byteclub/new.txt", mode: .add, autorename: false)
            XCTFail("a cut add reported success")
        } catch {}
        let afterAdd = try await namesOnDiskSettled()
        XCTAssertEqual(afterAdd, [], "nothing made")

        try write("kept", "byteclub/kept.txt")
        proxy?.cutNextPUT(afterBodyBytes: 50_000)
        do {
            _ = try await store.upload(data: body, to: "/byteclub/kept.txt", mode: .overwrite, autorename: false)
            XCTFail("a cut overwrite reported success")
        } catch {}
        XCTAssertEqual(contents("byteclub/kept.txt"), "kept")
        let afterOverwrite = try await namesOnDiskSettled()
        XCTAssertEqual(afterOverwrite, ["kept.txt"])

        // Another member's upload still on its way in.
        try write("half", "byteclub/\(WebDAVStore.temporaryName())")
        let listed = try await store.list("/byteclub").map(\.name)
        XCTAssertEqual(listed, ["kept.txt"])
        let added = try await store.upload(data: body, to: "/byteclub/new.txt", mode: .add, autorename: false)
        XCTAssertEqual(added.size, Int64(body.count))
        XCTAssertEqual(try Data(contentsOf: server.file("byteclub/new.txt")), body)
    }
}
