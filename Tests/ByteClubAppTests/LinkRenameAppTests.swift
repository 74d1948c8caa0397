import Foundation
import Remote
import Synchronization
import TerminalUI
import XCTest
@testable import ByteClubApp

/// Renames keep links, against a real club server: each linking note is saved over the rev it
/// was read at; one another member changes between that read and the save conflicts, is named
/// in the status bar and left exactly as that member wrote it.
@MainActor
final class LinkRenameAppTests: XCTestCase {
    var club: SampleClubServer?

    override func tearDown() async throws {
        await club?.close()
        club = nil
    }

    func testAConflictingNoteIsReportedAndLeftAndTheOthersAreUpdated() async throws {
        let club = try await SampleClubServer()
        self.club = club
        let other = club.store()
        for (name, text) in ["Journey.md": "Day 1\n", "Packing.md": "Before the [[Trip plan]] we pack\n",
                             "Budget.md": "See [[trip plan|the plan]]\n"] {
            _ = try await other.upload(data: Data(text.utf8), to: "/byteclub/" + name, mode: .add, autorename: false)
        }
        let harness = Harness(store: MeddlingStore(base: club.store(), meddled: "Budget.md",
                                                   text: "Ann's new line\nSee [[trip plan|the plan]]\n"))
        await harness.start()

        harness.app.linkRenames.updateLinks(["/byteclub/Packing.md", "/byteclub/Budget.md"], movedFrom: "/byteclub/Trip plan.md", to: "/byteclub/Journey.md")
        await harness.waitUntil("the links updated") { harness.app.state.message?.text.hasPrefix("Updated links") ?? false }
        XCTAssertEqual(harness.app.state.message,
                       .error("Updated links in 1 note; changed meanwhile, left as it was: \"Budget.md\""))
        let packing = try await other.read("/byteclub/Packing.md").data
        let budget = try await other.read("/byteclub/Budget.md").data
        XCTAssertEqual(String(decoding: packing, as: UTF8.self), "Before the [[Journey]] we pack\n")
        XCTAssertEqual(String(decoding: budget, as: UTF8.self), "Ann's new line\nSee [[trip plan|the plan]]\n",
                       "never forced over another member's change")
    }
}

/// Issue 54: `R` on "Plan A" updated `[[Plan A]]` but left `[[Old Stuff/Plan A]]` and
/// `[the plan](<Old Stuff/Plan A.md>)` broken, where `m` (move) updated all three. A rename is a
/// move within the note's folder now, and both go through one rewrite (the core's
/// `LinkRewrite`): the question counts the three links, and the update rewrites them all. With
/// the app's real search index, against a real club server, keys pressed as a user does.
@MainActor
final class RenameRewritesEveryLinkAppTests: XCTestCase {
    var club: SampleClubServer?

    override func tearDown() async throws {
        await club?.close()
        club = nil
    }

    private static func row(_ harness: Harness, _ matches: (NoteItem) -> Bool) -> Int? {
        harness.app.noteItems.firstIndex(where: matches)
    }

    func testRenamingANoteRewritesItsTitlePathAndMarkdownLinks() async throws {
        let club = try await SampleClubServer()
        self.club = club
        let other = club.store()
        let home = "[[Plan A]] and [[Old Stuff/Plan A]] and [the plan](<Old Stuff/Plan A.md>)\n"
        for (path, text) in ["Old Stuff/Plan A.md": "Day 1\n", "Home.md": home] {
            _ = try await other.upload(data: Data(text.utf8), to: "/byteclub/" + path, mode: .add, autorename: false)
        }
        let indexFolder = club.base.appendingPathComponent("index")
        let harness = Harness(store: club.store()) { configuration in
            configuration.searchIndex = AppConfiguration.searchIndex(in: indexFolder)
        }
        await harness.start()
        defer { harness.app.stopLiveUpdates() }
        // The links are counted from the index's copies: the rename waits until it has Home's.
        let reader = try AppConfiguration.searchIndex(in: indexFolder)()
        await harness.waitUntil("Home indexed") { reader.indexedCopy(of: "/byteclub/Home.md") != nil }

        // Into Old Stuff/, onto Plan A, and R.
        let folder = try XCTUnwrap(Self.row(harness) { if case .folder(let item) = $0 { item.name == "Old Stuff" && !item.isParent } else { false } })
        harness.press(.home)
        for _ in 0..<folder { harness.press(.down) }
        harness.press(.enter)
        let isPlanA: (NoteItem) -> Bool = { if case .note(let entry, _) = $0 { entry.name == "Plan A.md" } else { false } }
        await harness.waitUntil("Old Stuff open") { Self.row(harness, isPlanA) != nil }
        let plan = try XCTUnwrap(Self.row(harness, isPlanA))
        harness.press(.home)
        for _ in 0..<plan { harness.press(.down) }
        harness.press(.char("R"))
        await harness.waitUntil("the rename prompt") { harness.compositor.top is PromptLayer }
        harness.press(.ctrl("u"))
        for character in "Plan B" { harness.press(.char(character)) }
        harness.press(.enter)

        await harness.waitUntil("the question") { harness.compositor.top is DialogLayer }
        XCTAssertEqual((harness.compositor.top as? DialogLayer)?.modal.body,
                       ["1 note links to [[Plan A]] (3 links).", "Update them to [[Plan B]]?"], "every form counted")
        harness.press(.enter)
        await harness.waitUntil("the links updated") { harness.app.state.message?.text.hasPrefix("Updated links") ?? false }
        XCTAssertEqual(harness.app.state.message?.text, "Updated links in 1 note")
        let updated = String(decoding: try await other.read("/byteclub/Home.md").data, as: UTF8.self)
        XCTAssertEqual(updated, "[[Plan B]] and [[Old Stuff/Plan B]] and [the plan](<Old Stuff/Plan B.md>)\n")
        let renamed = try await other.read("/byteclub/Old Stuff/Plan B.md").data
        XCTAssertEqual(String(decoding: renamed, as: UTF8.self), "Day 1\n")
    }
}

/// Forwards to a store, and after the first download of `meddled` writes `text` over it through
/// the server, as another member saving between the app's read and its save.
struct MeddlingStore: ForwardingStore {
    let base: any RemoteStore
    let meddled: String
    let text: String
    private let once = Once()

    /// Whether the meddling write was made: one, for the first read.
    final class Once: Sendable {
        let done = Mutex(false)
    }

    init(base: any RemoteStore, meddled: String, text: String) {
        self.base = base
        self.meddled = meddled
        self.text = text
    }

    func download(_ path: String, to destination: URL, resumeData: Data?, progress: ProgressHandler?,
                  onResumeData: (@Sendable (Data) -> Void)?) async throws(RemoteError) -> RemoteEntry {
        let entry = try await base.download(path, to: destination, resumeData: resumeData, progress: progress, onResumeData: onResumeData)
        if entry.name == meddled, !once.done.withLock({ done in defer { done = true }; return done }) {
            _ = try await base.upload(data: Data(text.utf8), to: entry.path, mode: .overwrite, autorename: false)
        }
        return entry
    }
}

/// Ctrl-click on a link in the editor follows it, as "Follow the link" does.
@MainActor
final class LinkClickAppTests: XCTestCase {
    var club: SampleClubServer?

    override func tearDown() async throws {
        await club?.close()
        club = nil
    }

    func testCtrlClickOnALinkFollowsIt() async throws {
        let club = try await SampleClubServer()
        self.club = club
        let other = club.store()
        for (name, text) in ["Trip plan.md": "Day 1\nFirst the [[Packing]] list\n", "Packing.md": "Boots\n"] {
            _ = try await other.upload(data: Data(text.utf8), to: "/byteclub/" + name, mode: .add, autorename: false)
        }
        let harness = Harness(store: club.store())
        await harness.start()
        await harness.waitUntil("the notes listed") { harness.app.state.notes.entries.contains { $0.name == "Packing.md" } }
        harness.app.navigator.follow(.note(title: "Trip plan"))
        await harness.waitUntil("Trip plan open") { harness.app.state.note?.isEditing == true }

        let screen = harness.render(width: 120, height: 36)
        let y = try XCTUnwrap((0..<36).first { screen.line($0).contains("[[Packing]]") })
        let x = try XCTUnwrap(screen.line(y).range(of: "Packing]]")).lowerBound.utf16Offset(in: screen.line(y))
        // A plain click only puts the cursor there.
        harness.press(.mouse(x: x, y: y))
        XCTAssertEqual(harness.app.state.note?.entry?.name, "Trip plan.md")
        harness.press(.pointer(MouseEvent(.press(.left), x: x, y: y, modifiers: .ctrl)))
        await harness.waitUntil("Packing open") {
            harness.app.state.note?.entry?.name == "Packing.md" && harness.app.state.note?.isEditing == true
        }
        XCTAssertEqual(harness.app.state.note?.editor.body.text, "Boots\n")
        XCTAssertEqual(harness.app.state.links.history.map(\.path), ["/byteclub/Trip plan.md"])
    }
}
