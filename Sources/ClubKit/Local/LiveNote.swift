import ClubServer
import Durable
import Foundation
import LiveText
import NoteMerge

/// One note being written together on a club server's live channel: the shared document (a
/// LiveText/Yjs text), what the server is known to hold, and the journal that keeps every
/// update on this machine. No UI and no network: the app's shell feeds it the editor's text and
/// the socket's events, and sends what it returns (docs/live.md, "The app").
///
/// - **Local edits** (``edit(to:)``) become updates, kept in the journal at once and sent when
///   connected; offline they only wait there.
/// - **A join** (``joined(editorText:openedText:)``): once the server has sent its stored log,
///   the note sends everything the server lacks (``serverHolds`` is what its log had), so edits
///   made offline, or before a kill -9, reach the others. A note with no live history yet is
///   seeded from the file's text under a client id that the text alone decides, so two members
///   who seed the same text at once make one text, not two.
/// - **The journal** (`<folder>/<room>`): 4-byte big-endian lengths and updates, every update
///   this member made or received; replayed at the next open.
public struct LiveNote: Sendable {
    public let noteID: String
    public private(set) var document: LiveDocument
    /// What the server's log holds, from what it sent since the last connect.
    public private(set) var serverHolds = StateVector()
    /// Whether the server's stored log is in since the last connect.
    public private(set) var isJoined = false
    /// The journal's file (nil for a note id that makes no safe file name, or with no folder).
    public let journal: URL?
    /// Whether this note has joined once (the editor's text merged in then).
    private var joinedBefore = false
    /// Received updates not journalled yet (the log before a join), framed.
    private var unwritten = Data()
    /// The file's text the shared document last took in (at a join, or a revision a member in the
    /// note saved), kept beside the journal: a file that differs from it at the next join was
    /// changed outside the live session, and that change is merged in.
    public private(set) var fileBase: String?
    /// The newest ``RevisionMark``s the room's log (and the journal) held, at most
    /// ``RevisionMark/kept``: revisions written from the document. A file whose text one names is
    /// not merged in at a join (the document holds it), even when newer ones came meanwhile.
    public private(set) var marks: [RevisionMark] = []
    /// The mark of the text a save in flight took (``writing(_:)``).
    private var taking: RevisionMark?
    /// For a note's own document (``local(in:seededWith:over:from:clientID:)``): what its first update
    /// (the start its edits build on) made, and the digest of the text it was. Nil for a live
    /// note's journal, or an own one that holds nothing.
    public private(set) var start: (state: StateVector, digest: [UInt8])?
    /// The prefix of a note's own document's id (and its journal's name).
    static let ownPrefix = "local-"

    /// Opens the note's document, with what its journal kept. `clientID`: this process's edits'
    /// (a random one; the generated histories draw theirs from the seed, so that two members'
    /// inserts at one place come in the same order every run).
    public init(noteID: String, folder: URL?, clientID: UInt64 = LiveDocument.randomClientID()) {
        self.noteID = noteID
        document = LiveDocument(clientID: clientID)
        let room = noteID.hasPrefix("id:") ? String(noteID.dropFirst(3)) : noteID
        let safe = room.unicodeScalars.allSatisfy { $0.isASCII && (CharacterSet.alphanumerics.contains($0) || $0 == "-" || $0 == "_") }
        journal = safe && !room.isEmpty ? folder?.appendingPathComponent(room) : nil
        if let journal, let data = try? Data(contentsOf: journal) {
            // A record that is not an update (a torn write, a disk's damage) is passed over.
            for record in Self.records(of: data) {
                if let mark = RevisionMark(decoding: record) {
                    keep(mark)
                } else {
                    try? document.apply(update: record)
                    if start == nil, noteID.hasPrefix(Self.ownPrefix), let state = try? LiveDocument.clockEnds(of: record) {
                        start = (state, Self.digest(of: document.text))
                    }
                }
            }
        }
        if let journal, let data = try? Data(contentsOf: journal.appendingPathExtension("base")) {
            fileBase = String(decoding: data, as: UTF8.self)
        }
    }

    /// A note's own document, shared with no one: its journal (under `folder`, a name of its
    /// own) is the draft of a note edited alone or on a backend with no live channel
    /// (``DraftStore/localJournals``). It starts from `base`, the text the note was opened over:
    /// from `room`, the live room's whole document, when that is its text (the note's room on a
    /// club server, its log in while the member is alone in it), else from the seed every member
    /// makes of that text (``LiveFileText/seed(of:)``). Then `text` (the editor's, when it has
    /// moved on: one edit, made once), and each edit as the editor made it
    /// (``edit(replacing:with:continuing:)``), so a key is an append, never the whole text
    /// written again. When the note goes live, its edits go into the room as the operations they
    /// were (``joined(editorText:openedText:mergesFile:local:)``).
    /// `clientID` as for ``init(noteID:folder:clientID:)``.
    public static func local(in folder: URL, seededWith text: String, over base: String? = nil, from room: Data? = nil,
                             clientID: UInt64 = LiveDocument.randomClientID()) -> LiveNote {
        var note = LiveNote(noteID: ownPrefix + UUID().uuidString.lowercased(), folder: folder, clientID: clientID)
        let base = base ?? text
        for first in [room, base.isEmpty ? nil : LiveFileText.seed(of: base)].compactMap({ $0 }) {
            var document = LiveDocument(clientID: clientID)
            guard (try? document.apply(update: first)) != nil, !document.hasPendingUpdates, document.text == base else { continue }
            note.document = document
            note.record(first)
            break
        }
        // The file is there from the start, empty too: the editor knows its journal is.
        if note.document.state.clocks.isEmpty { note.append(Data()) }
        note.start = (note.document.state, Self.digest(of: note.document.text))
        if text != base { _ = note.edit(to: text) }
        return note
    }

    /// Whether this is a note's own document that started from `text` (``local(in:seededWith:over:from:clientID:)``).
    public func isStarted(over text: String) -> Bool {
        start?.digest == Self.digest(of: text)
    }

    /// The file's text is now `text`, and the shared document holds it (a revision written from it).
    public mutating func fileTaken(_ text: String) {
        fileBase = text
        guard let journal else { return }
        // Whole or old, private (0600), unflushed: the journal beside it is what a crash keeps.
        try? DurableFile.write(Data(text.utf8), to: journal.appendingPathExtension("base"), flush: false)
    }

    public var text: String { document.text }

    /// A save of `text` begins: when that is the document's text, its mark is made now, since
    /// the others' keys may move the document on before the save's answer (``written(_:)``).
    public mutating func writing(_ text: String) {
        taking = text == document.text ? RevisionMark(digest: Self.digest(of: text), state: document.state) : nil
    }

    /// This member's save of `text` is in the file: it is the new ``fileBase``, and when the text
    /// was the document's (at ``writing(_:)``, or now) the mark returned (to send to the room,
    /// and kept in the journal) tells a member who comes back that the revision came from the
    /// document. No mark claims a text the document never was.
    public mutating func written(_ text: String) -> Data? {
        fileTaken(text)
        let digest = Self.digest(of: text)
        let made = taking?.digest == digest ? taking : text == document.text ? RevisionMark(digest: digest, state: document.state) : nil
        taking = nil
        guard let mark = made else { return nil }
        keep(mark)
        let bytes = Data(mark.encoded())
        record(bytes)
        return bytes
    }

    static func digest(of text: String) -> [UInt8] { LiveFileText.digest(of: text) }

    private mutating func keep(_ mark: RevisionMark) {
        marks.removeAll { $0.digest == mark.digest }
        marks.append(mark)
        if marks.count > RevisionMark.kept { marks.removeFirst(marks.count - RevisionMark.kept) }
    }

    /// Whether the file's `text` was written from this document (a mark names it and the document
    /// holds all the mark's state).
    public func holdsRevision(_ text: String) -> Bool {
        guard !marks.isEmpty else { return false }
        let digest = Self.digest(of: text)
        return marks.contains { $0.digest == digest && document.state.covers($0.state) }
    }

    /// The text the journal at `url` holds (its updates applied in order, as ``init(noteID:folder:)``
    /// replays them), or nil when it holds none (gone, empty, or nothing readable); with `length`,
    /// what its first `length` bytes held.
    public static func text(ofJournal url: URL, upTo length: Int? = nil) -> String? {
        guard var data = try? Data(contentsOf: url) else { return nil }
        if let length, length < data.count { data = data.prefix(length) }
        var document = LiveDocument(clientID: 1)
        for record in records(of: data) where RevisionMark(decoding: record) == nil {
            try? document.apply(update: record)
        }
        return document.state.clocks.isEmpty ? nil : document.text
    }

    /// A journal's records (``LiveRecords``): a record cut short ends the list.
    public static func records(of data: Data) -> [Data] {
        LiveRecords.split([UInt8](data)).records.map { Data($0) }
    }

    /// Whether the journal holds anything (a note written live here before).
    public var hasHistory: Bool { !document.state.clocks.isEmpty }

    /// Takes up the note where its journal left it, before any join: the editor shows
    /// ``text``, and edits made before the join go into the document (and its journal) as they
    /// are typed, since the document already builds on the room's history. For a draft written
    /// while live (``Draft/inLiveJournal``): its text is in the journal, so the first join merges
    /// nothing of the editor's again. False (nothing done) when the journal holds nothing.
    public mutating func resume() -> Bool {
        guard hasHistory else { return false }
        joinedBefore = true
        return true
    }

    /// The editor's text is now `newText`: the difference with the document becomes this
    /// member's edits. Returns the updates to send (none when nothing changed).
    ///
    /// `cursor` (a UTF-16 offset in `newText`), when given, places an ambiguous edit: "a" typed
    /// after "r" before another member's "ann" is an insert after "r", not after "ra" (the
    /// texts read the same, but the others would put the "a" elsewhere).
    ///
    /// `continuing`: the edit continues the editor's last undo step (a typed run, a run of
    /// Backspaces), so one undo takes them back together, as in the editor elsewhere.
    public mutating func edit(to newText: String, cursor: Int? = nil, continuing: Bool = false) -> [Data] {
        let change = Self.difference(from: document.text, to: newText, cursor: cursor)
        return edit(replacing: change.removed, with: change.inserted, continuing: continuing)
    }

    /// This member's edit as the editor made it: UTF-16 `range` of ``text`` replaced by
    /// `replacement` (the editor's own record of the key, so the document never diffs the whole
    /// text). Returns the updates to send. `continuing` as for ``edit(to:cursor:continuing:)``.
    public mutating func edit(replacing range: Range<Int>, with replacement: String, continuing: Bool = false) -> [Data] {
        var updates: [Data] = []
        if !range.isEmpty { updates.append(document.delete(range)) }
        if !replacement.isEmpty { updates.append(document.insert(replacement, at: range.lowerBound)) }
        if continuing { document.joinLastUndoSteps(updates.count) }
        for update in updates { record(update) }
        return updates
    }

    /// What turns `old` into `new` as one replacement (``LiveTextDifference``).
    public static func difference(from old: String, to new: String, cursor: Int? = nil) -> (removed: Range<Int>, inserted: String) {
        LiveTextDifference.between(old, new, cursor: cursor)
    }

    /// Another member's update (or the stored log's): what it changed in the text, in order.
    ///
    /// Before a join (the server's stored log, as it arrives) the updates are journalled in one
    /// write at the join: the server holds them, so a crash meanwhile loses none. Before the
    /// first join nothing is reported (no editor shows the document yet); before a join again
    /// (a reconnection), or once the note was taken up from its journal, the editor shows the
    /// document, so what each changed is reported: unreported, a key typed while the log came in
    /// was placed by offsets of a text that lacked it (the live histories found words glued
    /// together; the whole-text compare before it deleted the others' words).
    public mutating func receive(_ update: Data) throws(LiveTextError) -> [LiveTextChange] {
        if let mark = RevisionMark(decoding: update) {
            keep(mark)
            if isJoined { record(update) } else { Self.frame(update, into: &unwritten) }
            return []
        }
        let ends = try LiveDocument.clockEnds(of: update)
        guard isJoined else {
            var changes: [LiveTextChange] = []
            if joinedBefore { changes = try document.applyReportingChanges(update) } else { try document.apply(update: update) }
            serverHolds.formUnion(ends)
            Self.frame(update, into: &unwritten)
            return changes
        }
        let changes = try document.applyReportingChanges(update)
        serverHolds.formUnion(ends)
        record(update)
        return changes
    }

    /// The connection ended: the next one begins with the server's log again.
    public mutating func disconnected() {
        isJoined = false
        serverHolds = StateVector()
    }

    /// What joining gives: the update to send the server (nil: it has everything), and the text
    /// the editor should show.
    public struct Join: Sendable {
        public var send: Data?
        public var text: String
        /// What was typed before the join went in as a merge of texts (word by word), not as the
        /// operations it was: the note's own document did not build on what the room holds.
        public var mergedTyping = false
    }

    /// The server's stored log is in (its first presence after a connect).
    ///
    /// `openedText` is the text the editor opened with (the file's, or a draft's) and
    /// `editorText` what it holds now. A note with no live history is seeded with `openedText`;
    /// a file changed outside the live session since ``fileBase``, and what the user typed before
    /// this first join, are merged in as their edits (nothing is lost: where either clashes with
    /// the shared text, both are kept). A file one of the room's ``RevisionMark``s names was written
    /// from the document (by a member in the note while this one was away): it is not merged in
    /// (the live histories found words doubled, and deleted ones back, when it was).
    ///
    /// `mergesFile`: false when the server writes the note (a plain club's): it merges a change
    /// made outside the live session into the document itself, once; merged here too, it was there twice.
    ///
    /// `local`: the note's own document (``local(in:seededWith:over:from:clientID:)``), holding the
    /// editor's text, when none of its edits reached the club another way (no save since the note
    /// was opened). When it started from `openedText` and the room's document holds that start,
    /// what was typed before the join goes in as the operations it was, not as a merge of texts:
    /// two members who each typed alone before one join keep each word once, where the
    /// replacements two text merges made crossed and put the text between their edits in twice.
    /// Otherwise it is merged word by word (``Join/mergedTyping``).
    public mutating func joined(editorText: String, openedText: String, mergesFile: Bool = true, local: LiveNote? = nil) -> Join {
        isJoined = true
        if !unwritten.isEmpty {
            append(unwritten)
            unwritten = Data()
        }
        if document.state.clocks.isEmpty, !openedText.isEmpty {
            let update = LiveFileText.seed(of: openedText)
            try? document.apply(update: update)
            record(update)
        }
        // The file changed outside the live session since the document last took it in: that
        // change, and what was typed before this join, go into the shared text (both kept where
        // they clash with it).
        // Only at the first join: after it, every edit went into the document as it was typed
        // (offline too), so a join again has nothing of the editor's to merge.
        var mergedTyping = false
        if !joinedBefore {
            joinedBefore = true
            var typed = editorText != openedText
            if PlantedBug.typingMergedAsText.isPlanted {
                // The join as it was: the texts merged line by line, laid on as one replacement.
                let shared = document.text
                var text = shared
                if mergesFile, let fileBase, fileBase != openedText, !holdsRevision(openedText) {
                    text = NoteMergeDriver.keepingBoth(base: fileBase, mine: text, theirs: openedText)
                }
                if typed { text = NoteMergeDriver.keepingBoth(base: openedText, mine: text, theirs: editorText) }
                if text != shared { _ = edit(to: text) }
                mergedTyping = typed
                typed = false
            }
            if typed, let local, let start = local.start, local.isStarted(over: openedText),
               document.state.covers(start.state), !document.hasPendingUpdates, local.text == editorText {
                // Built only on what the document holds: every operation applies at once.
                let edits = local.document.encodeStateAsUpdate(since: start.state)
                if (try? document.apply(update: edits)) != nil {
                    record(edits)
                    // What was typed alone stays this member's to undo (Ctrl-Z after the join).
                    document.takeUndoSteps(of: local.document)
                    typed = false
                }
            }
            // Else merged word by word, each change an edit of its own where it was made (as the
            // server merges a change made outside, ``TextMerge``): one replacement of the whole
            // span each, two members' merges crossed and put the text between them in twice.
            if mergesFile, !PlantedBug.typingMergedAsText.isPlanted, let fileBase, fileBase != openedText, !holdsRevision(openedText) {
                lay(TextMerge.edits(base: fileBase, mine: document.text, theirs: openedText))
            }
            if typed {
                lay(TextMerge.edits(base: openedText, mine: document.text, theirs: editorText))
                mergedTyping = true
            }
            fileTaken(openedText)
        }
        let missing = document.encodeStateAsUpdate(since: serverHolds)
        // An update with no structs and no deletes is 2 bytes (two zero counts).
        let send = missing.count > 2 ? missing : nil
        if let send { serverHolds.formUnion((try? LiveDocument.clockEnds(of: send)) ?? StateVector()) }
        return Join(send: send, text: document.text, mergedTyping: mergedTyping)
    }

    /// `edits` (last first, as ``TextMerge/edits(base:mine:theirs:)`` gives them) made as this
    /// member's, one undo step.
    private mutating func lay(_ edits: [TextMerge.Edit]) {
        for (index, edit) in edits.enumerated() {
            _ = self.edit(replacing: edit.range, with: edit.text, continuing: index > 0)
        }
    }

    /// This member's last edit undone (or the last undone one done again): the update to send
    /// and what it changed in the text. Another member's edits are never undone.
    public mutating func undo(redo: Bool) -> UndoneEdit? {
        guard let step = redo ? document.redo() : document.undo() else { return nil }
        record(step.update)
        return step
    }

    /// `update` framed as a journal record (``LiveRecords``).
    static func frame(_ update: Data, into bytes: inout Data) {
        bytes.append(contentsOf: LiveRecords.framed(update))
    }

    /// Appends an update to the journal (written at once: a kill -9 loses nothing written).
    private func record(_ update: Data) {
        var bytes = Data()
        Self.frame(update, into: &bytes)
        append(bytes)
    }

    /// Appends framed records to the journal.
    private func append(_ bytes: Data) {
        guard let journal else { return }
        let manager = FileManager.default
        if !manager.fileExists(atPath: journal.path) {
            // The note's text, an encrypted club's decrypted: private (``PrivateFiles``).
            try? PrivateFiles.folder(journal.deletingLastPathComponent())
            try? PrivateFiles.file(journal.path)
        }
        guard let handle = try? FileHandle(forWritingTo: journal) else { return }
        defer { try? handle.close() }
        _ = try? handle.seekToEnd()
        try? handle.write(contentsOf: bytes)
    }
}
