import ArgumentParser
import ClubCLI
import XCTest

/// Every command names itself, so a start reflects on no type to find the names.
///
/// The argument parser builds the whole command tree on every start, and a command without a
/// `commandName` is named by `String(describing:)` of its type: a dynamic cast that scans every
/// protocol conformance in the binary, once per command. In `byteclub --version` that was
/// 23% of the process's cycles (`perf`, 2026-11-30).
final class CommandNamesTests: XCTestCase {
    func testEveryCommandInTheTreeNamesItselfOnceAndNoNameIsTakenTwice() {
        var seen: [String: [String]] = [:]
        var unnamed: [String] = []
        func walk(_ command: any ParsableCommand.Type, under parent: String) {
            let configuration = command.configuration
            guard let name = configuration.commandName else {
                unnamed.append("\(parent) \(command)")
                return
            }
            seen[parent, default: []].append(name)
            for sub in configuration.subcommands { walk(sub, under: parent + " " + name) }
        }
        for command in ClubCLI.commands { walk(command, under: "byteclub") }
        XCTAssertEqual(unnamed, [], "commands named only by their type")
        XCTAssertGreaterThan(seen["byteclub"]?.count ?? 0, 25)
        for (parent, names) in seen {
            XCTAssertEqual(Set(names).count, names.count, "\(parent) has a name twice: \(names.sorted())")
        }
        // The names users type, as the README and the help give them.
        let typed: Set = ["ls", "get", "put", "rm", "mv", "cp", "log", "restore", "watch", "cat", "links", "new", "edit", "today",
                          "import", "export", "members", "init", "rekey", "serve", "join"]
        XCTAssertEqual(typed.subtracting(seen["byteclub"] ?? []), [], "commands the README names that the tree lacks")
        XCTAssertEqual(Set(seen["byteclub members"] ?? []), ["add", "list", "role", "remove", "admit", "revoke", "keys"])
    }
}
