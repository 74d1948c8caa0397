import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// The scratch folders of this process's targets (a club folder, a search index), removed when
/// the process exits: the replay test runs inside `make test`'s process and must leave nothing
/// behind in `$TMPDIR`, and neither should a fuzzing run.
enum FuzzScratch {
    static let names = ["byteclub-fuzz", "byteclub-fuzz-search"]

    /// `$TMPDIR/<name>-<pid>`, emptied; removed again at exit.
    static func folder(_ name: String) -> URL {
        _ = removedAtExit
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("\(name)-\(getpid())")
        try? FileManager.default.removeItem(at: folder)
        return folder
    }

    private static let removedAtExit: Void = {
        atexit {
            for name in FuzzScratch.names {
                try? FileManager.default.removeItem(at: FileManager.default.temporaryDirectory.appendingPathComponent("\(name)-\(getpid())"))
            }
        }
    }()
}
