import ClubKit
import Markdown
import Remote
import XCTest

/// The one resolver (issue 54): the app's `[[links]]` and the command line's titles answer by
/// the same rules. ByteClubAppTests' FolderListingTests has the nearest-first rules from a note.
final class NoteResolverTests: XCTestCase {
    private func note(_ path: String) -> RemoteEntry {
        RemoteEntry(kind: .file, name: (path as NSString).lastPathComponent, path: path)
    }

    func testATitleIsFoundInAnyFolderNearestTheClubFolderFirst() {
        let deep = note("/byteclub/Old Stuff/2025/Deep two.md"), top = note("/byteclub/Plan.md"), lower = note("/byteclub/A/Plan.md")
        let resolver = NoteResolver(entries: [deep, top, lower, note("/byteclub/A/Same.md"), note("/byteclub/B/Same.md"),
                                              RemoteEntry(kind: .folder, name: "Deep two", path: "/byteclub/Deep two")],
                                    root: "/byteclub")
        XCTAssertEqual(resolver.resolve("Deep two", from: nil), .one(deep), "a folder is no note")
        XCTAssertEqual(resolver.resolve("deep TWO.md", from: nil), .one(deep), "with its extension, any case")
        XCTAssertEqual(resolver.resolve("2025/Deep two", from: nil), .one(deep), "a path's end")
        XCTAssertEqual(resolver.resolve("Old Stuff/2025/Deep two.md", from: nil), .one(deep))
        XCTAssertEqual(resolver.resolve("Plan", from: nil), .one(top), "the club folder's before a subfolder's")
        XCTAssertEqual(resolver.resolve("Plan", from: "/byteclub/A/Note.md"), .one(lower), "from a note: its own folder's")
        XCTAssertEqual(resolver.resolve("Same", from: nil), .several([note("/byteclub/A/Same.md"), note("/byteclub/B/Same.md")]))
        XCTAssertEqual(resolver.resolve("Old Stuff/Deep two", from: nil), .none)
        XCTAssertEqual(resolver.entry(at: "/byteclub/old stuff/2025/deep two"), deep, "a path without its extension")
        XCTAssertNil(resolver.entry(at: "/byteclub/Deep two"))
    }

    func testANameWithItsExtensionIsThatFileBeforeAnotherOfTheTitle() {
        let md = note("/byteclub/Trip.md"), txt = note("/byteclub/Trip.txt")
        let resolver = NoteResolver(entries: [md, txt], root: "/byteclub")
        XCTAssertEqual(resolver.resolve("trip.TXT", from: nil), .one(txt))
        XCTAssertEqual(resolver.resolve("Trip", from: nil), .several([md, txt]))
        XCTAssertEqual(resolver.note(titled: "Trip", from: nil), md, "the first of several as near")
    }

    func testAnAliasFromFrontMatterIsATitle() {
        let plan = note("/byteclub/Trips/Plan.md")
        let aliases = NoteResolver.aliases(of: [(path: plan.path, text: "---\naliases: [Sailing, Boat trip]\n---\nDay 1\n")])
        XCTAssertEqual(aliases, ["sailing": ["/byteclub/trips/plan.md"], "boat trip": ["/byteclub/trips/plan.md"]])
        let resolver = NoteResolver(entries: [plan], root: "/byteclub", aliases: aliases)
        XCTAssertEqual(resolver.resolve("boat TRIP", from: nil), .one(plan))
        XCTAssertEqual(resolver.resolve(.note(title: "Sailing"), from: "/byteclub/Home.md"), .one(plan))
        XCTAssertEqual(resolver.resolve(.path("/byteclub/Trips/Plan"), from: nil), .one(plan))
        XCTAssertEqual(resolver.resolve(.photo("/byteclub/photos/x.jpg"), from: nil), .none)
    }

    /// Issue 55: attachments by their name with its extension, and Markdown links that do not
    /// lead where they say from the note's folder, as Obsidian finds them.
    func testAttachmentsByNameAndMarkdownLinksAsObsidianFindsThem() {
        let pdf = note("/byteclub/Vault/Test Attachments/a_pdf_file.pdf"), other = note("/byteclub/Other/a_pdf_file.pdf")
        let linked = note("/byteclub/Vault/Test Data/link_in_task_markdown_link.md"), version = note("/byteclub/Vault/v1.2.md")
        let resolver = NoteResolver(entries: [pdf, other, linked, version, note("/byteclub/Vault/Manual/Smoke.md")], root: "/byteclub")
        XCTAssertEqual(resolver.entries.count, 3, "notes are the entries; the other files are files")
        XCTAssertEqual(resolver.resolve("a_pdf_file.pdf", from: "/byteclub/Vault/Test Data/x.md"), .one(pdf), "the nearest of that name")
        XCTAssertEqual(resolver.resolve("A_PDF_FILE.pdf", from: "/byteclub/Other/y.md"), .one(other))
        XCTAssertEqual(resolver.resolve("Test Attachments/a_pdf_file.pdf", from: "/byteclub/Other/y.md"), .one(pdf), "by the end of its path")
        XCTAssertEqual(resolver.resolve("v1.2", from: nil), .one(version), "no file is so named: the note")
        XCTAssertEqual(resolver.resolve("missing.pdf", from: nil), .none)
        // [x](a_pdf_file.pdf) in Test Data/: not beside the note; by its name, as Obsidian does.
        XCTAssertEqual(resolver.resolve(.path("/byteclub/Vault/Test Data/a_pdf_file.pdf"), from: "/byteclub/Vault/Test Data/x.md"), .one(pdf))
        // [x](Test%20Data/link_in_task_markdown_link.md) from Manual/: the path's end.
        XCTAssertEqual(resolver.resolve(.path("/byteclub/Vault/Manual/Test Data/link_in_task_markdown_link.md"), from: "/byteclub/Vault/Manual/Smoke.md"), .one(linked))
        // [x](Manual/Smoke) from Test Data/: from the club folder's Vault/, by its end.
        XCTAssertEqual(resolver.resolve(.path("/byteclub/Vault/Test Data/Manual/Smoke"), from: "/byteclub/Vault/Test Data/x.md"),
                       .one(note("/byteclub/Vault/Manual/Smoke.md")))
        XCTAssertEqual(resolver.resolve(.path("/byteclub/Vault/Test Data/markdownLink.md"), from: "/byteclub/Vault/Test Data/x.md"), .none)
        XCTAssertEqual(resolver.resolve(.path("/elsewhere/x.md"), from: "/byteclub/Vault/Test Data/x.md"), .none)
    }

    /// Issue 69: a picture link that names no file where it says is found as Obsidian finds it.
    /// The help's own vault keeps its icons in `Attachments/icons/` and embeds them by name from
    /// every folder (`![[lucide-cog.svg#icon]]`); its screenshots, which import moves under
    /// `photos/`, are named by Markdown pictures from other folders (`![x](shot.png#interface)`).
    func testAPictureLinkIsFoundByItsNameWhereItsPathHasNone() {
        let icon = note("/byteclub/Help/Attachments/icons/lucide-cog.svg"), shot = note("/byteclub/photos/Attachments/shot.png")
        let here = note("/byteclub/Help/Bases/here.png"), page = "/byteclub/Help/Bases/Views.md"
        let resolver = NoteResolver(entries: [icon, shot, here, note(page)], root: "/byteclub")
        func picture(_ text: String) -> NoteResolver.Answer {
            let link = NoteLinks.scan(text)[0]
            guard case .photo(let path) = link.target(inFolder: "/byteclub/Help/Bases") else { return .none }
            return resolver.resolvePicture(at: path, from: page)
        }
        XCTAssertEqual(picture("![[lucide-cog.svg#icon]]"), .one(icon))
        XCTAssertEqual(picture("![[LUCIDE-COG.svg|20]]"), .one(icon), "its case and its size do not matter")
        XCTAssertEqual(picture("![x](shot.png#interface)"), .one(shot))
        XCTAssertEqual(picture("![x](here.png)"), .one(here), "where it says first")
        XCTAssertEqual(picture("![[Attachments/icons/lucide-cog.svg]]"), .one(icon), "by its path from the club folder's vault")
        XCTAssertEqual(picture("![[missing.svg]]"), .none)
        XCTAssertEqual(picture("![x](Attachments/none.png)"), .none)
    }
}
