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

        harness.app.links.updateLinks(["/byteclub/Packing.md", "/byteclub/Budget.md"], from: "Trip plan", to: "Journey")
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
