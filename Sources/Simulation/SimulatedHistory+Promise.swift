import ClubKit
import Foundation
import Remote

/// The end of a history: the network whole, every outbox sent, and the promise checked
/// (``SimulatedHistory/violations()``), apart from the steps that make it.
extension SimulatedHistory {

    /// The network whole, every outbox sent (twice, so a merge's follow-ups go too), then the
    /// broken promises, one line each.
    public func violations() async -> [String] {
        await stopApps()
        for member in Member.allCases {
            for club in 0..<2 {
                faults[member]![club].isDown = false
                faults[member]![club].lossOdds = 0
                _ = faults[member]![club].takeKilled()
            }
        }
        for _ in 0..<2 {
            for member in Member.allCases {
                for club in 0..<2 { _ = await send(member, club) }
            }
        }
        var found = broken
        var texts: [[String]] = []
        var shown: [String] = []
        for club in 0..<2 {
            var read: [String] = []
            for entry in (try? await checkers[club].listRecursively(folder)) ?? [] where entry.kind == .file && !entry.pathLower.contains("/.clubkeys") {
                do {
                    read.append(String(decoding: try await checkers[club].read(entry.path).data, as: UTF8.self))
                    shown.append("end: club \(club) \(entry.path): \(read[read.count - 1].debugDescription)")
                } catch {
                    found.append("club \(club): \(entry.path) does not read: \(Self.short(error))")
                }
            }
            texts.append(read)
        }
        var drafts: [Member: [[String]]] = [:]
        for member in Member.allCases {
            drafts[member] = backends[member]!.map { backend in
                backend.drafts.all().map(\.body) + backend.outbox.all().compactMap(\.text)
            }
        }
        for line in lines {
            let counts = texts[line.club].map { $0.components(separatedBy: line.text + "\n").count - 1 }
            let copies = counts.reduce(0, +)
            if let most = counts.max(), most > 1 {
                found.append("step \(line.step): \"\(line.text)\" is in one note of club \(line.club) \(most) times")
            } else if copies > 1 {
                copied.append("step \(line.step): \"\(line.text)\" is in \(copies) notes of club \(line.club)")
            }
            guard !notes[line.note].deleted else { continue }
            let kept = drafts[line.member]![line.club].contains { $0.contains(line.text) }
            switch line.told {
            case .saved where copies == 0:
                found.append("step \(line.step): \(line.member.rawValue) was told \"\(line.text)\" was saved; it is not in club \(line.club) (\(kept ? "a draft holds it" : "nor in a draft"))")
            case .queued where copies == 0 && !kept, .kept where copies == 0 && !kept, .typed where copies == 0 && !kept:
                found.append("step \(line.step): \(line.member.rawValue)'s \"\(line.text)\" (\(line.told.rawValue)) is neither in club \(line.club) nor in a draft of it")
            default:
                break
            }
        }
        for club in 0..<2 {
            let other = club == 0 ? "in club beta" : "in club alpha"
            for text in texts[club] where text.contains(other) {
                found.append("club \(club) holds the other club's text: \(text.prefix(120).debugDescription)")
            }
            for member in Member.allCases {
                for draft in drafts[member]![club] where draft.contains(other) {
                    found.append("\(member.rawValue)'s drafts of club \(club) hold the other club's text: \(draft.prefix(120).debugDescription)")
                }
            }
        }
        if !found.isEmpty || !copied.isEmpty || ProcessInfo.processInfo.environment["SIMULATION_SHOW_CLUBS"] != nil {
            // What the clubs hold at the end, after the history, for whoever replays it.
            // In path order: a listing's order is the store's to choose.
            log += shown.sorted()
            for member in Member.allCases {
                for club in 0..<2 {
                    let backend = backends[member]![club]
                    let kept = backend.drafts.all().map { "draft \($0.path ?? "(new) " + $0.title): \($0.body.debugDescription)" }
                        + backend.outbox.all().map { "queued \($0.kind.rawValue) \($0.path): \(($0.text ?? "").debugDescription)" }
                    log += kept.sorted().map { "end: \(member.rawValue) c\(club) \($0)" }
                }
            }
        }
        return found
    }
}
