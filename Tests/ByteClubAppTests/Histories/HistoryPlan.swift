import Foundation
import TestSupport

/// Generated user histories (issue 53): the generator, apart from the runner and the checker.
///
/// A history is what two members do over two clubs on one machine (ann's) and another (bob's),
/// from both shells: the app (a ``ClubApp`` in this process, keys pressed into it) and the
/// command line (the built `byteclub`, run as a script runs it). Each step is drawn from a
/// seeded generator (``HistoryPlan``) given what the steps before it left, so a seed replays the
/// same history against the same outcomes; the runner prints every step it takes, and a failing
/// seed's history can be read and run again with `HISTORY_SEED=S`.

/// Who acts. Ann has the app and the command line on both clubs; bob on the first club only.
enum HistoryMember: String, CaseIterable, Sendable {
    case ann, bob
}

/// One user step. Notes are named by the number the history gave them (``HistoryPlan/title(_:)``);
/// the runner finds where each is now.
enum HistoryStep: Equatable, CustomStringConvertible, Sendable {
    /// `n` in the app, a title and a line, `Ctrl-S`, `Esc`.
    case appNew(HistoryMember, note: Int)
    /// The note opened in the app, a line added at its end, `Ctrl-S`, `Esc`.
    case appEdit(HistoryMember, note: Int)
    /// A line typed in the app's note and left unsaved: the draft journal keeps it.
    case appType(HistoryMember, note: Int)
    /// `m` in the app's list on the note, the folder chosen by its name: a write made at once,
    /// beside whatever the outbox still holds (``OutboxSender/Direct``).
    case appMove(HistoryMember, note: Int, folder: String)
    /// `byteclub new "TITLE" --no-edit` with a line on stdin.
    case cliNew(HistoryMember, club: Int, note: Int)
    /// `byteclub edit NOTE` with `$EDITOR` adding a line.
    case cliEdit(HistoryMember, club: Int, note: Int)
    /// `byteclub mv NOTE Folder/`.
    case cliMove(HistoryMember, club: Int, note: Int, folder: String)
    /// `byteclub rm NOTE`.
    case cliDelete(HistoryMember, club: Int, note: Int)
    /// `byteclub tag NOTE +TAG`.
    case cliTag(HistoryMember, club: Int, note: Int, tag: String)
    /// `byteclub outbox --send`.
    case cliSend(HistoryMember, club: Int)
    /// The first club's server goes away / comes back.
    case offline, online
    /// Ann's app quits and opens her other club (what she typed and left is that club's).
    case switchClub
    /// The app is gone without quitting (its process killed) and started again on the same club.
    case restartApp(HistoryMember)
    /// Ann removes bob from the (encrypted) first club: `members revoke bob`.
    case removeBob

    var description: String {
        switch self {
        case .appNew(let who, let note): "\(who) app: new note \(note)"
        case .appEdit(let who, let note): "\(who) app: edit note \(note)"
        case .appType(let who, let note): "\(who) app: type in note \(note), unsaved"
        case .appMove(let who, let note, let folder): "\(who) app: m note \(note) \(folder)/"
        case .cliNew(let who, let club, let note): "\(who) cli club \(club): new note \(note)"
        case .cliEdit(let who, let club, let note): "\(who) cli club \(club): edit note \(note)"
        case .cliMove(let who, let club, let note, let folder): "\(who) cli club \(club): mv note \(note) \(folder)/"
        case .cliDelete(let who, let club, let note): "\(who) cli club \(club): rm note \(note)"
        case .cliTag(let who, let club, let note, let tag): "\(who) cli club \(club): tag note \(note) +\(tag)"
        case .cliSend(let who, let club): "\(who) cli club \(club): outbox --send"
        case .offline: "club 0 server away"
        case .online: "club 0 server back"
        case .switchClub: "ann app: switch club"
        case .restartApp(let who): "\(who) app: killed, started again"
        case .removeBob: "ann cli club 0: members revoke bob"
        }
    }
}

/// What the generator knows of the world when it draws a step: the notes made so far, by
/// club, and where each member's app is.
struct HistoryView {
    /// Every note number made so far, by club (0 or 1), the deleted ones left out.
    var notes: [[Int]] = [[], []]
    /// Notes still in the club folder itself (the app opens them from the top of the list).
    var topLevel: Set<Int> = []
    /// The club ann's app is on.
    var annClub = 0
    var offline = false
    var bobRemoved = false
    /// Whether the club can remove a member (an encrypted club).
    var canRemove = false
    /// A note with a line typed and left unsaved in ann's app (her next app step saves it).
    var annTyping: Int?
}

/// The seeded generator: the next step from the view of the world, by weight.
struct HistoryPlan {
    private var rng: SeededGenerator
    private(set) var nextNote = 1

    init(seed: UInt64) { rng = SeededGenerator(seed: seed) }

    static func title(_ note: Int) -> String { String(format: "Note %03d", note) }

    mutating func next(_ view: HistoryView) -> HistoryStep {
        let annAppNotes = view.notes[view.annClub].filter { view.topLevel.contains($0) }
        let bobAppNotes = view.notes[0].filter { view.topLevel.contains($0) }
        var choices: [(weight: Int, make: (inout HistoryPlan) -> HistoryStep)] = []
        choices.append((5, { plan in plan.makeNote { .appNew(.ann, note: $0) } }))
        if !view.bobRemoved { choices.append((3, { plan in plan.makeNote { .appNew(.bob, note: $0) } })) }
        choices.append((4, { plan in let club = plan.int(2); return plan.makeNote { .cliNew(.ann, club: club, note: $0) } }))
        if !annAppNotes.isEmpty { choices.append((8, { plan in .appEdit(.ann, note: view.annTyping ?? plan.pick(annAppNotes)) })) }
        if !annAppNotes.isEmpty, view.annTyping == nil { choices.append((2, { plan in .appType(.ann, note: plan.pick(annAppNotes)) })) }
        if !bobAppNotes.isEmpty { choices.append((6, { plan in .appEdit(.bob, note: plan.pick(bobAppNotes)) })) }
        // Folders change on the server at once: drawn only while ann's club answers.
        if !annAppNotes.isEmpty, view.annClub == 1 || !view.offline {
            choices.append((2, { plan in .appMove(.ann, note: plan.pick(annAppNotes), folder: plan.pick(["Archive", "Plans"])) }))
        }
        for club in 0..<2 where !view.notes[club].isEmpty {
            let notes = view.notes[club]
            choices.append((5, { plan in .cliEdit(plan.int(3) == 0 && club == 0 ? .bob : .ann, club: club, note: plan.pick(notes)) }))
            // A script's move, delete or tag waits out an outage (its retries, half a minute):
            // drawn only while the club answers. `new` and `edit` go to the outbox at once.
            guard club == 1 || !view.offline else { continue }
            choices.append((2, { plan in .cliMove(.ann, club: club, note: plan.pick(notes), folder: plan.pick(["Archive", "Plans"])) }))
            choices.append((1, { plan in .cliDelete(.ann, club: club, note: plan.pick(notes)) }))
            choices.append((2, { plan in .cliTag(.ann, club: club, note: plan.pick(notes), tag: plan.pick(["red", "todo", "trip"])) }))
            choices.append((1, { _ in .cliSend(.ann, club: club) }))
        }
        choices.append((view.offline ? 6 : 2, { _ in view.offline ? .online : .offline }))
        choices.append((1, { _ in .switchClub }))
        choices.append((1, { plan in .restartApp(plan.int(2) == 0 ? .ann : .bob) }))
        if view.canRemove, !view.bobRemoved { choices.append((1, { _ in .removeBob })) }
        var roll = int(choices.reduce(0) { $0 + $1.weight })
        for choice in choices {
            if roll < choice.weight { return choice.make(&self) }
            roll -= choice.weight
        }
        return .online
    }

    private mutating func makeNote(_ step: (Int) -> HistoryStep) -> HistoryStep {
        defer { nextNote += 1 }
        return step(nextNote)
    }

    mutating func int(_ below: Int) -> Int { Int(rng.next() % UInt64(below)) }
    mutating func pick<T>(_ from: [T]) -> T { from[int(from.count)] }
}
