import Foundation
import XCTest

/// What a test throws when it could not check what it meant to: a command that did not finish by
/// its deadline, a server that did not start, an answer it did not expect.
///
/// XCTest records a thrown error as a failure. A skip here would read as a pass (a hang would turn
/// green), so these are never `XCTSkip`: SQLite's and rclone's suites fail loudly on what they
/// could not check, and so does ours.
public struct CouldNotCheck: Error, CustomStringConvertible {
    public let description: String
    public init(_ description: String) { self.description = description }
}

/// What a test needs from the machine rather than from byteclub.
public enum Requirement {
    /// Whether this run is CI's (`.ci/run` sets `CI=1`, and so do GitHub's runners).
    public static var underCI: Bool { underCI(ProcessInfo.processInfo.environment) }

    static func underCI(_ environment: [String: String]) -> Bool {
        let value = environment["CI"] ?? ""
        return !value.isEmpty && value != "0" && value.lowercased() != "false"
    }

    /// A tool that may be missing from a developer's machine (`make deps` installs it): without it
    /// the test is skipped, except under CI, where every tool has been installed and a skip would
    /// hide a missing install step, so it fails.
    public static func tool(_ present: Bool, _ message: @autoclosure () -> String,
                            environment: [String: String] = ProcessInfo.processInfo.environment) throws {
        guard !present else { return }
        if underCI(environment) { throw CouldNotCheck("\(message()), and under CI every tool is installed (make deps)") }
        throw XCTSkip(message())
    }

    /// `tool(_:_:)` for a tool found as a value (its path): the value, or a skip (a failure under CI).
    public static func tool<T>(_ found: T?, _ message: @autoclosure () -> String) throws -> T {
        guard let found else {
            try tool(false, message())
            throw CouldNotCheck(message())
        }
        return found
    }

    /// A capability of the machine rather than a tool (a file system's range of times, the right to
    /// mount): skipped where the machine lacks it, failed under CI, whose machine has it.
    public static func machine(_ present: Bool, _ message: @autoclosure () -> String,
                               environment: [String: String] = ProcessInfo.processInfo.environment) throws {
        guard !present else { return }
        if underCI(environment) { throw CouldNotCheck("\(message()), and CI's machine must be able to") }
        throw XCTSkip(message())
    }

    /// The `byteclub` binary `make test` builds; a test that cannot find it fails, since a missing
    /// binary means the build did not run, not that the machine lacks something.
    public static func byteclub() throws -> URL {
        guard let executable = BuiltExecutable.byteclub else {
            throw CouldNotCheck("the byteclub executable is not built (run `make test`)")
        }
        return executable
    }
}
