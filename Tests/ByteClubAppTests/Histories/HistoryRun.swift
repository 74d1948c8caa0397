@testable import ByteClubApp
import ClubCrypt
import ClubKit
import Foundation
import Remote
import TerminalUI
import TestSupport
import XCTest

/// What a user was told about a line they wrote: the promise the checker holds the clubs to.
enum HistoryTold: String, Sendable {
    /// "Saved", "Merged", exit 0: the line is on the server.
    case saved
    /// "Saved … in the outbox", exit 75: on the server once it is sent, or kept as a draft if
    /// the send could not go through as it was (and said so).
    case queued
    /// The save was refused or met a change it could not merge, and said the text is kept as a
    /// draft: the line is in a draft of that club on that machine.
    case kept
    /// Typed and left unsaved: the draft journal keeps it.
    case typed
}

/// One line a member wrote, and what they were told of it.
struct HistoryLine: Sendable {
    let text: String
    let note: Int
    let club: Int
    let member: HistoryMember
    let step: Int
    var told: HistoryTold
}

/// Where the history believes a note is, as the user was last told.
struct HistoryNote: Sendable {
    let club: Int
    var path: String
    var deleted = false
    /// Tags the user was told the note has (`tag` exited 0).
    var tags: Set<String> = []
}

/// Runs a history's steps against the world and records what each member was told.
@MainActor
final class HistoryRun {
    let seed: UInt64
    let backend: HistoryBackend
    let clubs: [HistoryClub]
    let machines: [HistoryMember: HistoryMachine]
    var plan: HistoryPlan
    var view = HistoryView()
    var notes: [Int: HistoryNote] = [:]
    var lines: [HistoryLine] = []
    var log: [String] = []
    /// Promises broken while the history ran (what an app showed), for the checker.
    var violations: [String] = []
    /// Each club's `Backend.key` as its command line names it.
    var keys: [String] = []
    let editor: URL
    var step = 0
    /// Names this run's keyrings kept in this process (their local copies).
    let runID = UUID().uuidString.prefix(8)
    /// Apps started so far: each is a process of its own (``DraftStore/process``), as an app
    /// started again after a kill -9 is, so what one knew of its drafts dies with it.
    var appsStarted = 0

    init(seed: UInt64, backend: HistoryBackend) async throws {
        self.seed = seed
        self.backend = backend
        plan = HistoryPlan(seed: seed)
        clubs = [try await HistoryClub(index: 0, backend: backend), try await HistoryClub(index: 1, backend: backend)]
        machines = [.ann: try HistoryMachine(member: .ann), .bob: try HistoryMachine(member: .bob)]
        // `$EDITOR` for `byteclub edit`: adds the line in HISTORY_LINE at the end of the file.
        editor = machines[.ann]!.world.base.appendingPathComponent("add-line")
        try Data("#!/bin/sh\nprintf '%s\\n' \"$HISTORY_LINE\" >> \"$1\"\n".utf8).write(to: editor)
        try FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: editor.path)
        for club in clubs {
            let backend = try await Backend.connect(club.choice(for: .ann), connection: ConnectionOptions(idleTimeout: 10))
            keys.append(backend.key)
            await backend.close()
        }
        view.canRemove = backend == .encrypted
        if backend == .encrypted { try encrypt() }
    }

    func close() async {
        for machine in machines.values {
            machine.app?.app.requestQuit()
            machine.app = nil
            machine.world.close()
        }
        for club in clubs { await club.close() }
        refusing?.hold.release()
    }

    // MARK: Setting up an encrypted club

    /// Ann makes both clubs encrypted; bob asks to join the first and ann admits him.
    private func encrypt() throws {
        let ann = machines[.ann]!, bob = machines[.bob]!
        for club in clubs {
            let made = try ann.cli(["init", "--encrypted"], club: club)
            guard made.status == 0 else { throw HistoryError("init --encrypted: \(made.stderr)") }
        }
        _ = try bob.cli(["ls"], club: clubs[0])
        let admitted = try ann.cli(["members", "admit", "bob"], club: clubs[0])
        guard admitted.status == 0 else { throw HistoryError("members admit bob: \(admitted.stderr)") }
    }

    /// The store an app of `member` uses on `club`: the command line's own (ClubKit's
    /// `Backend.connect`), behind the club's keys when it is encrypted.
    func store(for member: HistoryMember, on club: HistoryClub) async throws -> (any RemoteStore, String) {
        var retry = RetryPolicy()
        retry.retriesUnreachable = false
        let backend = try await Backend.connect(club.choice(for: member), connection: ConnectionOptions(idleTimeout: 10), retry: retry,
                                                offlineStart: true)
        guard self.backend == .encrypted else { return (backend.store, backend.key) }
        let identityFile = machines[member]!.world.base.appendingPathComponent("config/byteclub/identity.txt")
        let identity = try String(contentsOf: identityFile, encoding: .utf8).split(separator: "\n").first { $0.hasPrefix("AGE-SECRET-KEY-1") }
        let me = MemberKeys(identity: try X25519Identity(String(identity ?? "")))
        // The keyring's local copies are this process's (its XDG_STATE_HOME): a key of their own per member.
        let localKey = "history-\(runID)-\(member.rawValue)-\(club.index)"
        let keyring = try await ClubKeyring.load(backend.store, folder: "/byteclub", key: localKey, me: me)
        return (EncryptedStore(inner: backend.store, keyring: keyring, folder: "/byteclub", key: localKey), backend.key)
    }

    // MARK: The app

    /// A port on 127.0.0.1 that refuses every connection, held for this run.
    private var refusing: (port: Int, hold: PortHold)?

    /// A store whose every request is refused, as when the club's server is down.
    private func refusingStore() throws -> any RemoteStore {
        if refusing == nil {
            let probe = try SilentListener()
            let port = probe.port
            probe.close()
            refusing = (port, try PortHold(port: port))
        }
        var retry = RetryPolicy()
        retry.retriesUnreachable = false
        return DropboxStore(displayName: "refusing", endpoints: .club(URL(string: "http://127.0.0.1:\(refusing!.port)")!),
                            tokens: StaticToken("none"), connection: ConnectionOptions(idleTimeout: 10), retry: retry)
    }

    /// Holds `member`'s app off the club (its requests refused, as if its network were down)
    /// while the club stays up for the shell; a found history uses it to make certain the shell,
    /// not the app's next probe, is the one that meets the app's queued save.
    func holdOff(_ member: HistoryMember, _ held: Bool) {
        machines[member]?.appStore?.stall(held)
    }

    /// Starts `member`'s app on club `index` with that machine's drafts, outbox and cache for it.
    /// A `holdable` app talks through a store that ``holdOff(_:_:)`` can cut (a found history's;
    /// the generated ones keep the backend's own store, with its tags and live features).
    func launch(_ member: HistoryMember, on index: Int, holdable: Bool = false) async throws {
        let machine = machines[member]!
        let (club, key) = try await store(for: member, on: clubs[index])
        machine.appStore = holdable ? StallingStore(club: club, silent: try refusingStore()) : nil
        let store: any RemoteStore = machine.appStore ?? club
        appsStarted += 1
        let process = "\(runID)-\(member)-app-\(appsStarted)"
        let harness = Harness(store: store, drafts: DraftStore(directory: machine.drafts(key), process: process)) { configuration in
            configuration.outbox = Outbox(directory: machine.outbox(key))
            configuration.cache = ClubCache(directory: machine.cacheFolder(key))
        }
        harness.app.start()
        // The first listing, or its failure (offline, from the cache): never longer than 10 s.
        let deadline = Date().addingTimeInterval(10)
        while !harness.app.state.notes.hasLoaded, harness.app.state.notes.error == nil, Date() < deadline {
            try? await Task.sleep(for: .milliseconds(5))
        }
        machine.app = harness
        machine.appClub = index
        // Clubs apart: no draft of the other club is shown here.
        let other = index == 0 ? "in club beta" : "in club alpha"
        for draft in harness.app.state.drafts where draft.body.contains(other) {
            violations.append("step \(step): \(member)'s app on club \(index) shows a draft of the other club: \(draft.title)")
        }
        if member == .ann { view.annClub = index }
    }

    /// Presses `Ctrl-S` and waits for what the save said: what it means for the line, or nil
    /// when it said nothing a user would take as kept. A question on the way (the note gone or
    /// changed) is answered as a member keeping their text would: `s`, save it (as a new note, or
    /// as a copy); a merge keeps both sides (`b`).
    private func save(_ harness: Harness) async -> HistoryTold? {
        harness.press(.ctrl("s"))
        let deadline = Date().addingTimeInterval(20)
        var seen: [String] = []
        var answered = 0
        defer { if Date() > deadline { log[log.count - 1] += " [save said: \(seen.joined(separator: " | ")); stage \(String(describing: harness.app.state.note?.stage)), saving \(String(describing: harness.app.state.note?.isSaving)), dialogs \(harness.app.state.dialogs.count)]" } }
        while Date() < deadline {
            let state = harness.app.state
            if let text = state.message?.text, seen.last != text { seen.append(text) }
            if state.note?.merge != nil {
                harness.press(.char("b"))
            } else if !state.dialogs.isEmpty {
                guard answered < 5 else { break }
                answered += 1
                let asked = Self.screenText(harness)
                log[log.count - 1] += " [asked: \(asked.split(separator: "/").filter { $0.contains("?") || $0.contains("[") || $0.contains("(") }.joined(separator: "/").prefix(300))]"
                seen.append("[asked]")
                harness.press(.char("s"))
            } else if state.note?.isSaving != true {
                if seen.contains(where: { $0.contains("in the outbox") }) { return .queued }
                if seen.contains(where: { $0.contains("kept as a draft") || $0.contains("were removed") }) { return .kept }
                if seen.contains(where: { $0.hasPrefix("Saved \"") || $0.hasPrefix("Merged") }) || state.note?.isModified == false { return .saved }
            }
            try? await Task.sleep(for: .milliseconds(5))
        }
        return nil
    }

    /// The dialog's words, as the screen shows them (for the history's log).
    static func screenText(_ harness: Harness) -> String {
        let canvas = harness.render(width: 100, height: 30)
        return (0..<canvas.size.height).map { canvas.line($0).trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }.joined(separator: " / ")
    }

    /// Opens note `note` in `member`'s app from the top of the list (its title typed in the
    /// filter), once the list has it (a note made elsewhere arrives with the live updates, or `r`).
    private func open(_ note: Int, in harness: Harness) async -> Bool {
        let title = HistoryPlan.title(note)
        // A note on the server, or one made here and waiting (a draft's row).
        let listed = {
            harness.app.state.notes.entries.contains { $0.name.hasPrefix(title + ".") } || harness.app.state.drafts.contains { $0.title == title }
        }
        let offline = harness.app.state.offline.isOffline
        var deadline = Date().addingTimeInterval(offline ? 0.3 : 1.5)
        while !listed(), Date() < deadline { try? await Task.sleep(for: .milliseconds(5)) }
        if !listed(), !offline {
            harness.press(.char("r"))
            deadline = Date().addingTimeInterval(1.5)
            while !listed(), Date() < deadline { try? await Task.sleep(for: .milliseconds(5)) }
        }
        guard listed() else { return false }
        // The last filter stays in the list: Esc clears it before a new one is typed.
        if !harness.app.state.notes.list.filter.isEmpty { harness.press(.escape) }
        harness.press(.char("/"))
        for character in title { harness.press(.char(character)) }
        let said = harness.app.state.message
        harness.press(.enter, .enter)
        deadline = Date().addingTimeInterval(10)
        let started = Date().addingTimeInterval(1)
        while Date() < deadline {
            if let session = harness.app.state.note {
                if session.isEditing { return session.editor.title.text == title }
            } else if Date() > started {
                return false
            } else if let message = harness.app.state.message, message != said, message.text.hasPrefix("Could not open") {
                // Said at once (offline, nothing kept here): no need to wait out the second.
                return false
            }
            try? await Task.sleep(for: .milliseconds(5))
        }
        return false
    }

    /// Selects note `note` in the app's list (its title typed in the filter), without opening
    /// it; false when the list does not have it.
    private func select(_ note: Int, in harness: Harness) -> Bool {
        let title = HistoryPlan.title(note)
        guard harness.app.state.notes.entries.contains(where: { $0.name.hasPrefix(title + ".") }) else { return false }
        if !harness.app.state.notes.list.filter.isEmpty { harness.press(.escape) }
        harness.press(.char("/"))
        for character in title { harness.press(.char(character)) }
        harness.press(.enter)
        if case .note(let entry, _)? = harness.app.state.selectedNoteItem(in: harness.app.model.noteListing) { return entry.name.hasPrefix(title + ".") }
        return false
    }

    /// Closes the note in the app: `Esc`, and Discard if it asks (the text is kept as a draft or
    /// waits in the outbox already, as the save said).
    private func close(_ harness: Harness) async {
        harness.press(.escape)
        let deadline = Date().addingTimeInterval(5)
        while Date() < deadline, harness.app.state.note != nil {
            if !harness.app.state.dialogs.isEmpty {
                // "Unsaved changes" after a save that was refused or met a conflict: the member
                // leaves it there, and closes the terminal (the journal keeps the draft).
                for machine in machines.values where machine.app === harness {
                    harness.app.journal()
                    machine.app = nil
                    machine.typing = nil
                    if machine.member == .ann { view.annTyping = nil }
                }
                return
            }
            try? await Task.sleep(for: .milliseconds(5))
        }
    }

    private func type(_ text: String, into harness: Harness) {
        for character in text { harness.press(.char(character)) }
    }

    func line(_ note: Int, _ member: HistoryMember, club: Int) -> String {
        "line \(note) by \(member.rawValue) at \(step) in club \(club == 0 ? "alpha" : "beta") seed \(seed)"
    }

    // MARK: Steps

    func perform(_ next: HistoryStep) async throws {
        step += 1
        let began = Date()
        log.append("\(step): \(next)")
        defer { log[log.count - 1] += String(format: " (%.2f s)", Date().timeIntervalSince(began)) }
        switch next {
        case .appNew(let member, let note):
            guard let harness = try await app(of: member) else { return }
            await finishTyping(member, in: harness)
            let club = machines[member]!.appClub!
            let text = line(note, member, club: club)
            harness.press(.char("n"))
            type(HistoryPlan.title(note), into: harness)
            harness.press(.enter)
            type(text, into: harness)
            if let told = await save(harness) {
                lines.append(HistoryLine(text: text, note: note, club: club, member: member, step: step, told: told))
                made(note, club: club, path: "/byteclub/\(HistoryPlan.title(note)).md")
            }
            await close(harness)
        case .appMove(let member, let note, let folder):
            guard let harness = try await app(of: member), let club = machines[member]!.appClub, let known = notes[note],
                  known.club == club, !known.deleted else { return }
            await finishTyping(member, in: harness)
            if harness.app.state.note != nil { await close(harness) }
            guard harness.app.state.note == nil, select(note, in: harness) else {
                log[log.count - 1] += " [not in the list]"
                return
            }
            func chooseFolder() -> Bool {
                harness.press(.char("m"))
                harness.press(.char("/"))
                type(folder, into: harness)
                harness.press(.enter, .enter)
                guard harness.app.state.dialogs.contains(where: { $0.kind == .chooser }) else { return true }
                harness.press(.escape, .escape)
                return false
            }
            if !chooseFolder() {
                // No such folder yet: `N` makes it (a write made at once too), then `m` again.
                if !harness.app.state.notes.list.filter.isEmpty { harness.press(.escape) }
                let before = harness.app.state.message
                harness.press(.char("N"))
                type(folder, into: harness)
                harness.press(.enter)
                let made = Date().addingTimeInterval(20)
                while Date() < made,
                      !(harness.app.state.message.map { $0 != before && ($0.text.hasPrefix("Made folder") || $0.kind == .error) } ?? false) {
                    try? await Task.sleep(for: .milliseconds(5))
                }
                log[log.count - 1] += " [\(harness.app.state.message?.text.prefix(80) ?? "")]"
                // The chooser lists the folders the notes list has: the one made, once listed.
                let wanted = (harness.app.state.notesFolder.root + "/" + folder).lowercased()
                let listed = Date().addingTimeInterval(10)
                while Date() < listed, !harness.app.state.allNoteFolders.contains(where: { $0.lowercased() == wanted }) {
                    try? await Task.sleep(for: .milliseconds(5))
                }
                guard select(note, in: harness), chooseFolder() else {
                    log[log.count - 1] += " [no folder \(folder) to choose]"
                    return
                }
            }
            let name = (known.path as NSString).lastPathComponent
            let deadline = Date().addingTimeInterval(20)
            while Date() < deadline {
                if let message = harness.app.state.message, message.text.hasPrefix("Moved \"") {
                    notes[note]?.path = "/byteclub/\(folder)/\(name)"
                    view.topLevel.remove(note)
                    log[log.count - 1] += " [moved]"
                    break
                }
                if let message = harness.app.state.message, message.kind == .error {
                    log[log.count - 1] += " [\(message.text.prefix(120))]"
                    break
                }
                try? await Task.sleep(for: .milliseconds(5))
            }
            // A question about links (none name these notes) or anything left open goes.
            while !harness.app.state.dialogs.isEmpty { harness.press(.escape) }
        case .appEdit(let member, let note), .appType(let member, let note):
            guard let harness = try await app(of: member), let club = machines[member]!.appClub, notes[note]?.club == club else { return }
            let typing = machines[member]!.typing
            if typing != note {
                await finishTyping(member, in: harness)
                guard await open(note, in: harness) else {
                    log[log.count - 1] += " [not opened: \(harness.app.state.note.map { "\($0.stage) \($0.editor.title.text)" } ?? "no note"); \(harness.app.state.message?.text ?? "")]"
                    await close(harness)
                    return
                }
            }
            let text = line(note, member, club: club)
            // A draft of a new note opens in its title: the line goes in the body.
            if harness.app.state.note?.editor.focus == .title { harness.press(.tab) }
            harness.press(.documentEnd, .enter)
            type(text, into: harness)
            if case .appType = next {
                machines[member]!.typing = note
                if member == .ann { view.annTyping = note }
                lines.append(HistoryLine(text: text, note: note, club: club, member: member, step: step, told: .typed))
                return
            }
            let sent = harness.app.state.note?.editor.body.text ?? ""
            // What the editor held (the steps whose lines) and the rev it saves over: a lost line
            // shows which save went over it.
            let held = sent.split(separator: "\n").compactMap { line in
                line.split(separator: " ").firstIndex(of: "at").map { String(line.split(separator: " ")[$0 + 1]) }
            }
            log[log.count - 1] += " [held \(held.joined(separator: ",")) over \(harness.app.state.note?.baseRev ?? "no rev")]"
            let told = await save(harness)
            settleTyped(member, note: note, told, in: sent)
            if let told { lines.append(HistoryLine(text: text, note: note, club: club, member: member, step: step, told: told)) }
            machines[member]!.typing = nil
            if member == .ann { view.annTyping = nil }
            await close(harness)
        case .cliNew(let member, let index, let note):
            let text = line(note, member, club: index)
            let result = try machines[member]!.cli(["new", HistoryPlan.title(note), "--no-edit"], club: clubs[index], input: text + "\n")
            if let told = Self.told(result) {
                lines.append(HistoryLine(text: text, note: note, club: index, member: member, step: step, told: told))
                made(note, club: index, path: "/byteclub/\(HistoryPlan.title(note)).md")
            }
        case .cliEdit(let member, let index, let note):
            guard let known = notes[note], known.club == index, !known.deleted else { return }
            let text = line(note, member, club: index)
            // `byteclub edit` opens the note's draft this machine's app left (lines typed there and
            // not saved): what it is told of its save, those lines are told too.
            let draft = DraftStore(directory: machines[member]!.drafts(keys[index])).load(Draft.id(forPath: known.path))
            let carried = lines.indices.filter { lines[$0].note == note && lines[$0].member == member && lines[$0].told == .typed
                && draft?.body.contains(lines[$0].text) == true }
            let result = try machines[member]!.cli(["edit", known.path], club: clubs[index],
                                                   environment: ["EDITOR": editor.path, "VISUAL": editor.path, "HISTORY_LINE": text])
            if let told = Self.told(result) {
                lines.append(HistoryLine(text: text, note: note, club: index, member: member, step: step, told: told))
                for carry in carried { lines[carry].told = told }
            }
            if result.status != 0 { log[log.count - 1] += " [exit \(result.status): \(result.stderr.split(separator: "\n").last ?? "")]" }
        case .cliMove(let member, let index, let note, let folder):
            guard let known = notes[note], known.club == index, !known.deleted else { return }
            let result = try machines[member]!.cli(["mv", known.path, folder + "/"], club: clubs[index])
            if result.status == 0 {
                notes[note]?.path = result.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
                view.topLevel.remove(note)
            }
        case .cliDelete(let member, let index, let note):
            guard let known = notes[note], known.club == index, !known.deleted else { return }
            if try machines[member]!.cli(["rm", known.path], club: clubs[index]).status == 0 {
                notes[note]?.deleted = true
                view.notes[index].removeAll { $0 == note }
                view.topLevel.remove(note)
            }
        case .cliTag(let member, let index, let note, let tag):
            guard let known = notes[note], known.club == index, !known.deleted else { return }
            if try machines[member]!.cli(["tag", known.path, "+" + tag], club: clubs[index]).status == 0 { notes[note]?.tags.insert(tag) }
        case .cliSend(let member, let index):
            _ = try machines[member]!.cli(["outbox", "--send"], club: clubs[index])
        case .offline:
            try await clubs[0].stop()
            view.offline = true
        case .online:
            try await clubs[0].start()
            view.offline = false
        case .switchClub:
            let ann = machines[.ann]!
            let to = 1 - (ann.appClub ?? 1)
            // The terminal closed (SIGHUP): the app journals what was typed, and is gone.
            ann.app?.app.journal()
            ann.app = nil
            ann.typing = nil
            view.annTyping = nil
            try await launch(.ann, on: to)
        case .restartApp(let member):
            let machine = machines[member]!
            // Killed (kill -9) a moment after the last key: what the journal wrote within its
            // delay is what is left. Text typed and not in a draft by then is a loss.
            if let typing = machine.typing, machine.app != nil, let club = machine.appClub {
                let typed = lines.filter { $0.note == typing && $0.member == member && $0.told == .typed }.map(\.text)
                let drafts = DraftStore(directory: machine.drafts(keys[club]))
                let deadline = Date().addingTimeInterval(2)
                while Date() < deadline, !typed.allSatisfy({ line in drafts.all().contains { $0.body.contains(line) } }) {
                    try? await Task.sleep(for: .milliseconds(10))
                }
                if !typed.allSatisfy({ line in drafts.all().contains { $0.body.contains(line) } }) {
                    violations.append("step \(step): \(member)'s typed text was not in a draft 2 s after the last key")
                }
            }
            machine.app = nil
            machine.typing = nil
            if member == .ann { view.annTyping = nil }
            if let club = machine.appClub, !(member == .bob && view.bobRemoved) { try await launch(member, on: club) }
        case .removeBob:
            if try machines[.ann]!.cli(["members", "revoke", "bob"], club: clubs[0]).status == 0 { view.bobRemoved = true }
        }
    }

    /// What was typed in `note` and left unsaved went with a save that said `told`.
    /// What a save of `text` told the lines typed into it. A line typed that the text does not
    /// hold stays typed: its draft was kept apart (another process wrote the note's draft while
    /// it was open), and it is in that draft, not in this save.
    private func settleTyped(_ member: HistoryMember, note: Int, _ told: HistoryTold?, in text: String) {
        for index in lines.indices where lines[index].note == note && lines[index].member == member && lines[index].told == .typed
            && text.contains(lines[index].text) {
            lines[index].told = told ?? .typed
        }
    }

    /// A member who left a note open with text typed saves it before anything else in the app
    /// (Ctrl-S, then Esc), as one would before a new note or another note.
    private func finishTyping(_ member: HistoryMember, in harness: Harness) async {
        guard let note = machines[member]!.typing else { return }
        if let sent = harness.app.state.note?.editor.body.text { settleTyped(member, note: note, await save(harness), in: sent) }
        await close(harness)
        machines[member]!.typing = nil
        if member == .ann { view.annTyping = nil }
    }

    /// `member`'s app, started on their club the first time; nil when it cannot open the club
    /// (a member removed from an encrypted club is refused at the door).
    private func app(of member: HistoryMember) async throws -> Harness? {
        let machine = machines[member]!
        if machine.app == nil {
            do {
                try await launch(member, on: machine.appClub ?? 0)
            } catch where member == .bob && view.bobRemoved {
                return nil
            }
        }
        return machine.app
    }

    private func made(_ note: Int, club: Int, path: String) {
        guard notes[note] == nil else { return }
        notes[note] = HistoryNote(club: club, path: path)
        view.notes[club].append(note)
        view.topLevel.insert(note)
    }

    /// What a command told the user of a line: exit 0 saved, 75 waiting in the outbox, and a
    /// failure that says the text is kept as a draft (a change that overlaps, a refusal) kept.
    static func told(_ result: ChildProcess.Result) -> HistoryTold? {
        switch result.status {
        case 0: .saved
        case 75: .queued
        default: result.stderr.contains("draft") ? .kept : nil
        }
    }
}

struct HistoryError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}
