import Foundation

/// A flight told by what the app's screen says: looked at while its step runs, and waited for
/// (up to 10 s) after; only the app launched for it can tell.
protocol ScreenFlight: Flight {
    var ops: Operations { get }
    var launch: Int { get }
    var told: Bool { get }
    /// Whether the screen settles the flight (told, or no longer this launch's to tell).
    func look(_ screen: String) -> Bool
}

extension ScreenFlight {
    func poll() { if ops.app.launches == launch, !told { _ = look(ops.app.screen()) } }

    func settle() {
        guard ops.app.launches == launch, ops.app.isRunning else { return }
        _ = ops.app.wait(10) { self.look($0) }
    }
}

/// A note's Ctrl-S in the app: told when the status bar says `Saved "NAME"` (on the server) or
/// `Saved "NAME" in the outbox`. Only the app launched for it can tell.
final class NoteSaveFlight: ScreenFlight {
    let ops: Operations
    let note: NoteModel
    let version: Int
    let name: String
    let launch: Int
    var told = false

    init(ops: Operations, note: NoteModel, version: Int, name: String, launch: Int) {
        (self.ops, self.note, self.version, self.name, self.launch) = (ops, note, version, name, launch)
    }

    func look(_ screen: String) -> Bool {
        guard !told, ops.app.launches == launch else { return true }
        if screen.contains("Saved \"\(name)\" in the outbox") {
            note.tell(version, step: ops.step, how: "queued")
        } else if screen.contains("Saved \"\(name)\"") {
            note.tell(version, step: ops.step, how: "saved")
        } else {
            return false
        }
        if note.names.contains(name) { note.tellRename(name) }
        told = true
        return true
    }
}

/// `R` in the list: told by `Renamed to "NAME"` or `Renamed … to "NAME" in the outbox`.
final class RenameFlight: ScreenFlight {
    let ops: Operations
    let note: NoteModel
    let name: String
    let launch: Int
    private(set) var told = false

    init(ops: Operations, note: NoteModel, name: String, launch: Int) {
        (self.ops, self.note, self.name, self.launch) = (ops, note, name, launch)
    }

    func look(_ screen: String) -> Bool {
        guard !told, ops.app.launches == launch else { return true }
        guard screen.contains("Renamed to \"\(name)\"") || screen.contains("to \"\(name)\" in the outbox") else { return false }
        note.tellRename(name)
        told = true
        return true
    }
}

/// `byteclub outbox --send` after the server came back (the app's sender racing it): exit 0
/// tells that everything waiting reached the server.
final class OutboxSendFlight: Flight {
    let ops: Operations
    let sender: Spawned
    let save: NoteSaveFlight?

    init(ops: Operations, sender: Spawned, save: NoteSaveFlight?) {
        (self.ops, self.sender, self.save) = (ops, sender, save)
    }

    private func look() {
        guard !sender.isRunning, sender.status == 0, let save, save.told else { return }
        save.note.tell(save.version, step: ops.step, how: "sent by outbox --send")
    }

    func poll() { look() }

    func settle() {
        if sender.wait(until: Date().addingTimeInterval(30)) == nil { sender.kill() }
        look()
    }
}

/// `byteclub put FILE /byteclub/photos/`, with `--agent` or without: told by exit 0. The agent
/// accepted it once its journal holds the file; from then on it must finish it.
final class PutFlight: Flight {
    let ops: Operations
    let photo: PhotoModel
    let process: Spawned

    init(ops: Operations, photo: PhotoModel, process: Spawned) {
        (self.ops, self.photo, self.process) = (ops, photo, process)
    }

    private func look() {
        if photo.byAgent, photo.accepted == nil,
           ops.club.agentTransfers().contains(where: { ($0["local"] as? String)?.hasSuffix("/" + photo.name) ?? false }) {
            photo.accepted = ops.step
        }
        if photo.told == nil, !process.isRunning, process.status == 0 { photo.told = ops.step }
    }

    func poll() { look() }

    func settle() {
        _ = process.wait(until: Date().addingTimeInterval(60))
        look()
        if process.isRunning {
            // Still going after a minute: left to follow, and checked at the end.
            photo.follower = process
        } else if photo.byAgent, photo.accepted != nil, process.status != 0 {
            // The put gave up (an agent killed while it answered the submit), but the agent had
            // journaled the transfer: a new agent must finish it all the same.
            let done = byteclub_torture.poll(60) {
                ops.club.agentTransfers().contains { ($0["local"] as? String)?.hasSuffix("/" + photo.name) ?? false && $0["state"] as? String == "done" }
            }
            if done {
                ops.notes.append("step \(ops.step): put --agent of \(photo.name) exited \(process.status ?? -1) (\(process.text.split(separator: "\n").last ?? "")), yet the agent had taken it and finished it")
            } else {
                ops.failures.append("step \(ops.step): the agent accepted \(photo.name) and did not finish it: put --agent exited \(process.status ?? -1): \(process.text.suffix(300))")
            }
        }
    }
}

/// `byteclub restore PATH REV`: told by exit 0.
final class RestoreFlight: Flight {
    let ops: Operations
    let note: NoteModel
    let version: Int
    let process: Spawned
    private(set) var told = false

    init(ops: Operations, note: NoteModel, version: Int, process: Spawned) {
        (self.ops, self.note, self.version, self.process) = (ops, note, version, process)
    }

    private func look() {
        guard !told, !process.isRunning, process.status == 0 else { return }
        note.tell(version, step: ops.step, how: "restored")
        told = true
    }

    func poll() { look() }

    func settle() {
        if process.wait(until: Date().addingTimeInterval(30)) == nil { process.kill() }
        look()
    }
}
