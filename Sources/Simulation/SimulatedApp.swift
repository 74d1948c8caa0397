import ByteClubApp
import ClubKit
import Foundation
import Logging
import Remote
import TerminalUI

/// One member's app in the simulation (issue 70): the real ``ClubApp``, on a compositor of its
/// own, over the member's own way to the club (the same store, drafts and outbox their shell
/// uses), its UI queue and timers ``SimulatedEffects`` on the history's clock. The history
/// drives it as a user does, with keys: `r` to list the club again, the arrows and `Enter` to
/// open a note, the line typed at its end, `Ctrl-S`, the merge view's `b` (keep both) and
/// `Ctrl-S`, `Esc`. A kill drops the app whole (its process state), its disk kept.
@MainActor
final class SimulatedApp {
    let app: ClubApp
    let effects: SimulatedEffects
    let compositor = Compositor()
    /// The history's note open in the editor, with a line of this app's typed in it not yet
    /// told saved (nil: the list is shown).
    var open: Int?

    /// What a save came to, as the status bar (or the screen) said it.
    enum Outcome: Equatable {
        case saved(path: String)
        case queued(path: String)
        case kept(why: String)
        case killed
    }

    init(backend: ClubKit.Backend, process: String, faults: NetworkFaults, now: @escaping @Sendable () -> Date, user: String) {
        effects = SimulatedEffects(isKilled: { faults.state.withLock { $0.killed } })
        var configuration = AppConfiguration(club: backend, newNoteExtension: "md", process: process)
        configuration.format = DisplayFormat(now: now, timeZone: TimeZone(identifier: "UTC")!)
        configuration.userName = user
        var logger = Logger(label: "byteclub.simulated-app")
        logger.logLevel = .critical
        configuration.logger = logger
        app = ClubApp(store: backend.store, compositor: compositor, configuration: configuration, effects: effects)
    }

    var dead: Bool { effects.dead }

    func setOpen(_ note: Int?) { open = note }

    /// Starts the app: its lists load, its drafts are found.
    func start() async {
        app.start(indexing: false)
        await effects.settle()
    }

    /// Each key as a user presses it, the app settled after each.
    func press(_ keys: [Key]) async {
        for key in keys {
            guard !dead else { return }
            compositor.handle(key)
            await effects.settle()
        }
    }

    /// Lists the club again (`r`) and opens the note at `path` from the list, as a user does.
    /// - Returns: false when the list has no such note, or it did not open.
    func open(_ path: String) async -> Bool {
        guard app.state.note == nil else { return false }
        await press([.char("r")])
        let lower = path.lowercased()
        guard let row = app.noteItems.firstIndex(where: { if case .note(let entry, _) = $0 { entry.pathLower == lower } else { false } }) else {
            return false
        }
        await press([.home] + Array(repeating: .down, count: row) + [.enter])
        return app.state.note?.isEditing == true && app.state.note?.entry?.pathLower == lower
    }

    /// Types `line` as a line of its own at the end of the open note, once the editor is what
    /// the screen shows (a merge the app opened by itself is settled first, as a user would: keys
    /// typed into the merge view are its commands). False when the editor is not there to type in.
    func type(_ line: String, merge: Bool) async -> Bool {
        if app.state.note?.merge != nil || !app.state.dialogs.isEmpty { _ = await settleMerge(merge) }
        guard !dead, app.state.note?.isEditing == true, app.state.note?.merge == nil, app.state.dialogs.isEmpty else { return false }
        await press([.documentEnd])
        let text = app.state.note?.editor.body.text ?? ""
        await press((text.isEmpty || text.hasSuffix("\n") ? [] : [.enter]) + line.map { .char($0) } + [.enter])
        return !dead
    }

    /// `Ctrl-S`, and what the app then said. A conflict's dialog is cancelled (the text stays a
    /// draft); a merge keeps both sides (`b` for each conflict, then `Ctrl-S`) when `merge` holds.
    func save(merge: Bool) async -> Outcome {
        await press([.ctrl("s")])
        if let why = await settleMerge(merge) { return dead ? .killed : .kept(why: why) }
        if dead { return .killed }
        // Told saved only of this note, and only once its editor holds nothing unsaved: the
        // outbox's sender says "Saved" of other notes in the same bar.
        let said = app.state.message?.text ?? ""
        let path = app.state.note?.entry?.path ?? ""
        let name = (path as NSString).lastPathComponent
        if said.hasPrefix("Saved \"\(name)\""), !name.isEmpty, app.state.note?.isModified == false {
            return said.contains("in the outbox") ? .queued(path: path) : .saved(path: path)
        }
        return .kept(why: said.isEmpty ? "nothing said" : String(said.prefix(60)))
    }

    /// The merge view or a dialog on screen, settled: a merge keeps both sides (`b` for each
    /// conflict, then `Ctrl-S`) when `merge` holds, else it is cancelled (`Esc`: back to the
    /// text, a draft); a dialog is cancelled. Nil when neither was left cancelled, else why.
    func settleMerge(_ merge: Bool) async -> String? {
        for _ in 0..<3 {
            if dead { return "killed" }
            if let session = app.state.note?.merge {
                guard merge else {
                    await press([.escape])
                    return "merge cancelled"
                }
                // Each open conflict kept both ways; the view moves to the next by itself or on `n`.
                for _ in 0..<session.conflictCount {
                    guard let open = app.state.note?.merge?.openCount, open > 0 else { break }
                    await press([.char("b")])
                    if let left = app.state.note?.merge?.openCount, left > 0, left == open - 1 { await press([.char("n")]) }
                }
                if app.state.note?.merge != nil { await press([.ctrl("s")]) }
                continue
            }
            if !app.state.dialogs.isEmpty {
                await press([.escape])
                return "dialog cancelled"
            }
            return nil
        }
        return app.state.note?.merge != nil ? "merge still open" : nil
    }

    /// `Esc` from the editor back to the list, when nothing is left unsaved.
    func close() async {
        guard app.state.note != nil, app.state.note?.isModified == false else { return }
        await press([.escape])
        if !app.state.dialogs.isEmpty { await press([.escape]) }
        if app.state.note == nil { open = nil }
    }
}
