import DropboxWire
import Foundation
import LiveText

/// How a room reaches its note's file (the club server's folder; tests give their own).
package struct LiveNoteFiles: Sendable {
    /// What a write of the file came to.
    package enum Written: Sendable, Equatable {
        case written
        /// The file changed since it was read: read it again and merge.
        case changed
        /// The note is gone, or the write failed (said in the server's log).
        case failed
    }

    /// The note's text and rev now; nil when it is gone, too big for a note, or not UTF-8.
    package var read: @Sendable (_ room: String) async -> (text: String, rev: String)?
    /// Older revisions' texts, newest first: the base for a change made outside the live session.
    package var history: @Sendable (_ room: String) async -> [String]
    /// Writes `text` over revision `rev` as a new revision by the members who typed in it since
    /// the last (the first of them its saver; `fallback` when no one typed since).
    package var write: @Sendable (_ room: String, _ text: String, _ rev: String, _ fallback: String) async -> Written

    package init(read: @escaping @Sendable (String) async -> (text: String, rev: String)?,
                 history: @escaping @Sendable (String) async -> [String],
                 write: @escaping @Sendable (String, String, String, String) async -> Written) {
        self.read = read
        self.history = history
        self.write = write
    }
}

/// The server's writing of one room's note: its pause and what it last wrote.
struct LiveRoomFileWriter {
    /// When the pause ends: each update of a burst moves it on.
    var due: ContinuousClock.Instant?
    /// Whether a task waits for ``due`` (one a room, however many keys come).
    var waiting = false
    var writing = false
    /// A pause ended while a write ran: write again after it.
    var again = false
    /// The text the file and the document last both held (the base of a change made outside).
    var base: String?
    /// The client id the server's own edits are made under (a change made outside taken in).
    let clientID = LiveDocument.randomClientID()
    /// Revisions of the note the room was told of while members were in it (``LiveRoom/fileCommitted()``).
    var commitsSeen = 0
}

/// Where a room's writing of its note stands (for tests: a test waits for it to settle, where
/// it would otherwise wait out a few pauses and assert that nothing happened meanwhile).
package struct LiveRoomWriting: Sendable, Equatable {
    /// Whether the server writes this room's note (false: its members do).
    package let serverWrites: Bool
    /// Revisions of the note the room was told of while members were in it.
    package let commitsSeen: Int
    /// Nothing is due and nothing is being written: every update and revision the room was
    /// told of has been looked at after its pause (each one schedules a look before it returns).
    package let settled: Bool
}

/// A plain club's note written from its room (issue 68, "one note, one history"): once the note
/// has been quiet for ``LiveLimits/writePause`` after an update, the server writes the document's
/// text as the file's new revision, one per burst, naming everyone who typed in it. A file
/// changed outside the live session meanwhile is merged into the document first, as the server's
/// edit every member receives (``LiveFileText``). Before the file is written its
/// ``RevisionMark`` is stored and relayed, so a member who sees the revision knows it came from
/// the document. An encrypted club's members write the file themselves (the server cannot read it).
extension LiveRoom {
    /// Starts (or starts again) the pause after which the file is written.
    func scheduleWrite() {
        guard fileWriter != nil else { return }
        fileWriter?.due = .now + limits.writePause
        guard fileWriter?.waiting == false else { return }
        fileWriter?.waiting = true
        Task { await self.waitForThePause() }
    }

    /// Waits until the pause ends with no update since (each moved it on), then writes.
    private func waitForThePause() async {
        while let due = fileWriter?.due, ContinuousClock.now < due {
            try? await Task.sleep(until: due)
        }
        fileWriter?.waiting = false
        fileWriter?.due = nil
        await writeAfterThePause()
    }

    /// The note's file got a revision (the server's own, a member's save, or one made outside the
    /// live note): looked at after the pause, and a change the document lacks is merged in.
    func fileCommitted() {
        guard fileWriter != nil, !peers.isEmpty else { return }
        fileWriter?.commitsSeen += 1
        scheduleWrite()
    }

    /// Where its writing of the note stands. A pause's end and the write after it run on this
    /// actor with no suspension between them, so `settled` is never seen between the two.
    var writing: LiveRoomWriting {
        guard let writer = fileWriter else { return LiveRoomWriting(serverWrites: false, commitsSeen: 0, settled: true) }
        return LiveRoomWriting(serverWrites: true, commitsSeen: writer.commitsSeen, settled: !writer.waiting && !writer.writing)
    }

    /// The server does not write this room's note, from now on: its members do. A joiner's
    /// welcome says so; members in the room, told otherwise when they joined, are closed with
    /// 1001 and hear it when they connect again.
    private func leaveToMembers(why: String) {
        guard fileWriter != nil else { return }
        logger.info("live: \(name)'s members write its note: \(why)")
        fileWriter = nil
        leftToMembers = true
        writers.watch(name, false)
        for (_, peer) in peers { peer.send.yield(.goingAway) }
    }

    /// The document the room's `frames` make, with the note's file taken in (``LiveFileText/takeIn(_:base:)``):
    /// the document, the file as read, and the updates (and mark) that took it in, to store. The
    /// base is the one the room keeps, or after a restart the newest revision the document
    /// holds; the caller moves it on to the file once the updates are stored. Nil when there is nothing to write from: a log the server
    /// cannot read whole (an update waits for one that was refused as too big; the note is then
    /// left to its members), an unseeded room, or a file gone.
    private func documentTakingInFile(_ frames: [[UInt8]]) async -> (text: LiveFileText, file: (text: String, rev: String), updates: [Data])? {
        guard let files, let clientID = fileWriter?.clientID else { return nil }
        guard var text = LiveFileText(frames: frames, clientID: clientID) else {
            leaveToMembers(why: "its log is not one the server can read whole")
            return nil
        }
        guard !text.isUnseeded, let file = await files.read(name) else { return nil }
        var base = fileWriter?.base
        if base == nil, !text.holds(file.text) {
            base = text.newestHeld(among: await files.history(name))
        }
        let updates = text.takeIn(file.text, base: base)
        return (text, file, updates)
    }

    /// The first record of a note's log when the server writes the note: its file's text, as
    /// the members would seed it (``LiveFileText/seedClientID(for:)``), so one who seeds it too
    /// adds nothing. Nil when the members write the note, or its file is empty or unreadable.
    ///
    /// A note too big to send as one frame (``LiveLimits/maxFrameBytes``) is not seeded, and its
    /// members write it, as before the server did: unseeded, the room could never be written
    /// from, and a member's own seed of it is refused as too big.
    func seed() async -> [UInt8]? {
        guard fileWriter != nil, let files, let file = await files.read(name), !file.text.isEmpty else { return nil }
        guard file.text.utf8.count + 64 <= limits.maxFrameBytes else {
            leaveToMembers(why: "it is too big to send as one frame")
            return nil
        }
        fileWriter?.base = file.text
        return LiveFrame.encode(member: "", update: LiveFileText.seed(of: file.text))
    }

    /// Before a joiner gets the log: a file changed outside the live note while no one was in it
    /// (nothing then merges it) is taken into the document, and the frames that do it returned,
    /// to store and send before the log. Without it the joiner's editor showed the room's older
    /// text, and a save from it wrote over the change. A document the file lacks (the server
    /// stopped within a pause) is written after a pause.
    func catchUp(_ frames: [[UInt8]]) async -> [[UInt8]] {
        guard let (text, file, updates) = await documentTakingInFile(frames) else { return [] }
        // The document holds the file's changes now: the base of the next change made outside.
        fileWriter?.base = file.text
        if text.text != file.text { scheduleWrite() }
        return updates.map { LiveFrame.encode(member: "", update: $0) }
    }

    private func writeAfterThePause() async {
        guard let writer = fileWriter else { return }
        guard !writer.writing else {
            fileWriter?.again = true
            return
        }
        fileWriter?.writing = true
        let retry = await writeFile()
        fileWriter?.writing = false
        if fileWriter?.again == true || retry {
            fileWriter?.again = false
            scheduleWrite()
        }
        // The pump closes the log when no one is in the room.
        kick()
    }

    /// Writes the document's text to the file if it differs; true to try again after a pause
    /// (the file changed while it was written).
    private func writeFile() async -> Bool {
        guard let files, fileWriter != nil else { return false }
        let frames: [[UInt8]]
        do {
            (frames, _) = try await disk.run { try $0.readAll() }
        } catch {
            logger.error("live: cannot read the log of \(name) to write its note: \(error)")
            return false
        }
        guard let taken = await documentTakingInFile(frames) else { return false }
        var text = taken.text
        let file = taken.file
        if !taken.updates.isEmpty {
            logger.info("live: \(name)'s file was changed outside the live note; merged into it")
            guard await storeOwn(taken.updates.map { [UInt8]($0) }) else { return false }
        }
        // The document holds the file's changes now: the base of the next change made outside.
        fileWriter?.base = file.text
        guard text.text != file.text else { return false }
        guard await storeOwn([text.mark()]) else { return false }
        switch await files.write(name, text.text, file.rev, members.first ?? "") {
        case .written:
            fileWriter?.base = text.text
            return false
        case .changed:
            return true
        case .failed:
            return false
        }
    }
}
