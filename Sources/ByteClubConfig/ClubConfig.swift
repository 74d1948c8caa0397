import Foundation
import TOMLKit

/// `$XDG_CONFIG_HOME/byteclub/config.toml`: named remotes, and the one used when no backend flag
/// is given.
///
/// ```toml
/// default = "club"
/// [remote.club]
/// type = "club"
/// url = "http://192.168.1.20:8421"
/// token_command = "pass show byteclub/club"
/// ```
///
/// Parsed with TOMLKit (toml++), then checked strictly: an unknown key, a key of the wrong type, a
/// key another type of remote uses, a missing `url` or a `default` that names no remote is an
/// error naming the file, the line and the key, because a typo silently ignored would send a
/// token to the wrong place or files to the wrong folder.
public struct ClubConfig: Sendable, Equatable {
    /// Where it was read from; every message names it.
    public var file: URL
    /// The remote used when no backend flag is given.
    public var defaultName: String?
    /// By name.
    public var remotes: [String: RemoteConfig]
    /// What saving adds to a new note's title without an extension: `md` (notes are Markdown)
    /// or `txt` (`new_note_extension = "txt"`, the old way).
    public var newNoteExtension = ClubConfig.defaultNoteExtension
    /// The editor draws line numbers (`line_numbers = true`; `Alt-N` toggles and writes it).
    public var lineNumbers = false
    /// Long lines wrap in the editor (`soft_wrap = false`: they scroll sideways; `Alt-W`).
    public var softWrap = true
    /// Notes open live on a club server (`live_editing = false`: never; saves and merges as before).
    public var liveEditing = true
    /// `byteclub today`'s notes: `daily_folder` and `daily_format`.
    public var daily = DailyNotes()
    /// The file's text, kept to find the line of a key for a later message (a failing
    /// `token_command`). It may hold a `token`: it is never printed.
    public var text: String

    public init(file: URL, defaultName: String?, remotes: [String: RemoteConfig], text: String) {
        self.file = file
        self.defaultName = defaultName
        self.remotes = remotes
        self.text = text
    }

    public static let defaultNoteExtension = "md"
    /// The values `new_note_extension` may take.
    public static let noteExtensions = ["md", "txt"]

    /// The keys the top level may hold besides `[remote.NAME]` tables.
    static let topLevelKeys = ["default", "remote", "new_note_extension", "line_numbers", "soft_wrap", "live_editing", "daily_folder", "daily_format"]

    /// The remotes sorted by name, as `byteclub remotes` lists them.
    public var sortedRemotes: [RemoteConfig] { remotes.values.sorted { $0.name < $1.name } }

    /// The config at `file`, or nil when there is none.
    public static func load(from file: URL, home: URL) throws(ConfigError) -> ClubConfig? {
        guard FileManager.default.fileExists(atPath: file.path) else { return nil }
        guard let data = FileManager.default.contents(atPath: file.path) else {
            throw ConfigError(file: file, line: nil, key: nil, message: "cannot read the config file")
        }
        guard let text = String(data: data, encoding: .utf8) else {
            throw ConfigError(file: file, line: nil, key: nil, message: "the config file is not UTF-8 text")
        }
        return try parse(text, file: file, home: home)
    }

    /// Parses and checks `text`; `file` is only named in messages, `home` is what `~/` means.
    public static func parse(_ text: String, file: URL, home: URL) throws(ConfigError) -> ClubConfig {
        // TOML allows no control character but tab outside a line's end; toml++ assumes as much
        // of a table header (a fuzzer's finding: `[\u{1}…` broke its assumption, which a release
        // build compiles to undefined behaviour), so they are refused before it reads a byte.
        for (index, line) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            if let bad = line.unicodeScalars.first(where: { ($0.value < 0x20 && $0 != "\t" && $0 != "\r") || $0.value == 0x7F }) {
                let code = "U+" + String(bad.value, radix: 16, uppercase: true).leftPadded(to: 4)
                throw ConfigError(file: file, line: index + 1, key: nil, message: "not valid TOML: a control character (\(code)) is not allowed")
            }
            // toml++ reads a key after `[` (or `[[`) without checking there is one: `[#x]` broke
            // its assumption as a control character did. A name must follow: bare or quoted.
            if let bracket = line.drop(while: { $0 == " " || $0 == "\t" }).first, bracket == "[" {
                // `[name]` or `[[name]]`: one bracket, blanks, at most one more bracket, blanks.
                let blank: (Character) -> Bool = { $0 == " " || $0 == "\t" }
                var name = line.drop(while: blank).dropFirst().drop(while: blank)
                if name.first == "[" { name = name.dropFirst().drop(while: blank) }
                let first = name.unicodeScalars.first ?? "\n"
                if !((first.isASCII && first.properties.isAlphabetic) || ("0"..."9").contains(first)
                    || ["_", "-", "\"", "'", "]"].contains(first)) {
                    throw ConfigError(file: file, line: index + 1, key: nil,
                                      message: "not valid TOML: a table header needs a name, e.g. [remote.club]")
                }
            }
        }
        let document: TOMLTable
        do {
            document = try TOMLTable(string: text)
        } catch let error as TOMLParseError {
            throw ConfigError(file: file, line: error.source.begin.line, key: nil, message: "not valid TOML: \(error.description)")
        } catch {
            throw ConfigError(file: file, line: nil, key: nil, message: "not valid TOML: \(error)")
        }
        var checker = ConfigChecker(file: file, text: text, home: home)
        let config = checker.check(document)
        if let error = checker.error { throw error }
        return config
    }

    /// The remote named `name`, or an error listing the ones there are.
    public func remote(named name: String, key: String? = nil) throws(ConfigError) -> RemoteConfig {
        if let remote = remotes[name] { return remote }
        let known = remotes.isEmpty ? "it has none" : "it has " + sortedRemotes.map(\.name).joined(separator: ", ")
        let line = key.flatMap { ConfigLines.line(of: [$0], in: text) }
        throw ConfigError(file: file, line: line, key: key, message: "no remote named \"\(name)\" (\(known))")
    }
}

/// One `[remote.NAME]` table.
public struct RemoteConfig: Sendable, Equatable {
    /// What the remote speaks.
    public enum Kind: String, Sendable, CaseIterable {
        /// A `byteclub serve` (the Dropbox v2 subset), with a bearer token.
        case club
        /// Any WebDAV server, with a user and a password.
        case webdav
        /// Your Dropbox, after `byteclub login dropbox`.
        case dropbox

        /// The keys a remote of this type may have; any other is an error.
        public var keys: [String] {
            let common = ["type", "folder", "download_dir"]
            switch self {
            case .club: return common + ["url", "token", "token_command", "token_file", "pin"]
            case .webdav: return common + ["url", "user", "password_command"]
            case .dropbox: return common
            }
        }
    }

    public var name: String
    public var kind: Kind
    public var url: URL?
    public var user: String?
    /// A token written in the file itself (the file should then be private to you).
    public var token: String?
    /// A shell command whose first line of output is the token.
    public var tokenCommand: String?
    /// A file (0600) whose first line is the token: where `byteclub join` keeps it.
    public var tokenFile: URL?
    /// The club server's key, `sha256//BASE64` (from its invite, or confirmed on first use):
    /// connections accept that key and no other.
    public var pin: String?
    /// A shell command whose first line of output is the WebDAV password.
    public var passwordCommand: String?
    /// The app folder: notes in it, photos in its `photos` folder.
    public var folder: String = "/byteclub"
    /// Where the UI saves downloaded photos (nil: the default, or `--download-dir`).
    public var downloadDirectory: URL?

    public init(name: String, kind: Kind, url: URL? = nil, user: String? = nil, token: String? = nil, tokenCommand: String? = nil,
                passwordCommand: String? = nil, folder: String = "/byteclub", downloadDirectory: URL? = nil) {
        self.name = name
        self.kind = kind
        self.url = url
        self.user = user
        self.token = token
        self.tokenCommand = tokenCommand
        self.passwordCommand = passwordCommand
        self.folder = folder
        self.downloadDirectory = downloadDirectory
    }
}

/// A config problem: the file, the line and the key, and what is wrong. Exit status 2.
public struct ConfigError: Error, Equatable, CustomStringConvertible {
    public var file: URL
    public var line: Int?
    public var key: String?
    public var message: String

    public init(file: URL, line: Int?, key: String?, message: String) {
        self.file = file
        self.line = line
        self.key = key
        self.message = message
    }

    /// `/home/ray/.config/byteclub/config.toml:4: key "tpye" …`: the form editors jump to.
    public var description: String {
        file.path + (line.map { ":\($0)" } ?? "") + ": " + message
    }
}

/// Walks a parsed document, building the config and keeping the first problem in file order.
private struct ConfigChecker {
    let file: URL
    let text: String
    /// What `~` in `download_dir` stands for.
    let home: URL
    private(set) var error: ConfigError?

    init(file: URL, text: String, home: URL) {
        self.file = file
        self.text = text
        self.home = home
    }

    /// Records a problem at `path`'s line; of several, the earliest in the file wins, so the
    /// message is the one a reader meets first.
    mutating func problem(_ path: [String], _ message: String) {
        let line = ConfigLines.line(of: path, in: text)
        let found = ConfigError(file: file, line: line, key: path.joined(separator: "."), message: message)
        if let current = error, (current.line ?? .max) <= (line ?? .max) { return }
        error = found
    }

    mutating func check(_ document: TOMLTable) -> ClubConfig {
        var config = ClubConfig(file: file, defaultName: nil, remotes: [:], text: text)
        for key in document.keys {
            guard let value = document[key] else { continue }
            switch key {
            case "default":
                if let name = value.string { config.defaultName = name } else { wrongType(["default"], value, "a string naming a remote") }
            case "remote":
                guard let table = value.table else {
                    wrongType(["remote"], value, "tables, one per remote: [remote.NAME]")
                    continue
                }
                for name in table.keys {
                    guard let remote = table[name]?.table else {
                        problem(["remote", name], "remote.\(name) must be a table: write [remote.\(name)] and its keys under it")
                        continue
                    }
                    if let checked = check(remote: remote, named: name) { config.remotes[name] = checked }
                }
            case "new_note_extension":
                if let ext = value.string, ClubConfig.noteExtensions.contains(ext) {
                    config.newNoteExtension = ext
                } else if value.string != nil {
                    problem([key], "new_note_extension must be \"md\" or \"txt\", not that string")
                } else {
                    wrongType([key], value, "\"md\" or \"txt\"")
                }
            case "line_numbers", "soft_wrap", "live_editing":
                guard let flag = value.bool else {
                    wrongType([key], value, "true or false")
                    continue
                }
                switch key {
                case "line_numbers": config.lineNumbers = flag
                case "soft_wrap": config.softWrap = flag
                default: config.liveEditing = flag
                }
            case "daily_folder":
                if let folder = value.string {
                    if let why = DailyNotes.folderProblem(folder) { problem([key], why) } else { config.daily.folder = folder }
                } else {
                    wrongType([key], value, "a folder inside the club's folder, e.g. \"daily\"")
                }
            case "daily_format":
                if let format = value.string {
                    if let why = DailyNotes.formatProblem(format) { problem([key], why) } else { config.daily.format = format }
                } else {
                    wrongType([key], value, "a strftime format, e.g. \"%Y-%m-%d\"")
                }
            default:
                let hint = Self.nearest(key, in: ClubConfig.topLevelKeys).map { "did you mean \($0)? " } ?? ""
                problem([key], "unknown key \"\(key)\" (\(hint)the top level has only default, new_note_extension, line_numbers, soft_wrap, daily_folder, daily_format and [remote.NAME] tables)")
            }
        }
        if let name = config.defaultName, config.remotes[name] == nil, error == nil {
            let known = config.remotes.isEmpty ? "there are none" : "there are " + config.sortedRemotes.map(\.name).joined(separator: ", ")
            problem(["default"], "default = \"\(name)\" names no remote (\(known))")
        }
        return config
    }

    /// One remote's table, or nil when it has a problem (recorded).
    mutating func check(remote table: TOMLTable, named name: String) -> RemoteConfig? {
        let path = ["remote", name]
        guard let typeValue = table["type"] else {
            problem(path, "remote \"\(name)\" needs a type: type = \"club\", \"webdav\" or \"dropbox\"")
            return nil
        }
        guard let typeName = typeValue.string, let kind = RemoteConfig.Kind(rawValue: typeName) else {
            problem(path + ["type"], "type must be \"club\", \"webdav\" or \"dropbox\", not \(Self.shown(typeValue))")
            return nil
        }
        var remote = RemoteConfig(name: name, kind: kind)
        let problemsBefore = error
        for key in table.keys where key != "type" {
            guard let value = table[key] else { continue }
            guard kind.keys.contains(key) else {
                if RemoteConfig.Kind.allCases.contains(where: { $0.keys.contains(key) }) {
                    problem(path + [key], "\(key) is not used by a \(kind.rawValue) remote (its keys: \(kind.keys.joined(separator: ", ")))")
                } else {
                    let hint = Self.nearest(key, in: kind.keys).map { "did you mean \($0)? " } ?? ""
                    problem(path + [key], "unknown key \"\(key)\" in [remote.\(name)] (\(hint)its keys: \(kind.keys.joined(separator: ", ")))")
                }
                continue
            }
            guard let string = value.string else {
                wrongType(path + [key], value, "a string")
                continue
            }
            switch key {
            case "url": remote.url = checkedURL(string, at: path + [key])
            case "user": remote.user = string
            case "token": remote.token = string
            case "token_command": remote.tokenCommand = string
            case "token_file": remote.tokenFile = checkedFile(string, at: path + [key])
            case "pin": remote.pin = checkedPin(string, at: path + [key])
            case "password_command": remote.passwordCommand = string
            case "folder": remote.folder = checkedFolder(string, at: path + [key])
            case "download_dir": remote.downloadDirectory = checkedDirectory(string, at: path + [key])
            default: break
            }
        }
        // What is missing is checked only when nothing else is wrong: `ulr = …` is a typo to
        // point at, not a missing url.
        guard error == problemsBefore else { return nil }
        if kind != .dropbox, table["url"] == nil {
            problem(path, "remote \"\(name)\" (type \(kind.rawValue)) needs a url, e.g. url = \"\(kind == .club ? "http://192.168.1.20:8421" : "https://cloud.example.org/remote.php/dav/files/NAME/")\"")
        }
        if kind == .webdav, table["user"] == nil {
            problem(path, "remote \"\(name)\" (type webdav) needs a user, e.g. user = \"ray\"")
        }
        if [table["token"], table["token_command"], table["token_file"]].compactMap({ $0 }).count > 1 {
            problem(path + ["token_command"], "remote \"\(name)\" has more than one of token, token_command and token_file; keep one")
        }
        if remote.pin != nil, remote.url?.scheme?.lowercased() != "https" {
            problem(path + ["pin"], "remote \"\(name)\" has a pin but its url is not https://; a pinned club is never reached over plain HTTP")
        }
        return error == problemsBefore ? remote : nil
    }

    /// An absolute file path (`~/` meaning the home folder).
    mutating func checkedFile(_ text: String, at path: [String]) -> URL? {
        let expanded = text == "~" || text.hasPrefix("~/") ? home.path + text.dropFirst() : text
        guard expanded.hasPrefix("/") else {
            problem(path, "\(path.last ?? "the file") must be an absolute path or start with ~/")
            return nil
        }
        return URL(fileURLWithPath: expanded)
    }

    /// A pin as curl takes it: `sha256//` and the base64 of 32 bytes.
    mutating func checkedPin(_ text: String, at path: [String]) -> String? {
        guard text.hasPrefix("sha256//"), Data(base64Encoded: String(text.dropFirst(8)))?.count == 32 else {
            problem(path, "pin must be sha256// and a base64 SHA-256, as `byteclub serve` prints it, not \(text.debugDescription)")
            return nil
        }
        return text
    }

    /// The known key `key` is most likely a typo of (at most two edits away), or nil.
    static func nearest(_ key: String, in known: [String]) -> String? {
        let typed = Array(key.lowercased())
        func distance(_ other: String) -> Int {
            let target = Array(other)
            var previous = Array(0...target.count)
            for (i, a) in typed.enumerated() {
                var current = [i + 1]
                for (j, b) in target.enumerated() {
                    current.append(min(previous[j + 1] + 1, current[j] + 1, previous[j] + (a == b ? 0 : 1)))
                }
                previous = current
            }
            return previous[target.count]
        }
        return known.map { ($0, distance($0)) }.filter { $0.1 <= 2 }.min { $0.1 < $1.1 }?.0
    }

    mutating func wrongType(_ path: [String], _ value: any TOMLValueConvertible, _ expected: String) {
        problem(path, "\(path.last ?? "") must be \(expected), not \(Self.shown(value))")
    }

    /// What a wrong value is, for a message. A string's text is left out: it may be a secret.
    static func shown(_ value: any TOMLValueConvertible) -> String {
        value.type == .string ? "that string" : "a TOML \(value.type.description)"
    }

    mutating func checkedURL(_ text: String, at path: [String]) -> URL? {
        guard let url = URL(string: text), let scheme = url.scheme?.lowercased(), ["http", "https"].contains(scheme),
              let host = url.host, !host.isEmpty else {
            problem(path, "url must be an http:// or https:// URL, e.g. http://192.168.1.20:8421")
            return nil
        }
        // A password in the URL would be listed by `byteclub remotes` and sent wherever the URL goes.
        if url.user != nil || url.password != nil {
            problem(path, "url must not hold a user or password: use user and password_command (or token_command)")
            return nil
        }
        return url
    }

    mutating func checkedFolder(_ text: String, at path: [String]) -> String {
        guard text.hasPrefix("/"), !text.split(separator: "/").contains(where: { $0 == "." || $0 == ".." }) else {
            problem(path, "folder must be a path in the remote from its root, e.g. folder = \"/byteclub\"")
            return "/byteclub"
        }
        return remotePath(text)
    }

    mutating func checkedDirectory(_ text: String, at path: [String]) -> URL? {
        var expanded = text
        if expanded == "~" || expanded.hasPrefix("~/") { expanded = home.path + expanded.dropFirst() }
        guard expanded.hasPrefix("/") else {
            problem(path, "download_dir must be an absolute path or start with ~/, e.g. download_dir = \"~/Downloads/club\"")
            return nil
        }
        return URL(fileURLWithPath: expanded, isDirectory: true)
    }
}

/// "/a/b" from what a user typed: "a/b", "/a/b/", "" or "/".
public func remotePath(_ text: String) -> String {
    var path = text.trimmingCharacters(in: .whitespaces)
    while path.hasSuffix("/") { path.removeLast() }
    if path.isEmpty { return "" }
    return path.hasPrefix("/") ? path : "/" + path
}

private extension String {
    func leftPadded(to width: Int) -> String { String(repeating: "0", count: max(0, width - count)) + self }
}
