import Foundation

/// The executables `make test` builds before the tests run.
public enum BuiltExecutable {
    /// The `byteclub` binary: `BYTECLUB_BIN`, else next to the test bundle (SwiftPM puts both in
    /// one folder), else `.build/debug` of this checkout.
    public static var byteclub: URL? {
        var candidates: [URL] = []
        if let override = ProcessInfo.processInfo.environment["BYTECLUB_BIN"] { candidates.append(URL(fileURLWithPath: override)) }
        candidates.append(Bundle.main.bundleURL.appendingPathComponent("byteclub"))
        candidates.append(Bundle.main.bundleURL.deletingLastPathComponent().appendingPathComponent("byteclub"))
        let repository = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        candidates.append(repository.appendingPathComponent(".build/debug/byteclub"))
        return candidates.first { FileManager.default.isExecutableFile(atPath: $0.path) }
    }
}
