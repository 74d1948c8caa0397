import ArgumentParser
import ClubKit
import Foundation
import Synchronization

/// How every failed command ends: one line on stderr, `byteclub: …`, the exit code a script
/// branches on (``Exit``), and with `--json` the same as `{"error": {...}}` on stdout, so a
/// script reading stdout as JSON never meets an empty or half-written answer.
public enum CLIError {
    /// Whether the command line asked for JSON (`--json` anywhere in it): set once in `main`,
    /// before any command runs.
    // nonisolated(unsafe): written once by `main` before any task starts, read only after.
    nonisolated(unsafe) public static var wantsJSON = false

    /// The last sentence `say` printed: a command that fails prints why, then throws its exit
    /// code, and the JSON error repeats that sentence.
    private static let lastSaid = Mutex<String?>(nil)

    static func said(_ message: String) { lastSaid.withLock { $0 = message } }

    /// Ends the process with `exit`, saying `message` first.
    public static func exit(_ exit: Exit, _ message: String) -> Never {
        say(message)
        finish(exit.rawValue)
    }

    /// Ends the process for an error out of parsing or running a command of `root` (the
    /// executable's command tree).
    public static func exit(_ error: any Error, arguments: [String], root: any ParsableCommand.Type) -> Never {
        let code = root.exitCode(for: error)
        if code == .success {
            // --help, --version, `help`: ArgumentParser prints them as it always does.
            root.exit(withError: error)
        }
        if error is ExitCode {
            // The command said why already (through `say`), then threw its code.
            finish(code.rawValue)
        }
        let message = root.message(for: error)
            .split(separator: "\n").map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
            .joined(separator: "; ")
        let command = arguments.first { word in root.configuration.subcommands.contains { $0._commandName == word } }
        let usage = code.rawValue == Exit.usage.rawValue ? " (byteclub help\(command.map { " " + $0 } ?? "") shows the usage)" : ""
        say((message.isEmpty ? "failed" : message) + usage)
        finish(code.rawValue)
    }

    private static func finish(_ status: Int32) -> Never {
        // Ctrl-C (130) is the user ending the command, as `watch` is ended: no error object
        // joins the lines already printed.
        if wantsJSON, status != 0, status != Exit.interrupted.rawValue {
            let name = Exit(rawValue: status).map { "\($0)" } ?? "failed"
            let object = ErrorJSON(error: .init(exitCode: status, kind: SnakeCase.of(name), message: lastSaid.withLock { $0 } ?? "failed"))
            if let data = try? CLIJSON.encode(object) { FileHandle.standardOutput.write(data + Data("\n".utf8)) }
        }
        Foundation.exit(status)
    }
}

/// `{"error": {"exit_code": 3, "kind": "not_found", "message": "…"}}` (docs/schemas/error.schema.json).
struct ErrorJSON: Encodable {
    struct Body: Encodable {
        var exitCode: Int32
        var kind: String
        var message: String
        enum CodingKeys: String, CodingKey { case exitCode = "exit_code", kind, message }
    }
    var error: Body
}

enum SnakeCase {
    /// "notFound" → "not_found".
    static func of(_ name: String) -> String {
        name.reduce(into: "") { text, character in
            if character.isUppercase { text += "_" + character.lowercased() } else { text.append(character) }
        }
    }
}

/// The name closest to a mistyped one (`lss` → `ls`), when one is close enough to be what was
/// meant: at most two edits, and fewer than half the word's letters.
public enum NearestName {
    public static func of(_ typed: String, among names: [String]) -> String? {
        let word = Array(typed.lowercased())
        let scored = names.map { ($0, distance(word, Array($0))) }.filter { $0.1 <= min(2, max(1, word.count / 2)) }
        return scored.min { $0.1 < $1.1 }?.0
    }

    /// Levenshtein's edit distance.
    static func distance(_ a: [Character], _ b: [Character]) -> Int {
        guard !a.isEmpty else { return b.count }
        guard !b.isEmpty else { return a.count }
        var previous = Array(0...b.count)
        for (i, x) in a.enumerated() {
            var current = [i + 1] + Array(repeating: 0, count: b.count)
            for (j, y) in b.enumerated() {
                current[j + 1] = Swift.min(previous[j + 1] + 1, current[j] + 1, previous[j] + (x == y ? 0 : 1))
            }
            previous = current
        }
        return previous[b.count]
    }
}
