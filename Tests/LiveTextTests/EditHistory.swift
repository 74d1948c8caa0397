import Foundation
import TestSupport

@testable import LiveText

/// A generated history of 2 to 4 members editing one note at once: the generator, the runner
/// and the checker of the promise (every replica that has seen every update holds the same
/// text) kept apart, as docs/testing.md's histories are. Everything comes from the seed, so a
/// failing seed replays (`LIVETEXT_SEED=S`).
struct EditHistory {
    /// One step of a history.
    enum Step: CustomStringConvertible {
        case insert(replica: Int, text: String, at: Int)
        case delete(replica: Int, range: Range<Int>)
        case undo(replica: Int)
        case redo(replica: Int)
        /// Hands `replica` these updates (indices into ``Run/updates``), in this order.
        case deliver(replica: Int, updates: [Int])

        var description: String {
            switch self {
            case .insert(let replica, let text, let at): "r\(replica) insert \(text.debugDescription) at \(at)"
            case .delete(let replica, let range): "r\(replica) delete \(range)"
            case .undo(let replica): "r\(replica) undo"
            case .redo(let replica): "r\(replica) redo"
            case .deliver(let replica, let updates): "r\(replica) receives \(updates)"
            }
        }
    }

    /// What running a history left: the replicas, every update sent (in the order sent), the
    /// steps taken, and the first local edit whose result was not the plain string edit.
    struct Run {
        var replicas: [LiveDocument]
        var updates: [Data] = []
        /// For each update, the updates its sender had had when it sent it: what it may build on.
        var seenBefore: [Set<Int>] = []
        var steps: [Step] = []
        var localMismatch: String?
    }

    /// Characters of one to four UTF-16 units, so offsets and surrogate pairs are exercised.
    static let alphabet: [String] = ["a", "b", "c", "x", "y", " ", "\n", "é", "中", "😀", "👍🏽"]

    /// Runs `stepCount` generated steps on 2 to 4 replicas, then hands every replica every update
    /// it has not had (in a random order, some twice).
    static func run(seed: UInt64, stepCount: Int, root: String = "note") -> Run {
        var random = SeededGenerator(seed: seed)
        let replicaCount = Int.random(in: 2...4, using: &random)
        var clients = Set<UInt64>()
        while clients.count < replicaCount {
            // Small IDs and big ones (Yjs's are 32-bit; Yrs's up to 53 bits).
            clients.insert(Bool.random(using: &random) ? UInt64.random(in: 1...9, using: &random) : UInt64.random(in: 1...(1 << 53), using: &random))
        }
        var run = Run(replicas: clients.shuffled(using: &random).map { LiveDocument(clientID: $0, root: root) })
        var delivered = Array(repeating: Set<Int>(), count: replicaCount)
        for _ in 0..<stepCount {
            let replica = Int.random(in: 0..<replicaCount, using: &random)
            let roll = Int.random(in: 0..<100, using: &random)
            let text = run.replicas[replica].text
            let boundaries = Self.boundaries(of: text)
            let step: Step
            if roll < 40 || boundaries.count == 1 {
                let piece = (0..<Int.random(in: 1...4, using: &random)).map { _ in alphabet.randomElement(using: &random)! }.joined()
                step = .insert(replica: replica, text: piece, at: boundaries.randomElement(using: &random)!)
            } else if roll < 60 {
                let start = Int.random(in: 0..<boundaries.count - 1, using: &random)
                let end = min(boundaries.count - 1, start + Int.random(in: 1...5, using: &random))
                step = .delete(replica: replica, range: boundaries[start]..<boundaries[end])
            } else if roll < 67 {
                step = .undo(replica: replica)
            } else if roll < 70 {
                step = .redo(replica: replica)
            } else {
                // Some of what it has not had, in any order; now and then one it had, again.
                var waiting = (0..<run.updates.count).filter { !delivered[replica].contains($0) }.shuffled(using: &random)
                waiting = Array(waiting.prefix(Int.random(in: 0...waiting.count, using: &random)))
                if !run.updates.isEmpty && Int.random(in: 0..<10, using: &random) == 0 {
                    waiting.append(Int.random(in: 0..<run.updates.count, using: &random))
                }
                step = .deliver(replica: replica, updates: waiting)
            }
            perform(step, on: &run, delivered: &delivered)
        }
        for replica in 0..<replicaCount {
            var rest = (0..<run.updates.count).filter { !delivered[replica].contains($0) }
            rest += rest.filter { _ in Int.random(in: 0..<8, using: &random) == 0 }
            perform(.deliver(replica: replica, updates: rest.shuffled(using: &random)), on: &run, delivered: &delivered)
        }
        return run
    }

    /// Carries out one step, checking a local edit against the plain string edit.
    static func perform(_ step: Step, on run: inout Run, delivered: inout [Set<Int>]) {
        run.steps.append(step)
        defer {
            // The position cache, kept through local edits, undos and reported changes, is right
            // (each step of a short history, every 25th of a long one: the check walks the list).
            let checked = run.steps.count <= 200 || run.steps.count % 25 == 0
            for (index, replica) in run.replicas.enumerated() where checked && !replica.store.positionsAreRight() && run.localMismatch == nil {
                run.localMismatch = "\(step): r\(index)'s cached positions are wrong"
            }
        }
        switch step {
        case .insert(let replica, let text, let at):
            let before = Array(run.replicas[replica].text.utf16)
            let update = run.replicas[replica].insert(text, at: at)
            sent(update, by: replica, run: &run, delivered: &delivered)
            let expected = String(decoding: before[..<at] + Array(text.utf16) + before[at...], as: UTF16.self)
            if run.replicas[replica].text != expected && run.localMismatch == nil {
                run.localMismatch = "\(step): \(run.replicas[replica].text.debugDescription), expected \(expected.debugDescription)"
            }
        case .delete(let replica, let range):
            let before = Array(run.replicas[replica].text.utf16)
            let update = run.replicas[replica].delete(range)
            sent(update, by: replica, run: &run, delivered: &delivered)
            let expected = String(decoding: before[..<range.lowerBound] + before[range.upperBound...], as: UTF16.self)
            if run.replicas[replica].text != expected && run.localMismatch == nil {
                run.localMismatch = "\(step): \(run.replicas[replica].text.debugDescription), expected \(expected.debugDescription)"
            }
        case .undo(let replica), .redo(let replica):
            let before = run.replicas[replica].text
            let isUndo = if case .undo = step { true } else { false }
            guard let edit = isUndo ? run.replicas[replica].undo() : run.replicas[replica].redo() else { return }
            sent(edit.update, by: replica, run: &run, delivered: &delivered)
            checkChanges(edit.changes, from: before, to: run.replicas[replica].text, step: step, run: &run)
        case .deliver(let replica, let updates):
            for index in updates {
                let before = run.replicas[replica].text
                do {
                    let changes = try run.replicas[replica].applyReportingChanges(run.updates[index])
                    checkChanges(changes, from: before, to: run.replicas[replica].text, step: step, run: &run)
                } catch {
                    run.localMismatch = run.localMismatch ?? "r\(replica) refused update \(index): \(error)"
                }
                delivered[replica].insert(index)
            }
        }
    }

    /// The changes an apply, undo or redo reported, made in order to the text before it, must
    /// give the text after it.
    static func checkChanges(_ changes: [LiveTextChange], from before: String, to after: String, step: Step, run: inout Run) {
        var units = Array(before.utf16)
        for change in changes {
            switch change {
            case .insert(let text, let at):
                guard at <= units.count else { break }
                units.insert(contentsOf: text.utf16, at: at)
            case .delete(let range):
                guard range.upperBound <= units.count else { break }
                units.removeSubrange(range)
            }
        }
        if String(decoding: units, as: UTF16.self) != after && run.localMismatch == nil {
            run.localMismatch = "\(step): its changes \(changes) make \(String(decoding: units, as: UTF16.self).debugDescription) of \(before.debugDescription), not \(after.debugDescription)"
        }
    }

    private static func sent(_ update: Data, by replica: Int, run: inout Run, delivered: inout [Set<Int>]) {
        run.seenBefore.append(delivered[replica])
        delivered[replica].insert(run.updates.count)
        run.updates.append(update)
    }

    /// The updates' indices in a random order in which each comes after every update its sender
    /// had had (so no update arrives before one it may build on), some of them twice.
    static func causalOrder(of run: Run, using random: inout SeededGenerator) -> [Int] {
        var order: [Int] = []
        var done = Set<Int>()
        var waiting = Array(0..<run.updates.count)
        while !waiting.isEmpty {
            let ready = waiting.indices.filter { run.seenBefore[waiting[$0]].isSubset(of: done) }
            let pick = ready.randomElement(using: &random)!
            let index = waiting.remove(at: pick)
            order.append(index)
            done.insert(index)
            if Int.random(in: 0..<10, using: &random) == 0 { order.append(order.randomElement(using: &random)!) }
        }
        return order
    }

    /// The UTF-16 offsets between characters (never inside a surrogate pair), 0 and the end included.
    static func boundaries(of text: String) -> [Int] {
        var offsets = [0]
        var offset = 0
        for scalar in text.unicodeScalars {
            offset += scalar.utf16.count
            offsets.append(offset)
        }
        return offsets
    }

    /// How many histories a test runs: `LIVETEXT_HISTORIES` (`make torture` sets it), else `normal`.
    static func count(normal: Int) -> Int {
        ProcessInfo.processInfo.environment["LIVETEXT_HISTORIES"].flatMap(Int.init) ?? normal
    }

    /// The seeds to run: `LIVETEXT_SEED` alone when it is set (to replay one), else `count` from 1.
    static func seeds(count: Int) -> [UInt64] {
        if let seed = ProcessInfo.processInfo.environment["LIVETEXT_SEED"].flatMap(UInt64.init) { return [seed] }
        return (1...UInt64(count)).map { $0 }
    }
}
