import ByteClubApp
import ClubKit
import Foundation
import Remote

/// The promise, checked over a whole history once it has run: every line a member was told was
/// saved is in that club, or in a draft of that club on their machine where they were told so;
/// nothing of one club is in the other (its notes, drafts or outbox); every note reads for a
/// member; every tag a member was told a note has, it has.
@MainActor
enum HistoryCheck {
    /// The broken promises, one line each (empty: none).
    static func violations(of run: HistoryRun) async throws -> [String] {
        var found: [String] = []
        // The end of the day: the server back, the apps gone, every outbox sent.
        if !run.clubs[0].isRunning { try await run.clubs[0].start() }
        for machine in run.machines.values {
            machine.app?.app.journal()
            machine.app = nil
        }
        for (member, machine) in run.machines {
            for club in run.clubs where member == .ann || club.index == 0 {
                _ = try machine.cli(["outbox", "--send"], club: club)
            }
        }
        var texts: [[String: String]] = []
        for club in run.clubs {
            let (read, unreadable) = try await contents(of: club, in: run)
            texts.append(read)
            found += unreadable
        }
        var drafts: [HistoryMember: [[String]]] = [:]
        var outboxes: [HistoryMember: [[String]]] = [:]
        for (member, machine) in run.machines {
            drafts[member] = run.keys.map { DraftStore(directory: machine.drafts($0)).all().map { $0.title + "\n" + $0.body } }
            outboxes[member] = run.keys.map { Outbox(directory: machine.outbox($0)).all().map { ($0.text ?? "") + $0.path } }
        }

        for line in run.lines {
            guard let note = run.notes[line.note], !note.deleted else { continue }
            let onServer = texts[line.club].values.contains { $0.contains(line.text) }
            let inDraft = drafts[line.member]?[line.club].contains { $0.contains(line.text) } ?? false
            switch line.told {
            case .saved:
                if !onServer {
                    // What the note holds instead, and the drafts that hold the line: where it went.
                    let now = texts[line.club].first { $0.key.lowercased() == note.path.lowercased() }.map { $0.value }.map { String($0.prefix(400)) } ?? "no such note"
                    let kept = (drafts[line.member]?[line.club] ?? []).filter { $0.contains(line.text) }.count
                    found.append("step \(line.step): \(line.member) was told \"\(line.text)\" was saved; it is not in club \(line.club) (\(note.path) holds: \(now.debugDescription); \(kept) draft(s) hold it)")
                }
            case .queued, .kept, .typed:
                if !onServer && !inDraft {
                    // Where it might have gone: what the note holds now (wherever it moved), and
                    // what the member's outbox still holds of it.
                    let now = texts[line.club].first { $0.key.lowercased() == note.path.lowercased() }.map { String($0.value.prefix(400)) } ?? "no such note"
                    let waiting = (outboxes[line.member]?[line.club] ?? []).filter { $0.contains(line.text) }.count
                    let trail = await revisionTrail(of: note.path, on: run.clubs[line.club], in: run)
                    found.append("step \(line.step): \(line.member)'s \"\(line.text)\" (\(line.told.rawValue)) is neither in club \(line.club) nor in a draft of it"
                                 + " (\(note.path) holds: \(now.debugDescription); \(waiting) outbox item(s) hold it; its revisions, newest first: \(trail))")
                }
            }
        }

        // Clubs apart: nothing of one in the other.
        for club in 0..<2 {
            let other = club == 0 ? "in club beta" : "in club alpha"
            for (path, text) in texts[club] where text.contains(other) {
                found.append("club \(club)'s \(path) holds the other club's text: \(text.prefix(200))")
            }
            for member in HistoryMember.allCases {
                for draft in drafts[member]?[club] ?? [] where draft.contains(other) {
                    found.append("\(member)'s drafts of club \(club) hold the other club's text: \(draft.prefix(200))")
                }
                for item in outboxes[member]?[club] ?? [] where item.contains(other) {
                    found.append("\(member)'s outbox of club \(club) holds the other club's text: \(item.prefix(200))")
                }
            }
        }
        found += run.violations

        // Tags a member was told a note has.
        if run.backend != .webdav {
            for club in run.clubs {
                let (store, _) = try await run.checkerStore(on: club)
                guard let tagging = store as? any TaggingStore else { continue }
                let told = run.notes.filter { $0.value.club == club.index && !$0.value.deleted && !$0.value.tags.isEmpty }
                let have = (try? await tagging.tags(of: told.map(\.value.path))) ?? [:]
                for (number, note) in told {
                    let missing = note.tags.subtracting(have[note.path.lowercased()] ?? [])
                    if !missing.isEmpty { found.append("note \(number) at \(note.path) lost the tags \(missing.sorted()) it was told it has") }
                }
            }
        }
        return found
    }

    /// Each revision of `path` with the steps whose lines it holds, newest first: whether a lost
    /// line ever reached the server, and which save went over it.
    private static func revisionTrail(of path: String, on club: HistoryClub, in run: HistoryRun) async -> String {
        do {
            let (store, _) = try await run.checkerStore(on: club)
            var trail: [String] = []
            for entry in try await store.revisions(path, limit: 20).entries {
                let text = String(decoding: try await store.read(rev: entry.rev ?? "").data, as: UTF8.self)
                let steps = text.split(separator: "\n").compactMap { line in
                    line.split(separator: " ").firstIndex(of: "at").map { line.split(separator: " ")[$0 + 1] }
                }
                trail.append("\(entry.rev ?? "?") [\(steps.joined(separator: ","))]")
            }
            return trail.joined(separator: " ← ")
        } catch {
            return "unread: \((error as? RemoteError)?.message ?? "\(error)")"
        }
    }

    /// Every note of `club` as a member reads it (through the keys when encrypted), and a line for
    /// each that does not read.
    private static func contents(of club: HistoryClub, in run: HistoryRun) async throws -> ([String: String], [String]) {
        let (store, _) = try await run.checkerStore(on: club)
        var texts: [String: String] = [:]
        var unreadable: [String] = []
        for entry in try await store.listRecursively("/byteclub") where entry.kind == .file && !entry.pathLower.contains("/.clubkeys/") {
            guard entry.name.hasSuffix(".md") || entry.name.hasSuffix(".txt") else { continue }
            do {
                texts[entry.path] = String(decoding: try await store.read(entry.path).data, as: UTF8.self)
            } catch {
                unreadable.append("club \(club.index): \(entry.path) does not read for ann: \((error as? RemoteError)?.message ?? "\(error)")")
            }
        }
        return (texts, unreadable)
    }
}

extension HistoryRun {
    /// Ann's view of `club` for the checker: the store her app uses.
    func checkerStore(on club: HistoryClub) async throws -> (any RemoteStore, String) {
        try await store(for: .ann, on: club)
    }
}
