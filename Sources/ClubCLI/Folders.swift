import ClubKit
import Foundation
import Remote

extension FolderTransfer {
    /// A folder transfer for a command: its progress on one line of stderr ("12 files [██··]"),
    /// each copy of its dry run on stdout ("would get A → B").
    static func command(on backend: Backend, streams: Int?, dryRun: Bool, verb: String, progress: FilesProgress) -> FolderTransfer {
        backend.folderTransfer(streams: streams, dryRun: dryRun, progress: { progress.update(files: $0, $1, $2) }, wouldCopy: { from, to in
            FileHandle.standardOutput.write(Data("would \(verb) \(TerminalSafe.escape(from)) → \(TerminalSafe.escape(to))\n".utf8))
        })
    }

    /// "3 sent (1.2 MiB), 197 already the same" on stderr, and the names refused.
    static func report(_ tally: Tally, verb: String, dryRun: Bool) {
        for refusal in tally.refused { say(refusal) }
        let sent = dryRun ? "\(tally.sent) would be \(verb)" : "\(tally.sent) \(verb) (\(ProgressLine.bytes(tally.bytes)))"
        say("\(sent), \(tally.skipped) already the same")
    }
}

/// A ``ProgressLine`` labelled with the number of files, made when the first progress tells it.
final class FilesProgress: @unchecked Sendable {
    // @unchecked Sendable: `line` is only touched under `lock`.
    private let lock = NSLock()
    private var line: ProgressLine?

    func update(files: Int, _ done: Int64, _ total: Int64) {
        let line = lock.withLock {
            if self.line == nil { self.line = ProgressLine("\(files) file\(files == 1 ? "" : "s")") }
            return self.line
        }
        line?.update(done, total)
    }

    func finish() { lock.withLock { line }?.finish() }
}
