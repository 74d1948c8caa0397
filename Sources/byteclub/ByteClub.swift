import ArgumentParser
import ClubCLI
import ClubKit
import Foundation
import TerminalUI

/// The byteclub command line.
@main
struct ByteClub: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "byteclub",
        abstract: "A terminal client for a club's shared folder of notes and photos.",
        discussion: "Run with no arguments for the terminal UI on an embedded club server. `byteclub serve` shares a folder with your club over the Dropbox v2 API subset. ls, get, put, rm, mv and cp script a club folder, log and restore reach its earlier revisions, and watch prints its changes as they happen: the embedded one (--data-dir), a club server (--server, --token), a WebDAV folder (--webdav, --user) or your Dropbox (--dropbox, after `byteclub login dropbox`), or one named in $XDG_CONFIG_HOME/byteclub/config.toml (--remote NAME; its `default` when no other is given; `byteclub remotes` lists them). Options may come before the command or after it: `byteclub --remote club ls` and `byteclub ls --remote club` are the same.",
        version: ClubCLI.version,
        subcommands: [Open.self] + ClubCLI.commands,
        defaultSubcommand: Open.self
    )

    /// Parses with the subcommand moved in front of options written before it, then runs.
    ///
    /// Every way out that is not a success says one line, `byteclub: …` (ArgumentParser's own
    /// complaints too, with the usage left to `byteclub help COMMAND`), and with `--json` also
    /// `{"error": {...}}` on stdout (``CLIError``).
    static func main() async {
        // Before any thread allocates: the app, the server and the commands alike (a streamed
        // `ls` of an endless listing stays in its bound however many threads allocate at once).
        ProcessMemory.limitMallocArenas()
        // What an older byteclub kept under the umask is private from the first command on.
        Paths.protectOwnFolders()
        let arguments = Array(CommandLine.arguments.dropFirst())
        CLIError.wantsJSON = arguments.contains("--json")
        if let unknown = SubcommandOrder.unknownCommand(arguments) {
            let names = configuration.subcommands.filter { $0.configuration.shouldDisplay && $0 != Open.self }.map { $0._commandName }
            let guess = NearestName.of(unknown, among: names).map { "did you mean \($0)? " } ?? ""
            CLIError.exit(.usage, "'\(unknown)' is not a byteclub command; \(guess)the commands are: "
                + names.joined(separator: ", ") + " (byteclub help COMMAND for one)")
        }
        let (arranged, parsed) = SubcommandOrder.arranged(arguments)
        do {
            // Parsed once: building the command tree is a good part of a start (issue 56).
            var command: any ParsableCommand
            if let parsed { command = try parsed.get() } else { command = try parseAsRoot(arranged) }
            if var asynchronous = command as? any AsyncParsableCommand {
                try await asynchronous.run()
            } else {
                try command.run()
            }
        } catch {
            CLIError.exit(error, arguments: arranged, root: ByteClub.self)
        }
    }
}

/// `byteclub --server URL --token T ls` as `byteclub ls --server URL --token T`.
///
/// ArgumentParser reads options before a subcommand's name as the default subcommand's (the
/// app's), and then refuses the name as a stray argument. Scripts and the README write the
/// connection first, as with dbxcli and rclone, so a command line that does not parse as written
/// is tried again with a subcommand's name moved to the front, each in turn (and when no order
/// parses, the first such order, so the error is that command's).
/// A line that parses as written is never rearranged (a remote named "ls" stays a value), and
/// one that does not start with an option is never tried twice: the order only matters when
/// options come first.
enum SubcommandOrder {
    /// The line to run, and its command when trying it already parsed it.
    static func arranged(_ arguments: [String]) -> (arguments: [String], parsed: Result<any ParsableCommand, any Error>?) {
        guard let first = arguments.first, first.hasPrefix("-") else { return (arguments, nil) }
        if let parsed = parses(arguments) { return (arguments, parsed) }
        let names = Set(ByteClub.configuration.subcommands.map { $0._commandName })
        var fallback: [String]?
        for index in arguments.indices.dropFirst() where names.contains(arguments[index]) {
            var candidate = arguments
            candidate.remove(at: index)
            candidate.insert(arguments[index], at: 0)
            if let parsed = parses(candidate) { return (candidate, parsed) }
            fallback = fallback ?? candidate
        }
        // Wrong either way: the command's own complaint says more than the app's "unexpected 'ls'".
        return (fallback ?? arguments, nil)
    }

    /// The first word when it names no command: `byteclub lss` would otherwise be read as the
    /// app's (the default command's) stray argument, and answered with the app's usage.
    static func unknownCommand(_ arguments: [String]) -> String? {
        guard let first = arguments.first, !first.hasPrefix("-"), first != "help" else { return nil }
        let names = Set(ByteClub.configuration.subcommands.map { $0._commandName })
        return names.contains(first) ? nil : first
    }

    /// The line's command when it parses, nil when it does not; a request for help or the
    /// version counts as parsing (a clean exit), its error kept for the caller to throw.
    private static func parses(_ arguments: [String]) -> Result<any ParsableCommand, any Error>? {
        do {
            return .success(try ByteClub.parseAsRoot(arguments))
        } catch {
            return ByteClub.exitCode(for: error) == .success ? .failure(error) : nil
        }
    }
}
