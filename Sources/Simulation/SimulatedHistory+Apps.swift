import ClubKit
import Foundation

/// Each member's app in the histories (issue 70): the real app, in-process, on the history's
/// clock (``SimulatedApp``), beside the same member's shell over the same drafts and outbox,
/// as a user keeps both open on one machine.
extension SimulatedHistory {
    /// The app step: `member`'s app on `club` (started when none runs: its drafts restored as
    /// after a crash) types a line at the end of a note (the one it left unsaved, else one it
    /// opens from its list), then saves it (`Ctrl-S`; a merge keeps both sides, or is
    /// cancelled), leaves it unsaved (journalled as the clock moves), or is killed -9.
    func appStep(_ member: Member, _ club: Int) async -> String {
        var said: [String] = []
        let app: SimulatedApp
        if let running = apps[member]?[club] {
            app = running
        } else {
            appsStarted += 1
            let clock = self.clock
            app = await SimulatedApp(backend: backends[member]![club], process: "\(runName)-\(member.rawValue)-app-\(appsStarted)",
                                     faults: faults[member]![club], now: { clock.now }, user: member.rawValue)
            apps[member, default: [:]][club] = app
            await app.start()
            said.append("starts")
            if await app.dead { return appDied(member, club, said) }
        }
        var note = await app.open
        if note == nil {
            let live = liveNotes(club)
            guard !live.isEmpty else { return (said + ["nothing to edit"]).joined(separator: ", ") }
            let chosen = live[random.int(0...(live.count - 1))]
            guard await app.open(notes[chosen].path) else {
                if await app.dead { return appDied(member, club, said) }
                return (said + ["\(name(notes[chosen].path)) not opened"]).joined(separator: ", ")
            }
            note = chosen
            await app.setOpen(chosen)
        }
        guard let note else { return said.joined(separator: ", ") }
        let text = lineText(member, club)
        guard await app.type(text, merge: !random.oneIn(3)) else {
            if await app.dead { return appDied(member, club, said) }
            return (said + ["\(name(notes[note].path)) not typed in"]).joined(separator: ", ")
        }
        lines.append(Line(text: text, club: club, member: member, step: step, note: note, told: .typed))
        let index = lines.count - 1
        said.append(name(notes[note].path))
        switch random.weighted([("save", 6), ("leave", 2), ("kill", 2)]) {
        case "save":
            switch await app.save(merge: !random.oneIn(3)) {
            case .saved(let path):
                lines[index].told = .saved
                await rehome(member, club, into: note, at: path)
                await app.close()
                said.append("saved")
            case .queued(let path):
                lines[index].told = .queued
                unconfirmed = (club, note, member)
                carry(member, club, into: note, at: path)
                await app.close()
                said.append("queued")
            case .kept(let why):
                lines[index].told = .kept
                said.append("kept (\(why))")
            case .killed:
                unconfirmed = (club, note, member)
                return appDied(member, club, said)
            }
        case "leave":
            // The member looks away: the draft is journalled as the clock moves.
            await app.effects.advance(by: 1)
            said.append("left unsaved")
        default:
            // Killed a moment after typing: what was journalled by then is on disk.
            await app.effects.advance(by: 1)
            await app.effects.kill()
            apps[member]![club] = nil
            said.append("killed -9")
            return said.joined(separator: ", ")
        }
        if await app.dead { return appDied(member, club, said) }
        return said.joined(separator: ", ")
    }

    /// The app was killed by the network's fault (just after the server did its write): it is
    /// gone, its disk kept.
    private func appDied(_ member: Member, _ club: Int, _ said: [String]) -> String {
        apps[member]![club] = nil
        return (said + ["killed"]).joined(separator: ", ")
    }

    /// The clock moved: every running app runs what fell due (its journal, its outbox's
    /// retries, its clock tick). An app killed meanwhile (its outbox's send met an armed kill)
    /// is gone; the kill is its, so the step's own process runs on.
    func advanceApps(by seconds: Double) async {
        for member in Member.allCases {
            for club in 0..<2 {
                guard let app = apps[member]?[club] else { continue }
                await app.effects.advance(by: seconds)
                if await app.dead {
                    apps[member]![club] = nil
                    _ = faults[member]![club].takeKilled()
                    appEvents.append("\(member.rawValue)'s app on c\(club) killed")
                }
            }
        }
    }

    /// The history's end: each app's drafts journalled as the clock moves, then every app closed
    /// (killed: its state goes, its disk stays, as when the machine stops).
    func stopApps() async {
        await advanceApps(by: 2)
        for member in Member.allCases {
            for club in 0..<2 {
                await apps[member]?[club]?.effects.kill()
                apps[member]?[club] = nil
            }
        }
    }
}
