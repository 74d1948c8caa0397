@testable import ClubServer
import DropboxWire
import XCTest

/// FolderStore's value components, without a disk: ids (IdentifierBook) and hashes (HashBook).
final class FolderBooksTests: XCTestCase {
    func testAnIdIsMadeOnceAndFollowsAMoveWithEverythingUnderIt() {
        var book = IdentifierBook()
        var made = 0
        let next = { () -> String in made += 1; return "id:\(made)" }
        XCTAssertEqual(book.identifier(for: "/a", newID: next), "id:1")
        XCTAssertEqual(book.identifier(for: "/a/b.txt", newID: next), "id:2")
        XCTAssertEqual(book.identifier(for: "/ab", newID: next), "id:3")
        XCTAssertEqual(book.identifier(for: "/a", newID: next), "id:1", "a path keeps its id")
        book.move(from: "/a", to: "/z")
        XCTAssertEqual(book["/z"], "id:1")
        XCTAssertEqual(book["/z/b.txt"], "id:2")
        XCTAssertEqual(book["/ab"], "id:3", "a sibling whose name only starts the same stays")
        XCTAssertNil(book["/a"])
        XCTAssertEqual(book.path(of: "id:2"), "/z/b.txt")
        XCTAssertEqual(Set(book.ids(under: "/z")), ["id:1", "id:2"])
        book.forget(under: "/z")
        XCTAssertEqual(book.ids, ["/ab": "id:3"])
        XCTAssertTrue(book.isDirty)
    }

    func testAMergeKeepsTheOtherServersIdsAndOursAndTheFirstWrittenWinsATie() {
        var book = IdentifierBook(["/old": "id:old", "/gone": "id:gone"])
        book.assign("id:mine", to: "/mine")
        book.assign("id:late", to: "/both")
        book.forget(under: "/gone")
        // Meanwhile the other server gave /theirs and /both ids, and left /gone alone.
        let disk = ["/old": "id:old", "/gone": "id:gone", "/theirs": "id:theirs", "/both": "id:first"]
        let written = book.merge(disk: disk)
        XCTAssertEqual(written, ["/old": "id:old", "/theirs": "id:theirs", "/both": "id:first", "/mine": "id:mine"])
        XCTAssertEqual(book.ids, written, "this server takes the id written first")
        XCTAssertFalse(book.isDirty)
        XCTAssertTrue(book.changes.isEmpty)
    }

    func testAMergeDoesNotUndoWhatTheOtherServerChanged() {
        var book = IdentifierBook(["/a": "id:a"])
        book.assign("id:b", to: "/b")
        // The other server moved /a to /c since we read the file.
        let written = book.merge(disk: ["/c": "id:a"])
        XCTAssertEqual(written, ["/c": "id:a", "/b": "id:b"])
    }

    /// New ids go to `ids.log` while `ids.json` is as this server left it; a second server over
    /// the folder folds the log in, and each keeps the other's ids.
    func testNewIdsAreAppendedToTheLogAndTwoServersKeepEachOthersIds() throws {
        let meta = FileManager.default.temporaryDirectory.appendingPathComponent("ids-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: meta, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: meta) }
        let json = meta + "/ids.json", log = meta + "/ids.log"
        func inode(_ path: String) -> ino_t? {
            var info = stat()
            return stat(path, &info) == 0 ? info.st_ino : nil
        }

        var files = CacheFiles(metaDirectory: meta, temporaryDirectory: meta)
        var book = IdentifierBook(FolderFiles.readIdentifiers(meta))
        book.assign("id:a", to: "/a")
        files.write(&book)
        let first = try XCTUnwrap(inode(json), "the first write is ids.json whole")
        for n in 0..<3 { book.assign("id:\(n)", to: "/n\(n)") }
        book.forget(under: "/a")
        files.write(&book)
        XCTAssertEqual(inode(json), first, "ids.json is not written again")
        XCTAssertEqual(try String(contentsOfFile: log, encoding: .utf8).split(separator: "\n").count, 4)
        XCTAssertEqual(FolderFiles.readIdentifiers(meta), ["/n0": "id:0", "/n1": "id:1", "/n2": "id:2"])

        // Another server gives /b an id: it reads the log too, and folds it into ids.json.
        var other = CacheFiles(metaDirectory: meta, temporaryDirectory: meta)
        var theirs = IdentifierBook(FolderFiles.readIdentifiers(meta))
        theirs.assign("id:b", to: "/b")
        other.write(&theirs)
        XCTAssertNil(inode(log), "the log is folded in")
        // This server's next id meets a file it did not write: merged, nothing of either lost.
        book.assign("id:c", to: "/c")
        files.write(&book)
        let expected = ["/n0": "id:0", "/n1": "id:1", "/n2": "id:2", "/b": "id:b", "/c": "id:c"]
        XCTAssertEqual(FolderFiles.readIdentifiers(meta), expected)
        XCTAssertEqual(book.ids, expected)

        // A line cut short by a kill is left out; the lines before it stand.
        try (try String(contentsOfFile: json, encoding: .utf8)).write(toFile: json, atomically: true, encoding: .utf8)
        let handle = try XCTUnwrap(FileHandle(forWritingAtPath: log) ?? {
            FileManager.default.createFile(atPath: log, contents: nil)
            return FileHandle(forWritingAtPath: log)
        }())
        try handle.seekToEnd()
        try handle.write(contentsOf: Data((FolderFiles.identifierLine("/d", "id:d") + "[\"/e\",\"id:").utf8))
        try handle.close()
        XCTAssertEqual(FolderFiles.readIdentifiers(meta), expected.merging(["/d": "id:d"]) { $1 })
    }

    private let key = FileKey(inode: 7, size: 12, ctimeNanoseconds: 1, mtimeNanoseconds: 2)
    private let hash = String(repeating: "ab", count: 32)

    func testAHashIsComputedOnceAndRoundTripsThroughItsText() {
        var book = HashBook()
        var computed = 0
        XCTAssertEqual(book.hash(for: key) { computed += 1; return self.hash }, hash)
        XCTAssertEqual(book.hash(for: key) { computed += 1; return "other" }, hash)
        XCTAssertEqual(computed, 1)
        XCTAssertTrue(book.isDirty)
        let text = book.text(mergingDisk: nil)
        XCTAssertFalse(book.isDirty)
        XCTAssertEqual(HashBook.parse(text).mapValues(\.hex), [key: hash])
        XCTAssertEqual(book.hash(for: FileKey(inode: 8, size: 0, ctimeNanoseconds: 0, mtimeNanoseconds: 0)) { nil }, "",
                       "an unreadable file has no hash and none is cached")
        XCTAssertFalse(book.isDirty)
    }

    func testAHashFromItsBytesIsTheHashFromItsTextAndEveryKeyRoundTrips() {
        for size in [0, 1, 1000, ContentHasher.blockSize, ContentHasher.blockSize + 1, 2 * ContentHasher.blockSize] {
            var hasher = ContentHasher()
            let data = Data((0..<size).map { UInt8(truncatingIfNeeded: $0 &* 31) })
            hasher.update(data)
            let digest = hasher.withDigest { HashBook.Digest(bytes: $0) }
            XCTAssertEqual(digest?.hex, hasher.finalize(), "\(size) bytes")
            let whole = data.withUnsafeBytes { bytes in ContentHasher.withDigest(of: bytes) { HashBook.Digest(bytes: $0) } }
            XCTAssertEqual(whole?.hex, hasher.finalize(), "\(size) bytes held whole")
        }
        XCTAssertNil(Data(count: 31).withUnsafeBytes { HashBook.Digest(bytes: $0) })
        var book = HashBook()
        let keys = [FileKey(inode: .max, size: .max, ctimeNanoseconds: .min, mtimeNanoseconds: -1),
                    FileKey(inode: 0, size: 0, ctimeNanoseconds: 0, mtimeNanoseconds: 1_700_000_000_123_456_789), key]
        for key in keys { book.record(hash, for: key) }
        XCTAssertEqual(HashBook.parse(Data(book.appendedText())).mapValues(\.hex), Dictionary(uniqueKeysWithValues: keys.map { ($0, hash) }))
        for key in keys { book.record(hash, for: key) }
        XCTAssertEqual(HashBook.parse(book.text(mergingDisk: nil)).count, 3, "written whole, the same lines")
    }

    func testDamagedLinesAreSkippedAndAnotherServersHashesAreKept() {
        let good = "1 2 3 4 \(hash)\n"
        let parsed = HashBook.parse(Data((good + "1 2 3\nx 2 3 4 \(hash)\n5 6 7 8 nothex\n" + "9 9 9 9 \(hash)\n-1 2 3 4 \(hash)\n"
                                               + "1 2 3 4 \(hash)0\n1 2 99999999999999999999 4 \(hash)\n-5 6 7 8 \(hash)").utf8))
        XCTAssertEqual(parsed.count, 2, "short, non-numeric, too-long, overflowing and negative-inode lines are skipped")
        XCTAssertEqual(HashBook.parse(Data("1 2 -3 4 \(hash.uppercased())\n".utf8)).values.map(\.hex), [hash],
                       "times before 1970 are kept, and a hash in capitals is read")
        var book = HashBook()
        book.record(hash, for: key)
        XCTAssertEqual(HashBook.parse(book.text(mergingDisk: parsed)).count, 3)
    }

    func testAnIdsLogLineReadsBackWhateverThePathHolds() throws {
        let meta = FileManager.default.temporaryDirectory.appendingPathComponent("idline-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: meta, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: meta) }
        let paths = ["/plain.md", "/a \"quoted\" name.md", "/back\\slash/x", "/line\nbreak\ttab\u{1}", "/été/日本語 ✎.md"]
        let lines = paths.enumerated().map { FolderFiles.identifierLine($0.element, "id:\($0.offset)") }.joined()
            + FolderFiles.identifierLine("/gone.md", "id:g") + FolderFiles.identifierLine("/gone.md", nil)
        XCTAssertEqual(lines.split(separator: "\n").count, paths.count + 2, "one line each: a newline in a name is escaped")
        try Data(lines.utf8).write(to: URL(fileURLWithPath: meta + "/" + FolderFiles.identifiersLog))
        let expected = Dictionary(uniqueKeysWithValues: paths.enumerated().map { ($0.element, "id:\($0.offset)") })
        XCTAssertEqual(FolderFiles.readIdentifiers(meta), expected)
        try FileManager.default.removeItem(atPath: meta + "/" + FolderFiles.identifiersLog)
        try FolderFiles.identifiersJSON(expected).write(to: URL(fileURLWithPath: meta + "/" + FolderFiles.identifiersFile))
        XCTAssertEqual(FolderFiles.readIdentifiers(meta), expected, "ids.json reads back as written")
        XCTAssertEqual(FolderFiles.identifiersJSON([:]), Data("{}".utf8))
    }

    func testATokenIsBase64URLWithoutPaddingAndNeverTheSameTwice() {
        for (bytes, length) in [(12, 16), (18, 24), (10, 14), (1, 2)] {
            let tokens = (0..<200).map { _ in FolderFiles.randomToken(bytes: bytes) }
            XCTAssertTrue(tokens.allSatisfy { $0.count == length }, "\(bytes) bytes: \(length) letters, no padding")
            XCTAssertTrue(tokens.allSatisfy { $0.allSatisfy { $0.isLetter || $0.isNumber || $0 == "-" || $0 == "_" } && $0.allSatisfy(\.isASCII) })
            if bytes >= 10 { XCTAssertEqual(Set(tokens).count, tokens.count) }
            let decoded = tokens.compactMap { token in
                Data(base64Encoded: token.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
                     + String(repeating: "=", count: (4 - token.count % 4) % 4))
            }
            XCTAssertEqual(decoded.map(\.count), Array(repeating: bytes, count: tokens.count))
        }
    }

    func testNewHashesAreAppendedToTheFileAndAnotherServersAreKept() throws {
        let meta = FileManager.default.temporaryDirectory.appendingPathComponent("hashes-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: meta, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: meta) }
        let path = meta + "/content-hashes"
        func version(_ inode: UInt64) -> FileKey { FileKey(inode: inode, size: 1, ctimeNanoseconds: 1, mtimeNanoseconds: 1) }
        func lines() throws -> [String] { try String(contentsOfFile: path, encoding: .utf8).split(separator: "\n").map(String.init) }
        var files = CacheFiles(metaDirectory: meta, temporaryDirectory: meta)
        var book = HashBook()
        book.record(hash, for: version(1))
        files.write(&book)
        XCTAssertEqual(try lines().count, 1)
        let first = try lines()
        for inode in 2...4 { book.record(hash, for: version(UInt64(inode))) }
        book.record(hash, for: version(1))
        files.write(&book)
        XCTAssertFalse(book.isDirty)
        XCTAssertEqual(try Array(lines().prefix(1)), first, "the file is added to, not written again")
        XCTAssertEqual(try lines().count, 4, "a version already written is not written twice")
        XCTAssertEqual(Set(FolderFiles.readHashes(path).keys), Set((1...4).map { version(UInt64($0)) }))

        // Another server over the same folder writes the file: the next write merges, whole.
        var other = CacheFiles(metaDirectory: meta, temporaryDirectory: meta)
        var theirs = HashBook(FolderFiles.readHashes(path))
        theirs.record(hash, for: version(9))
        other.write(&theirs)
        book.record(hash, for: version(5))
        files.write(&book)
        XCTAssertEqual(Set(FolderFiles.readHashes(path).keys), Set([1, 2, 3, 4, 5, 9].map { version(UInt64($0)) }))
        XCTAssertEqual(try lines().count, 6)
    }

    func testPastItsLimitTheCacheKeepsOnlyTheVersionsUsedThisRun() {
        var known: [FileKey: HashBook.Digest] = [:]
        for inode in 0..<5 { known[FileKey(inode: UInt64(inode), size: 1, ctimeNanoseconds: 1, mtimeNanoseconds: 1)] = HashBook.Digest(hex: hash) }
        var book = HashBook(known, limit: 3)
        _ = book.hash(for: FileKey(inode: 1, size: 1, ctimeNanoseconds: 1, mtimeNanoseconds: 1)) { nil }
        book.record(hash, for: key)
        XCTAssertEqual(Set(HashBook.parse(book.text(mergingDisk: nil)).keys),
                       [FileKey(inode: 1, size: 1, ctimeNanoseconds: 1, mtimeNanoseconds: 1), key])
    }

    // MARK: FolderNameCache

    /// A big folder's names as hashes of their lower case: a name with no case twin is missing at
    /// once; a twin asks for a listing that keeps the names, and then is found by its lower case.
    func testABigFoldersCaseTwinIsFoundFromItsNamesOnceAsked() {
        let cache = FolderNameCache()
        let names = (0..<FolderNameCache.bigFolder).map { "Note \($0).md" }
        XCTAssertTrue(isUnknown(cache.name("note 1.md", in: "/club")), "not listed yet")
        cache.listed(names, in: "/club")
        XCTAssertTrue(isMissing(cache.name("minutes.md", in: "/club")))
        XCTAssertTrue(cache.name("note 1.md", in: "/club").isTwin, "a hash found: list the folder, keeping its names")
        cache.listed(names, in: "/club", keepingNames: true)
        guard case .named(let name) = cache.name("note 1.md", in: "/club") else { return XCTFail("the twin by its names") }
        XCTAssertEqual(name, "Note 1.md")
        cache.adding("Agenda.md", in: "/club")
        guard case .named(let added) = cache.name("agenda.md", in: "/club") else { return XCTFail("a name this server writes") }
        XCTAssertEqual(added, "Agenda.md")
        XCTAssertTrue(isUnknown(cache.name("note 1.md", in: "/elsewhere")))
        cache.listed(Array(names.prefix(10)), in: "/small")
        XCTAssertTrue(isUnknown(cache.name("note 1.md", in: "/small")), "a small folder is listed each time")
    }

    private func isUnknown(_ known: FolderNameCache.Known) -> Bool { if case .unknown = known { true } else { false } }
    private func isMissing(_ known: FolderNameCache.Known) -> Bool { if case .missing = known { true } else { false } }

    // MARK: TagBook

    func testTagsAreAddedOnceInOrderAndRemovedToNothing() throws {
        var book = TagBook()
        XCTAssertTrue(try book.add("trip", to: "id:1"))
        XCTAssertTrue(try book.add("boat", to: "id:1"))
        XCTAssertFalse(try book.add("trip", to: "id:1"), "a tag the item has changes nothing")
        XCTAssertEqual(book.tags(of: "id:1"), ["trip", "boat"])
        try book.remove("trip", from: "id:1")
        XCTAssertThrowsError(try book.remove("trip", from: "id:1")) { XCTAssertEqual($0 as? TagBook.Refusal, .notPresent) }
        XCTAssertThrowsError(try book.remove("trip", from: "id:none")) { XCTAssertEqual($0 as? TagBook.Refusal, .notPresent) }
        try book.remove("boat", from: "id:1")
        XCTAssertEqual(book.byID, [:], "an item without tags has no entry")
    }

    func testAnItemTakesAtMostTheMaximumAndADeleteDropsOnlyItsIds() throws {
        var book = TagBook()
        for index in 0..<TagText.maximumPerItem { XCTAssertTrue(try book.add("t\(index)", to: "id:full")) }
        XCTAssertThrowsError(try book.add("one_more", to: "id:full")) { XCTAssertEqual($0 as? TagBook.Refusal, .tooMany) }
        XCTAssertTrue(try book.add("kept", to: "id:other"))
        XCTAssertFalse(book.drop(["id:untagged"]), "nothing to drop")
        XCTAssertTrue(book.drop(["id:full", "id:untagged"]))
        XCTAssertEqual(book.byID, ["id:other": ["kept"]])
    }

    func testStoredTagsAreReadAsATagCallCouldHaveStoredThem() throws {
        let many = (0..<(TagText.maximumPerItem + 5)).map { "\"x\($0)\"" }.joined(separator: ",")
        let stored = Data(#"{"id:a":["Trip","trip","not a tag!","i\#u{307}zmir"],"id:b":["!!"],"id:c":[\#(many)]}"#.utf8)
        let book = TagBook(stored: stored)
        XCTAssertEqual(book.tags(of: "id:a").first, "trip", "folded, and the same tag twice is one")
        XCTAssertEqual(book.tags(of: "id:a").count, 2, "a text that is no tag is left out: \(book.tags(of: "id:a"))")
        XCTAssertNil(book.byID["id:b"], "an item left with no valid tag has no entry")
        XCTAssertEqual(book.tags(of: "id:c").count, TagText.maximumPerItem)
        XCTAssertEqual(TagBook(stored: Data("not json".utf8)), TagBook())
        XCTAssertEqual(TagBook(stored: nil), TagBook())
    }
}
