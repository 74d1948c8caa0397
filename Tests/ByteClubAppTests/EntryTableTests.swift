@testable import ByteClubApp
import Foundation
import ClubKit
import TestSupport
@testable import Remote
import XCTest

/// The list as a table of bytes (``EntryTable``): entries come back exactly, a file maps back
/// to the same table, a damaged one is refused, parts share their bytes, and a change page
/// applied to a table (``ListEdit``) gives what the same page gives a plain array, over
/// generated histories.
final class EntryTableTests: XCTestCase {
    private func entry(_ path: String, modified: Date? = Date(timeIntervalSinceReferenceDate: 815_000_000.25), rev: String? = "015f2a",
                       readOnly: Bool? = nil) -> RemoteEntry {
        var entry = RemoteEntry(kind: .file, name: (path as NSString).lastPathComponent, path: path, id: "id:" + path, rev: rev,
                                size: Int64(path.utf8.count * 37), modified: modified, contentHash: rev.map { String(repeating: $0, count: 4) },
                                modifiedBy: rev == nil ? nil : "dbid:ann")
        entry.readOnly = readOnly
        return entry
    }

    private let hostile = ["tab\there.md", "new\nline.md", "back\\slash.md", "", "\r\n\0\u{7}\u{1b}[31m.md", "é.md", "🦀 crab.md",
                           String(repeating: "long ", count: 200) + ".md"]

    func testEveryFieldComesBackExactly() {
        var entries = hostile.map { entry("/byteclub/Trip/" + $0) }
        entries.append(entry("/byteclub/NoTime.md", modified: nil, rev: nil, readOnly: true))
        entries.append(entry("/byteclub/Old.md", modified: Date(timeIntervalSince1970: -1_000.5), readOnly: false))
        entries.append(RemoteEntry(kind: .folder, name: "Trip", path: "/byteclub/Trip"))
        // A name that is not the end of its path, and a pathLower that is not the path lowered.
        entries.append(RemoteEntry(kind: .file, name: "other.md", path: "/byteclub/Mixed.MD", pathLower: "/byteclub/elsewhere.md"))
        let table = EntryTable(entries)
        XCTAssertEqual(Array(table), entries)
        XCTAssertEqual(table.count, entries.count)
        XCTAssertEqual(table.pathLower(at: 0), entries[0].pathLower)
        XCTAssertEqual(table.modified(at: entries.count - 4), nil)
        XCTAssertEqual(table.kind(at: entries.count - 2), .folder)
        XCTAssertTrue(table.field(.pathLower, at: 1, is: entries[1].pathLower))
        XCTAssertFalse(table.field(.pathLower, at: 1, is: entries[2].pathLower))
        XCTAssertTrue(table.field(.path, at: 0, hasPrefix: "/byteclub/Trip/"))
        XCTAssertEqual(table.firstPosition(ofPathLower: entries[3].pathLower), 3)
        XCTAssertEqual(table, EntryTable(entries), "equal entries, equal tables")
        XCTAssertNotEqual(table, EntryTable(entries.dropLast()))
        var changed = entries
        changed[2].rev = "ffff"
        XCTAssertNotEqual(table, EntryTable(changed))
    }

    /// A name is read inside its path and a lowercase path is its own pathLower: a note costs
    /// its record and its texts once.
    /// The cached list's split into notes and other files reads each name's extension where
    /// the table holds it: the same answer as the String's, hostile and Unicode names too.
    func testAnExtensionReadInTheTableIsTheNamesExtension() {
        let names = hostile + ["Note.MD", "Note.Md", "a.md.txt", "x", ".md", "a.", "a.mdx", "a.m", "ünïcode.Md", "k.\u{212A}",
                               "dot.\u{301}md", "Straße.TXT", "x.ｍｄ", "x.md\u{0}", "MD", "a..md"]
        let table = EntryTable(names.map { entry("/byteclub/" + $0) } + [RemoteEntry(kind: .file, name: "", path: "/byteclub/")])
        for extensions in [ClubLayout.noteExtensions, ClubLayout.noteExtensions + ["k"], ["jpg", "jpeg", "png"]] {
            for position in table.indices {
                XCTAssertEqual(ClubLayout.hasExtension(ofNameAt: position, in: table, extensions),
                               ClubLayout.hasExtension(table.name(at: position), in: extensions),
                               "\(table.name(at: position).debugDescription) in \(extensions)")
            }
        }
        XCTAssertTrue(ClubLayout.hasExtension(ofNameAt: names.count, in: table, ["md"]) == false, "no name, no extension")
    }

    func testANoteCostsItsRecordAndItsTextsOnce() {
        let entries = (0..<1_000).map { entry("/byteclub/notes/note \($0).md") }
        let table = EntryTable(entries)
        let texts = entries.reduce(0) { $0 + $1.path.utf8.count + $1.id!.utf8.count + $1.rev!.utf8.count + $1.contentHash!.utf8.count + 8 }
        XCTAssertEqual(table.byteCount, entries.count * 80 + texts)
        XCTAssertEqual(Array(table), entries)
    }

    func testAFileMapsBackAndADamagedOneIsRefused() throws {
        let notes = EntryTable((0..<5_000).map { entry("/byteclub/N\($0).md") })
        let base = EntryTable(hostile.map { entry("/byteclub/" + $0) })
        // Two parts of one table share their texts, which are written once.
        let parts = [notes, base.part(0..<3), base.part(3..<base.count)]
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("entry-table-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: url) }
        FileManager.default.createFile(atPath: url.path, contents: nil)
        let handle = try FileHandle(forWritingTo: url)
        XCTAssertTrue(EntryTable.write(parts, to: handle.fileDescriptor))
        try handle.close()
        let size = try XCTUnwrap(FileManager.default.attributesOfItem(atPath: url.path)[.size] as? Int)
        XCTAssertEqual(size, 32 + notes.byteCount + base.byteCount, "the shared texts once")

        let bytes = try Data(contentsOf: url)
        let mapped = try XCTUnwrap(mapping(bytes))
        XCTAssertEqual(Array(mapped), Array(notes) + Array(base))
        XCTAssertEqual(mapped.part(5_000..<mapped.count), base)

        XCTAssertNil(mapping(bytes.dropLast()), "cut short")
        XCTAssertNil(mapping(bytes + [0]), "a byte too many")
        var pointing = bytes
        // The first record's path: its offset moved past the texts' end.
        pointing.replaceSubrange((32 + 24)..<(32 + 28), with: withUnsafeBytes(of: UInt32.max - 5) { Data($0) })
        XCTAssertNil(mapping(pointing), "a text past the end")
        var kind = bytes
        kind[32 + 72] = 7
        XCTAssertNil(mapping(kind), "an unknown kind")
        var magic = bytes
        magic[0] = UInt8(ascii: "X")
        XCTAssertNil(mapping(magic))
        XCTAssertNil(mapping(Data()))
    }

    /// The fuzz target's seeds are tables this reader takes (so the fuzzer starts from whole ones).
    func testTheFuzzSeedsAreWholeTables() throws {
        let seeds = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("Fuzz/entry-table")
        let two = try Data(contentsOf: seeds.appendingPathComponent("two-notes"))
        let table = try XCTUnwrap(two.withUnsafeBytes { EntryTable(validating: $0) })
        XCTAssertEqual(table.map(\.name), ["Trip.md", "x\tname.md"])
        XCTAssertEqual(table[1].readOnly, true)
        XCTAssertNil(table[1].modified)
        XCTAssertEqual(try Data(contentsOf: seeds.appendingPathComponent("empty")).withUnsafeBytes { EntryTable(validating: $0) }?.count, 0)
    }

    private func mapping(_ bytes: Data) -> EntryTable? {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("entry-table-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: url) }
        guard FileManager.default.createFile(atPath: url.path, contents: bytes), let handle = FileHandle(forReadingAtPath: url.path) else {
            return nil
        }
        defer { try? handle.close() }
        let table = EntryTable(mapping: handle.fileDescriptor, offset: 0)
        // The mapping outlives the descriptor and the file's name.
        return table
    }

    func testASplitSharesTheBytesOfPartsInOrderAndCopiesOtherwise() {
        let entries = [entry("/byteclub/a.md"), entry("/byteclub/b.md"), entry("/byteclub/c.pdf"),
                       RemoteEntry(kind: .folder, name: "F", path: "/byteclub/F")]
        let table = EntryTable(entries)
        let classify = { (position: Int) -> Int in table.kind(at: position) == .folder ? 2 : table.name(at: position).hasSuffix(".md") ? 0 : 1 }
        let parts = table.split(into: 3, by: classify)
        XCTAssertEqual(parts.map { Array($0) }, [Array(entries[0..<2]), [entries[2]], [entries[3]]])
        XCTAssertTrue(parts.allSatisfy { $0.storage === table.storage }, "parts in order are the table's own bytes")

        let shuffled = EntryTable([entries[3], entries[0], entries[2], entries[1]])
        let copied = shuffled.split(into: 3) { shuffled.kind(at: $0) == .folder ? 2 : shuffled.name(at: $0).hasSuffix(".md") ? 0 : 1 }
        XCTAssertEqual(copied.map { Array($0) }, [[entries[0], entries[1]], [entries[2]], [entries[3]]])
        let empty = EntryTable(entries[0..<2]).split(into: 3) { _ in 0 }
        XCTAssertEqual(empty.map(\.count), [2, 0, 0])
        XCTAssertEqual(Array(table.picking([3, 0])), [entries[3], entries[0]])
        XCTAssertEqual(Array(table.filtered { $0 != 1 }), [entries[0], entries[2], entries[3]])
    }

    /// A listing sorted after it was built moves its records only: the sorted table shares the
    /// texts, sorts exactly as ``ClubLayout/newestFirst(_:)`` (no time oldest; the same time by
    /// path, as strings compare, ASCII or not), and a file written from both has the texts once.
    func testAReorderedTableSharesItsTextsAndSortsAsTheLayoutDoes() throws {
        var generator = SeededGenerator(seed: 56)
        let names = ["a.md", "B.md", "é.md", "e\u{301}.md", "z.md", "Zz.md", "🦀.md", "a b.md"] + hostile.filter { !$0.isEmpty }
        var entries: [RemoteEntry] = []
        for position in 0..<400 {
            let time = Int.random(in: 0..<6, using: &generator)
            let name = names[Int.random(in: 0..<names.count, using: &generator)]
            entries.append(entry("/byteclub/\(position % 13)/\(name)", modified: time == 0 ? nil : Date(timeIntervalSinceReferenceDate: Double(time) * 1.5)))
        }
        let table = EntryTable(entries)
        let sorted = table.reordered(table.positionsNewestFirst())
        XCTAssertEqual(Array(sorted), ClubLayout.newestFirst(entries))
        XCTAssertEqual(sorted.storage.texts, table.storage.texts, "the texts are shared, not copied")

        let file = FileManager.default.temporaryDirectory.appendingPathComponent("reordered-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: file) }
        let fd = open(file.path, O_CREAT | O_RDWR | O_TRUNC, 0o600)
        defer { close(fd) }
        XCTAssertTrue(EntryTable.write([sorted, table.part(0..<10)], to: fd))
        let size = try XCTUnwrap(FileManager.default.attributesOfItem(atPath: file.path)[.size] as? Int)
        XCTAssertEqual(size, EntryTable.header + 410 * EntryTable.recordSize + table.storage.textLength)
        let back = try XCTUnwrap(EntryTable(mapping: fd, offset: 0))
        XCTAssertEqual(Array(back), ClubLayout.newestFirst(entries) + entries[0..<10])
    }

    /// Generated histories: a change page applied to a table through ``ListEdit`` leaves the
    /// list, and says what went, exactly as the same page applied to an array the way the list
    /// always applied it (find, replace, append, remove by path or by folder, sort newest first).
    func testAChangePageOnATableIsThePageOnAnArray() {
        var random = SeededRandom(seed: 56)
        for history in 0..<200 {
            let folders = ["/byteclub", "/byteclub/trip", "/byteclub/trip/day", "/byteclub/club"]
            func path(_ index: Int) -> String { folders[index % folders.count] + "/note \(index % 37).md" }
            // Ties in time on purpose: the order falls back to the path.
            func moment() -> Date { Date(timeIntervalSinceReferenceDate: 815_000_000 + Double(random.next(upTo: 6)) * 60) }
            var model = ClubLayout.newestFirst(Dictionary((0..<random.next(upTo: 60)).map { path($0) }.map { ($0.lowercased(), entry($0, modified: moment())) },
                                                          uniquingKeysWith: { a, _ in a }).map(\.value))
            // Half the histories keep the paths' counts from page to page, as the list does.
            let initial = EntryTable(model)
            var counts: PathCounts? = history % 2 == 0 ? PathCounts(initial) : nil
            var edit = ListEdit(initial, known: counts)
            for step in 0..<random.next(upTo: 40) {
                let context = "history \(history), step \(step)"
                switch random.next(upTo: 6) {
                case 5:
                    // The page ends: a new table, and the next page starts from it.
                    let table = edit.table(order: ClubLayout.newestFirst, counts: &counts)
                    model = ClubLayout.newestFirst(model)
                    XCTAssertEqual(Array(table), model, context)
                    if let counts { XCTAssertEqual(counts, PathCounts(table), "the kept counts are the new table's: \(context)") }
                    edit = ListEdit(table, known: counts)
                case 0:
                    let target = path(random.next(upTo: 80)).lowercased()
                    let gone = model.filter { $0.pathLower == target }
                    model.removeAll { $0.pathLower == target }
                    XCTAssertEqual(edit.removeAll(pathLower: target, inFolder: false), gone, context)
                case 1:
                    let folder = folders[random.next(upTo: folders.count)].lowercased()
                    let gone = model.filter { $0.pathLower == folder || $0.pathLower.hasPrefix(folder + "/") }
                    model.removeAll { $0.pathLower == folder || $0.pathLower.hasPrefix(folder + "/") }
                    XCTAssertEqual(edit.removeAll(pathLower: folder, inFolder: true), gone, context)
                default:
                    let new = entry(path(random.next(upTo: 80)), modified: moment(), rev: String(random.next(upTo: 1_000_000), radix: 16))
                    XCTAssertEqual(edit.entry(at: new.pathLower), model.first { $0.pathLower == new.pathLower }, context)
                    if let index = model.firstIndex(where: { $0.pathLower == new.pathLower }) { model[index] = new } else { model.append(new) }
                    edit.put(new)
                }
                XCTAssertEqual(Set(edit.current.map(\.pathLower)), Set(model.map(\.pathLower)), context)
            }
            XCTAssertEqual(Array(edit.table(order: ClubLayout.newestFirst)), ClubLayout.newestFirst(model), "history \(history)")
        }
    }
}

/// The notes list's change log (``ListingChange``): what the search index takes in after change pages.
final class ListingChangeLogTests: XCTestCase {
    private func note(_ name: String, rev: String = "1") -> RemoteEntry {
        RemoteEntry(kind: .file, name: name, path: "/byteclub/" + name, rev: rev, size: 1, modified: Date(timeIntervalSinceReferenceDate: 815_000_000))
    }

    func testPagesSinceTheIndexsVersionAreTakenPathByPathAndAGapIsAWholeSync() {
        var state = AppState(backend: "club")
        state.notes.take([note("a.md"), note("b.md"), note("c.md")], tab: .notes)
        state.notes.hasLoaded = true
        let loaded = state.notes.version
        let layout = ClubLayout()
        let format = DisplayFormat()
        _ = state.applyChanges(.notes, [.updated(note("a.md", rev: "2")), .updated(note("d.md"))], layout: layout, format: format)
        _ = state.applyChanges(.notes, [.deleted(name: "b.md", path: "/byteclub/b.md", pathLower: "/byteclub/b.md"), .updated(note("d.md", rev: "3"))],
                               layout: layout, format: format)
        _ = state.applyChanges(.notes, [.deleted(name: "d.md", path: "/byteclub/d.md", pathLower: "/byteclub/d.md")], layout: layout, format: format)
        let pages = ListingChange.since(loaded, through: state.notes.version, in: state.notes.changeLog)
        XCTAssertEqual(pages?.changed.map(\.pathLower), ["/byteclub/a.md"])
        XCTAssertEqual(pages?.changed.first?.rev, "2")
        XCTAssertEqual(pages?.removed, ["/byteclub/b.md", "/byteclub/d.md"])
        XCTAssertEqual(ListingChange.since(loaded + 1, through: state.notes.version, in: state.notes.changeLog)?.changed.map(\.pathLower), [],
                       "from the second page on: a.md was the first page's")
        // An edit of the app's own moves the version with no page: a gap.
        state.notes.version += 1
        XCTAssertNil(ListingChange.since(loaded, through: state.notes.version, in: state.notes.changeLog))
        // A load starts the log afresh.
        state.notes.take([note("a.md")], tab: .notes)
        XCTAssertEqual(state.notes.changeLog, [])
    }
}

/// A small deterministic generator (SplitMix64), so a failing history can be run again.
private struct SeededRandom {
    private var state: UInt64

    init(seed: UInt64) { state = seed }

    mutating func next(upTo bound: Int) -> Int {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        z ^= z >> 31
        return bound <= 0 ? 0 : Int(z % UInt64(bound))
    }
}
