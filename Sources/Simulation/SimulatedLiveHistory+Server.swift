import ClubKit
import ClubServer
import DropboxWire
import Foundation
import LiveText

/// A plain club's server in the live histories: it seeds a new room from the file, writes the
/// file from the room after a pause, and merges a line the shell adds outside the live note
/// (``LiveFileText``, the server's own, as `LiveRoom` does).
extension SimulatedLiveHistory {
    /// The shell's `edit` (or another tool) adds a line to the file, outside the live note: the
    /// members' apps leave the revision to the server (their documents do not hold it), which
    /// merges it into the document after its pause and writes the result.
    func editOutside() {
        guard serverDownFor == 0 else { return }
        wordsTyped += 1
        let word = "shell\(wordsTyped)"
        // A line of its own, at the end of a line: never inside a member's word, and never
        // glued to one typed at the same place meanwhile (members type " word").
        let units = Array(file.utf16)
        let ends = units.indices.filter { units[$0] == 0x0A } + [units.count]
        let at = ends[random.int(0...(ends.count - 1))]
        file = String(decoding: units[..<at] + Array(("\n" + word).utf16) + units[at...], as: UTF16.self)
        fileHistory.append(file)
        expected[word] = 1
        revisions += 1
        lastEdit = step
        for member in roomMembers { apps[member]?.inbox.append(.revision(text: file, by: "shell")) }
        say("the shell adds the line \(word)")
    }

    /// `byteclub restore` of an older revision, made outside the live note: the file goes back
    /// to a text with none of the words written since, the others in the same order (only
    /// fewer: a restore that brought back a deleted word, or put one elsewhere, makes it anew,
    /// and a member's delete of the old one on its way misses it, a promise of its own). Made when
    /// the room's document is the file (every word in the room written), and the server takes it
    /// in at once, as after its pause: its word merge of the file is then exact, and the
    /// members' edits on their way land on it as operations. The older text is often one the
    /// document once was (the seed, an earlier revision), the case a server fooled by its old
    /// marks never took in, writing the newer text back over the restore.
    func restoreOutside() {
        guard serverDownFor == 0, serverBase == file,
              let text = LiveFileText(frames: room.map { [UInt8]($0) }, clientID: serverClient), !text.isUnseeded, text.text == file else { return }
        let now = words(in: file)
        let older = fileHistory.dropLast().filter { $0 != file && Self.isInOrder(words(in: $0), within: now) }
        guard !older.isEmpty else { return }
        let restored = older[random.int(0...(older.count - 1))]
        let gone = Set(now).subtracting(words(in: restored))
        for word in gone { expected[word] = 0 }
        file = restored
        fileHistory.append(file)
        revisions += 1
        restores += 1
        lastEdit = step
        for member in roomMembers { apps[member]?.inbox.append(.revision(text: file, by: "shell")) }
        say("the shell restores an older revision, \(gone.count) words fewer")
        serverWrites()
    }

    /// `Ctrl-S` before the member's first join (alone in the note, or not connected yet), on a
    /// plain club: the app saves through the save path, as on any backend. The file takes the
    /// editor's text, merged three ways over the session's base when it changed meanwhile (a
    /// merge that overlaps opens the merge view: not saved here), and the editor takes the merge.
    /// The server takes the revision into the room as any change made outside the live note;
    /// the member's typing is in the file now, and its join merges it as text, never takes its
    /// own document's operations in again (a save made alone, issue 68).
    ///
    /// Alone as the app knows it: no other member in the presence it has, nor in one on its way
    /// to it. A save answered while another member's arrival is still on its way is a race this
    /// history leaves out: the server takes the revision in after its pause, and the join, made
    /// before that, merges the typing into a room without it, so a word deleted after the save
    /// comes back with the server's merge (docs/testing.md).
    func saveAlone(_ member: String) {
        guard serverDownFor == 0, canAct(member), var app = apps[member], !(app.everJoined || app.resumed), app.editor != app.base else { return }
        let others = app.presence.contains { $0 != member } || app.inbox.contains { message in
            if case .presence(let list) = message { return list.contains { $0 != member } }
            return false
        }
        guard !others else { return }
        let saved: String
        switch NoteMergeDriver.merge(base: app.base, mine: app.editor, theirs: file) {
        case .overlapping: return
        case .theirsHoldsMine(let theirs): saved = theirs
        case .merged(let merged): saved = merged
        }
        if saved != app.editor {
            // The merge comes into the editor as one edit between the common head and tail.
            let change = LiveNote.difference(from: app.editor, to: saved)
            edit(member, &app, change.removed, change.inserted)
        }
        app.savedAlone = true
        savedAloneUnjoined.insert(member)
        app.base = saved
        apps[member] = app
        drafts[member] = nil
        guard saved != file else { return say("\(member) saves alone: the file holds it already") }
        file = saved
        fileHistory.append(file)
        revisions += 1
        lastEdit = step
        for other in roomMembers where other != member { apps[other]?.inbox.append(.revision(text: file, by: member)) }
        say("\(member) saves alone (revision \(revisions))")
    }

    /// Whether `some` are among `all` in the same order.
    static func isInOrder(_ some: [String], within all: [String]) -> Bool {
        var rest = all[...]
        for word in some {
            guard let at = rest.firstIndex(of: word) else { return false }
            rest = rest[rest.index(after: at)...]
        }
        return true
    }

    /// A plain club's server writes the document its room's log makes (``LiveFileText``, as
    /// `LiveRoom` does): its mark stored and relayed first, then the file, then the log compacted.
    func serverWrites() {
        guard serverDownFor == 0, var text = LiveFileText(frames: room.map { [UInt8]($0) }, clientID: serverClient), !text.isUnseeded else { return }
        for update in text.takeIn(file, base: serverBaseFor(text)) { send(update, from: "") }
        serverBase = file
        guard text.text != file else { return }
        send(Data(text.mark()), from: "")
        file = text.text
        fileHistory.append(file)
        serverBase = file
        revisions += 1
        if let snapshot = LiveHub.snapshot(of: room.map { [UInt8]($0) }) {
            room = snapshot.map { Data($0) }
            compactions += 1
        }
        for member in roomMembers { apps[member]?.inbox.append(.revision(text: file, by: "")) }
        say("the server writes the file (revision \(revisions))")
    }

    /// The server's base for a change made outside: the text it last wrote or found held, else
    /// the revision the document's newest mark names (``LiveFileText/newestHeld(among:)``, over
    /// the revisions as `LiveNoteFiles.history` gives them).
    func serverBaseFor(_ text: LiveFileText) -> String? {
        if let serverBase { return serverBase }
        return text.holds(file) ? nil : text.newestHeld(among: fileHistory)
    }

    /// A member connects: a room with no history is seeded from the file first (LiveRoom.seed),
    /// and a file changed while no one was in the room is taken in (LiveRoom.catchUp).
    func serverAdmits() {
        if room.isEmpty, !file.isEmpty {
            room.append(Data(LiveFrame.encode(member: "", update: LiveFileText.seed(of: file))))
            serverBase = file
        } else if var text = LiveFileText(frames: room.map { [UInt8]($0) }, clientID: serverClient), !text.isUnseeded {
            // A file changed while no one was in the room is caught up before the log goes out
            // (LiveRoom.catchUp).
            for update in text.takeIn(file, base: serverBaseFor(text)) { send(update, from: "") }
            serverBase = file
        }
    }
}
