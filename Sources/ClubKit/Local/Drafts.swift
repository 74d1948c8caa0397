import Dispatch
import Foundation
import Durable
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The text of a note being edited, journalled to disk before anything is sent, so that no
/// failure (a dead server, a conflict, `kill -9`) loses a word.
///
/// A draft of an existing note remembers the note's path and the rev it was opened at, so
/// saving it later still detects a change made meanwhile. A draft of a new note has no path.
public struct Draft: Codable, Equatable, Sendable {
    /// The file name stem under the drafts folder: stable per note (see ``id(forPath:)``), or a
    /// UUID for a new note.
    public var id: String
    /// The note this edits (as displayed), or nil for a new note.
    public var path: String?
    /// The rev the note was opened at; a save updates exactly this rev.
    public var baseRev: String?
    /// The note's text at ``baseRev``, when it was known: a merge's base where the server keeps
    /// no revisions (WebDAV). Absent from drafts written before it was kept.
    public var baseText: String?
    public var title: String
    public var body: String
    /// When the draft was last written.
    public var updated: Date
    /// The folder a new note is saved in (nil: the club folder); an existing note's is in ``path``.
    public var folder: String?
    /// Written while the note was live (joined on the club server's channel, or resumed from its
    /// journal): every edit in ``body`` is in the note's live journal (``LiveNote``) already. The
    /// journal, not this text, is then what a restart resumes from; merged in again, the text
    /// doubled a burst cut by a kill -9, for everyone in the note. Nil in other drafts.
    public var inLiveJournal: Bool?
    /// The journal (``LiveNote``'s file: a live note's, or the note's own) that holds this
    /// draft's text: the note's one journal. The draft's file then keeps no text of its own (its
    /// `body` is written empty), and ``DraftStore/load(_:)`` reads the text from the journal, which
    /// every key reached at once; the draft's file is written only when what it says of the note
    /// changes (its rev, title, folder, journal), not at each burst of keys.
    ///
    /// Set only by the editor that appends to that journal, whose document has taken every edit
    /// of the text it writes. A loaded draft never has it (its text is read in whole): changed and
    /// saved by another shell, its text goes into its own file, never behind a journal that does
    /// not hold it. ``DraftStore/journal(of:)`` says which journal a draft's file names.
    public var liveJournal: String?
    /// How long the journal was (bytes) when this draft was made from it: what this process
    /// journalled of the note, the text an editor hands over (``DraftStore/handedOver(_:over:)``)
    /// read back from it. Not written to the draft's file.
    public var journalLength: Int?

    private enum CodingKeys: String, CodingKey {
        case id, path, baseRev, baseText, title, body, updated, folder, inLiveJournal, liveJournal
    }

    public init(id: String, path: String?, baseRev: String?, title: String, body: String, updated: Date) {
        self.id = id
        self.path = path
        self.baseRev = baseRev
        self.title = title
        self.body = body
        self.updated = updated
    }

    /// The draft id of an existing note: its lowercased path, made safe as a file name.
    /// Paths are case-insensitive, so "/byteclub/A.txt" and "/byteclub/a.txt" share a draft.
    public static func id(forPath path: String) -> String {
        "note-" + StorageName.make(path.lowercased())
    }

    /// A new note's draft id.
    public static func newID() -> String { "new-" + UUID().uuidString.lowercased() }

    /// What the draft says of its note, without its text and time: a draft whose text is its
    /// live journal's is written again only when this changes.
    var onlyNote: Draft {
        var note = self
        note.body = ""
        note.updated = Date(timeIntervalSince1970: 0)
        note.journalLength = nil
        return note
    }
}

/// Drafts as JSON files in one folder: one club's (`$XDG_STATE_HOME/byteclub/drafts/KEY/`,
/// ClubKit's `Backend.drafts`), since a draft is a club's text and is never shown in, or saved
/// to, another club.
///
/// Every write goes to a temporary file, is flushed to disk and renamed over the old draft, so
/// a crash leaves either the old draft or the new one, never half of one. Files that are not
/// drafts (or are damaged) are skipped by ``all()``, never deleted.
///
/// Writes and removals all go through one serial queue (``writes``): the editor's journal
/// writes a big note's draft on it in the background (``saveInBackgroundIfOurs(_:apart:then:)``), and a
/// later ``save(_:)`` or ``remove(_:)`` of the same draft waits for it there, so an older text
/// can never land after a newer one or bring back a draft that was dropped.
public struct DraftStore: Sendable {
    public let directory: URL
    /// The one queue every draft write and removal runs on, in the order they were asked for.
    static let writes = DispatchQueue(label: "byteclub.drafts", qos: .utility)
    /// Where a background write's text and JSON are made, giving way to the UI.
    static let texts = YieldingThread(name: "byteclub.draft-texts")
    /// Each draft file as this process last wrote or adopted it (by path), to tell another
    /// process's write since. Safe though mutable and global: read and written only on
    /// ``writes``, a serial queue.
    nonisolated(unsafe) static var ours: [String: Written] = [:]
    /// What this process had written to a draft file that another process took over and
    /// removed, kept when this process writes that file again (``handedOver(_:over:)``). Safe
    /// as ``ours`` is: only on ``writes``.
    nonisolated(unsafe) static var taken: [String: Written] = [:]

    /// A draft file as this process last wrote or opened it: the file's stamp then, and the
    /// text and base rev it held.
    struct Written {
        var stamp: FileStamp
        var body: String
        var baseRev: String?
        /// For a draft whose text is its live journal's: what its file says of the note
        /// (``Draft/onlyNote``), to tell when it needs writing again.
        var note: Draft? = nil
        /// For such a draft made without its text: how long its journal was then
        /// (``Draft/journalLength``), the text read back from it when handed over.
        var journalLength: Int? = nil

        /// The text written, read back from the journal's first ``journalLength`` bytes when it
        /// was not made (nil: the journal is gone).
        var text: String? {
            guard let journal = note?.liveJournal, let journalLength else { return body }
            return LiveNote.text(ofJournal: URL(fileURLWithPath: journal), upTo: journalLength)
        }
    }

    /// Which process of the machine this store writes for, in ``ours`` and ``taken``: empty for
    /// byteclub's own (one process, one name). The simulation runs a member's app and shell in
    /// one process, and names each so that one never takes the other's draft for its own, as
    /// two processes never do (issue 70).
    public let process: String

    public init(directory: URL, process: String = "") {
        self.directory = directory
        self.process = process
    }

    func url(_ id: String) -> URL { directory.appendingPathComponent(id + ".json") }

    /// A draft file's key in ``ours`` and ``taken``: this process's record of it.
    func mine(_ file: URL) -> String { process.isEmpty ? file.path : process + "\u{0}" + file.path }

    /// Waits for every draft write asked for so far, in this process (the simulation settles an
    /// app before its next step).
    public static func waitForWrites() { writes.sync {} }

    /// Writes `draft` atomically and durably, after any background write asked for before.
    public func save(_ draft: Draft) throws {
        try Self.writes.sync { try crossProcess { try write(draft) } }
    }

    /// Writes `draft` unless its file holds text this process neither wrote nor opened
    /// (``adopt(_:)``): another process wrote it since (`byteclub edit` keeping its text after a
    /// conflict, another app). That text is never written over: the caller keeps its own under
    /// another id. A file that is not there is anyone's.
    /// - Returns: false when the draft was not written for that reason.
    public func saveIfOurs(_ draft: Draft) throws -> Bool {
        try Self.writes.sync { () throws -> Bool in
            try crossProcess { () throws -> Bool in
                guard isOurs(url(draft.id)) else { return false }
                try write(draft)
                return true
            }
        }
    }

    /// ``saveIfOurs(_:)`` off the calling queue, the draft and its JSON made on a thread that
    /// gives way to the UI (a 1 MiB note's take ~30 ms of CPU); when the file holds another
    /// process's text, the draft is written at once under the id `apart` gives instead (never
    /// left unwritten). A draft whose text is its journal's (made without it, `text` giving it
    /// when it must be written after all: a journal that cannot be flushed), and whose file says
    /// the same of the note already, is not written again: its journal is flushed. `done` gets the id.
    public func saveInBackgroundIfOurs(_ make: @escaping @Sendable () -> Draft, text: @escaping @Sendable () -> String,
                                       apart: @escaping @Sendable () -> String,
                                       then done: @escaping @Sendable (Result<String, any Error>) -> Void) {
        Self.writes.async {
            var draft = Self.texts.sync { make() }
            let written = Result { () throws -> String in
                try crossProcess { () throws -> String in
                    if !isOurs(url(draft.id)) { draft.id = apart() }
                    if wroteAlready(draft) { return draft.id }
                    if let journal = draft.liveJournal, !DurableFile.flushData(atPath: journal) {
                        draft.liveJournal = nil
                        draft.journalLength = nil
                        draft.body = Self.texts.sync { text() }
                    }
                    let made = draft
                    try write(made, encoded: Self.texts.sync { try? encode(made) })
                    return draft.id
                }
            }
            done(written)
        }
    }

    /// Takes the draft file as this process's own when it holds `draft` (the text an editor
    /// opened): its later writes go over it. False when the file holds other text now.
    @discardableResult
    public func adopt(_ draft: Draft) -> Bool {
        Self.writes.sync { () -> Bool in
            let file = url(draft.id)
            guard let before = FileStamp(file), load(draft.id) == draft, FileStamp(file) == before else { return false }
            // The journal its file names goes once this process's next write names another.
            let named = self.file(draft.id).flatMap { $0.liveJournal == nil ? nil : $0.onlyNote }
            Self.ours[mine(file)] = Written(stamp: before, body: draft.body, baseRev: draft.baseRev, note: named)
            // An editor opening this draft starts from its text: what an earlier editor of the
            // note handed over is not this one's (``forgetHandOver(_:)``).
            Self.taken[mine(file)] = nil
            return true
        }
    }

    /// Removes a draft unless its file holds text this process neither wrote nor opened (as
    /// ``saveIfOurs(_:)`` tells): a save or a discard in one process never takes away the text
    /// another process kept there since.
    /// - Returns: false when the file is kept for that reason.
    @discardableResult
    public func removeIfOurs(_ id: String) -> Bool {
        Self.writes.sync { () -> Bool in
            crossProcess { () -> Bool in
                let file = url(id)
                guard isOurs(file) else { return false }
                let named = self.file(id)?.liveJournal
                _ = try? FileManager.default.removeItem(at: file)
                if let named { dropLocalJournal(named) }
                Self.ours[mine(file)] = nil
                Self.taken[mine(file)] = nil
                return true
            }
        }
    }

    private func isOurs(_ file: URL) -> Bool {
        guard let now = FileStamp(file) else { return true }
        return Self.ours[mine(file)]?.stamp == now
    }

    /// A draft file's bytes. A draft whose text is its journal's keeps none of its own
    /// (``Draft/liveJournal``).
    func encode(_ draft: Draft) throws -> Data {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
        encoder.dateEncodingStrategy = .iso8601
        var written = draft
        if written.liveJournal != nil { written.body = "" }
        return try encoder.encode(written)
    }

    /// Writes `draft` (`encoded`: its bytes, when made already). A draft that names a journal is
    /// written without its text once the journal is flushed; when it cannot be (gone, a failing
    /// disk) it is written with its text, which is read from there, as any draft's. (One made
    /// without its text, ``Draft/journalLength``, was flushed by its maker, which made its text
    /// when it could not be.)
    func write(_ draft: Draft, encoded: Data? = nil) throws {
        var draft = draft
        if let journal = draft.liveJournal, draft.journalLength == nil, !DurableFile.flushData(atPath: journal) { draft.liveJournal = nil }
        let data = try draft.liveJournal == nil ? encode(draft) : encoded ?? encode(draft)
        let file = url(draft.id)
        // Ours, but gone: another process took it and the club has its text. What it took is
        // kept for this process's next merge (``handedOver(_:over:)``).
        if let before = Self.ours[mine(file)], FileStamp(file) == nil { Self.taken[mine(file)] = before }
        let named = Self.ours[mine(file)]?.note?.liveJournal
        try DurableFile.write(data, to: file)
        Self.ours[mine(file)] = FileStamp(file).map {
            Written(stamp: $0, body: draft.body, baseRev: draft.baseRev, note: draft.liveJournal == nil ? nil : draft.onlyNote,
                    journalLength: draft.liveJournal == nil ? nil : draft.journalLength)
        }
        // The note's own journal it named before (a new editor's text journalled anew) is no one's now.
        if let named, named != draft.liveJournal { dropLocalJournal(named) }
    }

    /// Draft `id`, whole: the text of one kept in a journal (``Draft/liveJournal``) is the
    /// journal's, and when it was last written the journal's too.
    public func load(_ id: String) -> Draft? {
        guard var draft = file(id) else { return nil }
        if let journal = draft.liveJournal {
            draft.liveJournal = nil
            // A journal gone or holding nothing: the draft's file is all there is (a draft
            // written with its text when the journal could not be flushed says no journal).
            guard let text = LiveNote.text(ofJournal: URL(fileURLWithPath: journal)) else { return draft }
            draft.body = text
            if let changed = (try? FileManager.default.attributesOfItem(atPath: journal))?[.modificationDate] as? Date, changed > draft.updated {
                draft.updated = changed
            }
        }
        return draft
    }

    /// Whether this process wrote or opened draft `id` last (no other process wrote it since);
    /// true when there is none.
    func isOurs(_ id: String) -> Bool {
        Self.writes.sync { crossProcess { isOurs(url(id)) } }
    }

    /// Whether there is a readable draft `id` (its text, in a journal, not read).
    public func has(_ id: String) -> Bool { file(id) != nil }

    /// The journal draft `id`'s file names, whose text it is (``Draft/liveJournal``); nil for a
    /// draft that holds its own text.
    public func journal(of id: String) -> String? { file(id)?.liveJournal }

    /// Draft `id` as its file says, the text of one kept in a journal not read.
    func file(_ id: String) -> Draft? {
        guard let data = try? Data(contentsOf: url(id)) else { return nil }
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .iso8601
        return try? decoder.decode(Draft.self, from: data)
    }

    /// Removes a draft; a missing one is not an error.
    public func remove(_ id: String) {
        Self.writes.sync {
            crossProcess {
                let named = file(id)?.liveJournal
                _ = try? FileManager.default.removeItem(at: url(id))
                if let named { dropLocalJournal(named) }
                Self.ours[mine(url(id))] = nil
                Self.taken[mine(url(id))] = nil
            }
        }
    }

    /// Every readable draft, newest first.
    public func all() -> [Draft] {
        guard let names = try? FileManager.default.contentsOfDirectory(atPath: directory.path) else { return [] }
        return names.filter { $0.hasSuffix(".json") && !$0.hasPrefix(".") }
            .compactMap { load(String($0.dropLast(5))) }
            .sorted { $0.updated > $1.updated }
    }

    /// Moves draft `id` into `other`'s folder, with the editor files beside it
    /// (`ID.editing.EXT`, which may hold newer text than the draft), after any write asked for
    /// before. Nothing is ever replaced: when `other` has a file of that name already (a draft
    /// of the same note, with text of its own), nothing more moves and both stay where they
    /// are. A move cut short (a crash) is finished by the next one, and loses nothing meanwhile:
    /// the editor files go first and the draft last, and each file is linked into `other`
    /// before its old name goes.
    /// - Returns: true when the draft is in `other` now, and no longer here.
    @discardableResult
    public func move(_ id: String, to other: DraftStore) -> Bool {
        Self.writes.sync { () -> Bool in
            let manager = FileManager.default
            guard manager.fileExists(atPath: url(id).path) else { return false }
            do {
                try PrivateFiles.folder(other.directory)
            } catch {
                return false
            }
            let names = (try? manager.contentsOfDirectory(atPath: directory.path)) ?? []
            for name in names.sorted() where name.hasPrefix(id + ".editing.") {
                guard Self.carry(name, from: directory, to: other.directory) else { return false }
            }
            guard Self.carry(id + ".json", from: directory, to: other.directory) else { return false }
            // Moved by this process, not taken by another: nothing here to merge from.
            Self.ours[mine(url(id))] = nil
            Self.taken[mine(url(id))] = nil
            return true
        }
    }

    /// Moves the file `name` from `folder` to `target` without replacing a file there: a hard
    /// link, then the old name removed, each folder flushed. A file already there with the same
    /// bytes (a move cut short between the two) counts as moved; one with other bytes stops it.
    private static func carry(_ name: String, from folder: URL, to target: URL) -> Bool {
        let from = folder.appendingPathComponent(name).path, to = target.appendingPathComponent(name).path
        if link(from, to) != 0 {
            let failure = errno
            if failure == EEXIST {
                guard let here = FileManager.default.contents(atPath: from), here == FileManager.default.contents(atPath: to) else { return false }
            } else {
                // A file system without hard links: a rename, once nothing is at the target.
                guard !FileManager.default.fileExists(atPath: to), rename(from, to) == 0 else { return false }
                DurableFile.syncFolder(of: to)
                DurableFile.syncFolder(of: from)
                return true
            }
        }
        DurableFile.syncFolder(of: to)
        do {
            try DurableFile.remove(from)
        } catch {
            return false
        }
        return true
    }
}

/// A file's identity at one write: every draft write is a new file renamed over the old one
/// (``DurableFile``), so its inode changes at each write; the time and size guard against an
/// inode number used again.
struct FileStamp: Equatable {
    let inode: UInt64
    let seconds: Int
    let nanoseconds: Int
    let size: Int64

    init?(_ url: URL) {
        var info = stat()
        guard stat(url.path, &info) == 0 else { return nil }
        inode = UInt64(info.st_ino)
        seconds = Int(info.st_mtim.tv_sec)
        nanoseconds = Int(info.st_mtim.tv_nsec)
        size = Int64(info.st_size)
    }
}
