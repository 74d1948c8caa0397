import Foundation
import Simulation

/// One operation in flight: `poll` watches for what the user is told while the kill is timed,
/// `settle` waits (after the kill and restart) until the outcome is known.
protocol Flight: AnyObject {
    func poll()
    func settle()
}

enum Operation: String, CaseIterable {
    case newNote = "new note", editNote = "edit", rename, offlineSave = "offline save", put, agentPut = "agent put", restore

    /// How long after the risky moment the kill may come, in milliseconds.
    var window: Int {
        switch self {
        case .newNote, .editNote, .rename: return 120
        case .offlineSave: return 400
        case .put, .agentPut: return 350
        case .restore: return 150
        }
    }
}

/// Starts operations against the club through the app (tmux), the command line and the agent.
final class Operations {
    let club: Club
    let app: AppDriver
    let model: Model
    let seed: UInt64
    var step = 0
    /// Server stops an operation made itself (the offline save), beside the scheduled kills.
    private(set) var stops = 0
    /// Losses found while settling (an accepted transfer the agent did not finish).
    var failures: [String] = []
    /// Not losses, but worth saying: a client told of a failure the agent then made good.
    var notes: [String] = []

    init(club: Club, app: AppDriver, model: Model, seed: UInt64) {
        self.club = club
        self.app = app
        self.model = model
        self.seed = seed
    }

    /// Notes on the server once, with no draft or outbox item: safe to open, rename or restore.
    func quietNotes() -> [(note: NoteModel, name: String, text: String)] {
        let kept = Kept.read(club)
        var byID: [Int: [String]] = [:]
        let names = ((try? FileManager.default.contentsOfDirectory(atPath: club.notes.path)) ?? []).filter { $0.hasSuffix(".md") }
        for name in names { if let id = NoteText.id(fromName: name) { byID[id, default: []].append(name) } }
        return byID.sorted { $0.key < $1.key }.compactMap { id, names in
            guard names.count == 1, !kept.busyIDs.contains(id), let note = model.notes[id],
                  let text = try? String(contentsOf: club.notes.appendingPathComponent(names[0]), encoding: .utf8),
                  model.version(of: text, note: note) != nil else { return nil }
            return (note, names[0], text)
        }
    }

    func start(_ operation: Operation, rng: inout SplitMix64) throws -> Flight? {
        switch operation {
        case .newNote: return try noteSave(rng: &rng, existing: nil)
        case .editNote:
            let quiet = quietNotes()
            guard !quiet.isEmpty else { return try noteSave(rng: &rng, existing: nil) }
            return try noteSave(rng: &rng, existing: quiet[rng.int(0...(quiet.count - 1))]) ?? noteSave(rng: &rng, existing: nil)
        case .rename:
            let quiet = quietNotes()
            guard !quiet.isEmpty else { return try noteSave(rng: &rng, existing: nil) }
            return try rename(quiet[rng.int(0...(quiet.count - 1))], rng: &rng) ?? noteSave(rng: &rng, existing: nil)
        case .offlineSave: return try offlineSave(rng: &rng)
        case .put, .agentPut: return try put(agent: operation == .agentPut, rng: &rng)
        case .restore: return try restore(rng: &rng) ?? noteSave(rng: &rng, existing: nil)
        }
    }

    // MARK: Notes in the app

    /// Filters the list to `title` and waits for its one row.
    private func filter(_ title: String) throws -> Bool {
        try app.type("/")
        try app.type(title)
        try app.press("Enter")
        // "/ tt00012x   1 of 1": the filter line with its count, once the whole title is in.
        var count: Int?
        _ = app.wait(5) { screen in
            guard let row = screen.split(separator: "\n").first(where: { $0.contains("/ \(title)") }),
                  let match = row.range(of: "[0-9]+ of [0-9]+", options: .regularExpression) else { return false }
            count = Int(row[match].split(separator: " ")[0])
            return true
        }
        if count == 1 { return true }
        // A draft row the app still shows, a copy: not this note's turn. Clear the filter.
        _ = app.toList()
        return false
    }

    /// Types a new note's text, or opens `existing` and adds a line; Ctrl-S is the risky moment.
    private func noteSave(rng: inout SplitMix64, existing: (note: NoteModel, name: String, text: String)?, queueing: Bool = false) throws -> NoteSaveFlight? {
        let note = existing?.note ?? model.newNote()
        let version = note.nextVersion
        note.nextVersion += 1
        let line = NoteText.line(id: note.id, version: version, using: &rng)
        let name: String
        if let existing {
            name = existing.name
            guard try filter(String(name.dropLast(3))) else { return nil }
            try app.press("Enter")
            // Online "Editing …"; with the server away, opened from the cache ("Opened … : the server cannot be reached").
            guard app.wait(5, { $0.contains("Editing \"\(name)\"") || $0.contains("Opened \"\(name)\"") }) != nil else {
                if ProcessInfo.processInfo.environment["BCT_DEBUG"] != nil { say("\(name) did not open:\n" + app.screen()) }
                return nil
            }
            try app.press("C-End")
            try app.press("Enter")
            note.lines[version] = line
        } else {
            name = note.title + ".md"
            try app.type("n")
            guard app.wait(5, { $0.contains("Enter goes to the text") }) != nil else { return nil }
            try app.type(note.title)
            try app.press("Enter")
            note.lines[version] = line
            note.beginRename(name)
        }
        try app.type(line)
        guard app.wait(5, { $0.contains(line.suffix(16)) }) != nil else { return nil }
        note.begin(version)
        try app.press("C-s")
        return NoteSaveFlight(ops: self, note: note, version: version, name: name, launch: app.launches)
    }

    private func rename(_ quiet: (note: NoteModel, name: String, text: String), rng: inout SplitMix64) throws -> Flight? {
        let note = quiet.note
        let title = note.title + " r\(rng.int(1...99_999))"
        guard try filter(String(quiet.name.dropLast(3))) else { return nil }
        try app.type("R")
        guard app.wait(5, { $0.contains("Rename note") }) != nil else { return nil }
        try app.press("C-u")
        try app.type(title)
        note.beginRename(title + ".md")
        try app.press("Enter")
        return RenameFlight(ops: self, note: note, name: title + ".md", launch: app.launches)
    }

    /// The server stopped, a save queued in the outbox, the server back and `outbox --send`
    /// racing the app's own sender: the risky moment is the send.
    private func offlineSave(rng: inout SplitMix64) throws -> Flight? {
        club.killServer()
        stops += 1
        let quiet = quietNotes()
        let existing = quiet.isEmpty || rng.int(0...1) == 0 ? nil : quiet[rng.int(0...(quiet.count - 1))]
        let flight = try noteSave(rng: &rng, existing: existing) ?? noteSave(rng: &rng, existing: nil)
        if let flight {
            if app.wait(10, { $0.contains("Saved \"\(flight.name)\" in the outbox") }) != nil {
                flight.note.tell(flight.version, step: step, how: "queued offline")
                flight.told = true
            } else if ProcessInfo.processInfo.environment["BCT_DEBUG"] != nil {
                say("offline save of \(flight.name) not told:\n" + app.screen())
            }
            _ = app.toList()
        }
        try club.startServer()
        return OutboxSendFlight(ops: self, sender: try club.cli(["outbox", "--send"], name: "outbox-send"), save: flight)
    }

    // MARK: The command line and the agent

    private func put(agent: Bool, rng: inout SplitMix64) throws -> Flight {
        let size = rng.int(0...1) == 0 ? rng.int(1_000...300_000) : rng.int(1_000_000...9_000_000)
        let photo = model.newPhoto(size: size, seed: seed, byAgent: agent)
        let file = club.local.appendingPathComponent(photo.name)
        try photo.data.write(to: file)
        let process = try club.cli(["put"] + (agent ? ["--agent"] : []) + [file.path, "/byteclub/photos/"], name: "put-\(photo.id)")
        return PutFlight(ops: self, photo: photo, process: process)
    }

    /// An older revision of a quiet note brought back with `byteclub restore`, its bytes read
    /// from the server's history first so the text it brings is known.
    private func restore(rng: inout SplitMix64) throws -> Flight? {
        let ids = club.serverIDs()
        var choices: [(NoteModel, String, String, Int)] = []
        for quiet in quietNotes() {
            guard let id = ids["/byteclub/\(quiet.name)".lowercased()], id.hasPrefix("id:") else { continue }
            let history = club.meta.appendingPathComponent("revisions/\(id.dropFirst(3))")
            let log = (try? String(contentsOf: history.appendingPathComponent("log"), encoding: .utf8)) ?? ""
            for line in log.split(separator: "\n") {
                guard let record = try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any],
                      let rev = record["rev"] as? String, let hash = record["hash"] as? String,
                      let text = try? String(contentsOf: history.appendingPathComponent(hash), encoding: .utf8),
                      text != quiet.text, let version = model.version(of: text, note: quiet.note) else { continue }
                choices.append((quiet.note, quiet.name, rev, version))
            }
        }
        guard !choices.isEmpty else { return nil }
        let (note, name, rev, version) = choices[rng.int(0...(choices.count - 1))]
        note.begin(version)
        let process = try club.cli(["restore", "/byteclub/\(name)", rev], name: "restore")
        return RestoreFlight(ops: self, note: note, version: version, process: process)
    }
}
