import ByteClubConfig
import ArgumentParser
import ClubKit
import Foundation
import Remote

/// `byteclub remotes`: the named remotes of config.toml, never their secrets.
struct Remotes: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "remotes",
        abstract: "List the named remotes of the config file.",
        discussion: "Remotes are [remote.NAME] tables in $XDG_CONFIG_HOME/byteclub/config.toml; pick one with --remote NAME on any command. `default = \"NAME\"` is used when no backend flag is given.")
    @Flag(help: "Print JSON, one array of remotes.") var json = false

    /// One listed remote: what `--json` prints. No token, password or command: a command line
    /// can hold a secret as easily as its output.
    struct Listed: Encodable, Equatable {
        var name: String
        var type: String
        var url: String?
        var user: String?
        var folder: String
        var downloadDir: String?
        var isDefault: Bool

        enum CodingKeys: String, CodingKey {
            case name, type, url, user, folder
            case downloadDir = "download_dir"
            case isDefault = "default"
        }
    }

    func run() async throws {
        let config: ClubConfig?
        do {
            config = try ClubConfig.load()
        } catch {
            throw Self.exit(error)
        }
        guard let config else {
            if json {
                print("[]")
            } else {
                print("No remotes: there is no config file at \(Paths.config.path).")
                print("Write one like this, then use --remote NAME (or default = \"NAME\"):\n\n" + Self.example)
            }
            return
        }
        let listed = Self.listed(config)
        if json {
            try CLIJSON.print(listed)
            return
        }
        print(Self.table(listed), terminator: "")
        if listed.isEmpty { print("No remotes in \(config.file.path).") }
    }

    static func listed(_ config: ClubConfig) -> [Listed] {
        config.sortedRemotes.map { remote in
            Listed(name: remote.name, type: remote.kind.rawValue, url: remote.url?.absoluteString, user: remote.user, folder: remote.folder,
                   downloadDir: remote.downloadDirectory?.path, isDefault: remote.name == config.defaultName)
        }
    }

    /// Aligned columns, the default marked with `*`; names and URLs escaped as `ls` escapes them.
    static func table(_ listed: [Listed]) -> String {
        guard !listed.isEmpty else { return "" }
        var rows = [["", "NAME", "TYPE", "URL", "USER", "FOLDER"]]
        for remote in listed {
            let cells = [remote.isDefault ? "*" : "", remote.name, remote.type, remote.url ?? "", remote.user ?? "", remote.folder]
            rows.append(cells.map { TerminalSafe.escape($0) })
        }
        var widths = [Int](repeating: 0, count: rows[0].count)
        for row in rows {
            for (column, cell) in row.enumerated() { widths[column] = max(widths[column], cell.count) }
        }
        var text = ""
        for row in rows {
            var line = ""
            for (column, cell) in row.enumerated() {
                line += column == 0 ? cell : "  " + cell
                if column < row.count - 1 { line += String(repeating: " ", count: widths[column] - cell.count) }
            }
            while line.hasSuffix(" ") { line.removeLast() }
            text += line + "\n"
        }
        return text
    }

    /// Prints a config problem and gives exit status 2.
    static func exit(_ error: ConfigError) -> ExitCode { error.said() }

    static let example = """
        default = "club"

        [remote.club]
        type = "club"                 # a byteclub serve
        url = "http://192.168.1.20:8421"
        token_command = "pass show byteclub/club"

        [remote.cloud]
        type = "webdav"
        url = "https://cloud.example.org/remote.php/dav/files/ray/"
        user = "ray"
        password_command = "pass show nextcloud"
        folder = "/byteclub"          # the app folder (the default)
        download_dir = "~/Downloads/cloud"

        [remote.dropbox]
        type = "dropbox"              # after `byteclub login dropbox`

        """
}

extension ConfigError {
    /// Says the problem (its file, line and key) and gives exit status 2.
    public func said() -> ExitCode {
        say(description)
        return ExitCode(2)
    }
}
