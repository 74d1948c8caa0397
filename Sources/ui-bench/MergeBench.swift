import Foundation
import ClubKit
import NoteMerge

/// The three-way merge on a 1 MiB note of 20,000 lines: two copies, each edited in its own
/// places (a clean merge) or partly in the same places (conflicts), merged as the app merges a
/// save that met another member's change.
@MainActor
enum MergeBench {
    static func run(iterations: Int) {
        var lines: [String] = []
        lines.reserveCapacity(20_000)
        for i in 0..<20_000 {
            lines.append("\(i): " + ["Grüße 你好 🎉 fizzbuzz in one line, ", "the quick brown fox jumps over the lazy dog; "][i % 2])
        }
        // Pad the lines, round and round, to 1 MiB in all.
        var total = lines.reduce(0) { $0 + $1.utf8.count + 1 }, column = 0
        while total < 1 << 20 {
            lines[column % lines.count] += "padding "
            total += 8
            column += 1
        }
        let base = lines.joined(separator: "\n") + "\n"
        let bytes = base.utf8.count

        // Each side: 300 changes, one every 66 lines (an insertion, a deletion, four edits in
        // turn), mine at line 3 of each stretch and theirs at line 36, so none touch; with
        // `clashing`, both also edit line 20 of every 15th stretch, differently: 20 conflicts.
        func edited(_ first: Int, clashing: Bool = false) -> String {
            var copy = lines
            for stretch in stride(from: 299, through: 0, by: -1) {
                let at = stretch * 66 + first
                if clashing, stretch % 15 == 0 { copy[stretch * 66 + 20] += " (clash \(first))" }
                switch stretch % 6 {
                case 0: copy.insert("new line \(stretch) from \(first)", at: at)
                case 1: copy.remove(at: at)
                default: copy[at] += " (edited \(first))"
                }
            }
            return copy.joined(separator: "\n") + "\n"
        }
        let mine = edited(3), theirs = edited(36)
        let mineClashing = edited(3, clashing: true), theirsClashing = edited(36, clashing: true)

        print("ui-bench merge: \(bytes / 1024) KiB note, \(lines.count) lines, 300 changes on each side, \(iterations) merges per scenario")
        print("")
        print(Bench.pad("scenario", 40) + Bench.pad("median ms", 12, right: true) + Bench.pad("p99 ms", 12, right: true) + Bench.pad("max ms", 12, right: true))
        print(String(repeating: "─", count: 76))
        scenario("clean (changes apart)", iterations: iterations) {
            guard case .merged(let text) = NoteMergeDriver.merge(base: base, mine: mine, theirs: theirs) else {
                preconditionFailure("the clean scenario must merge cleanly")
            }
            return text.utf8.count
        }
        scenario("20 conflicts, resolved", iterations: iterations) {
            guard case .overlapping(let result) = NoteMergeDriver.merge(base: base, mine: mineClashing, theirs: theirsClashing) else {
                preconditionFailure("the clashing scenario must overlap")
            }
            precondition(result.conflictCount == 20, "expected 20 conflicts, got \(result.conflictCount)")
            return result.resolved(Array(repeating: .both, count: result.conflictCount)).utf8.count
        }
        scenario("one side unchanged", iterations: iterations) {
            guard case .merged(let text) = NoteMergeDriver.merge(base: base, mine: mine, theirs: base) else {
                preconditionFailure("a side unchanged must merge cleanly")
            }
            return text.utf8.count
        }
    }

    private static func scenario(_ name: String, iterations: Int, _ body: () -> Int) {
        var times: [Double] = []
        var sink = 0
        for _ in 0..<iterations {
            let start = DispatchTime.now().uptimeNanoseconds
            sink &+= body()
            times.append(Double(DispatchTime.now().uptimeNanoseconds - start) / 1e6)
        }
        times.sort()
        let median = times[times.count / 2], p99 = times[min(times.count - 1, times.count * 99 / 100)], max = times.last ?? 0
        print(Bench.pad(name, 40) + Bench.pad(String(format: "%.2f", median), 12, right: true) + Bench.pad(String(format: "%.2f", p99), 12, right: true)
            + Bench.pad(String(format: "%.2f", max), 12, right: true) + (sink == 42 ? " " : ""))
    }
}
