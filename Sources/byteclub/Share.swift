import ByteClubConfig
import ArgumentParser
import DropboxWire
import ClubKit
import Foundation
import Remote

/// `byteclub share PATH [--expires 7d]`, `byteclub share --list [--json]`: public links to a
/// club's files for people outside it.
struct Share: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Make a public link to a file (or list the links).",
        discussion: """
            Prints the link's URL. Anyone with it can download the file, without a token, until \
            it expires or `byteclub unshare URL` ends it; deleting the file ends it too. A file \
            that has a link already gets that one back (with its own expiry). --expires takes a \
            duration (30m, 12h, 7d, 2w) or a date (2026-12-31, midnight UTC, or \
            2026-12-31T18:00:00Z). WebDAV servers cannot make share links.
            """)
    @Argument(help: "The file to share: a path in the club's folder, a note's title, /PATH or NAME:PATH.") var path: String?
    @Option(help: "When the link stops working: 30m, 12h, 7d, 2w, or a date.") var expires: String?
    @Flag(help: "List the club's links instead.") var list = false
    @Flag(help: "Print JSON: the link (or with --list, one array of links).") var json = false
    @Flag(help: "In an encrypted club: publish a decrypted copy, readable by the server and by anyone with the link.") var decrypted = false
    @OptionGroup var backend: BackendOptions

    mutating func validate() throws {
        if var typed = path {
            typed = try backend.takeRemote(from: typed)
            path = typed
        }
        if list {
            guard path == nil, expires == nil else { throw ValidationError("--list takes no PATH and no --expires") }
        } else {
            guard let path, !path.isEmpty else { throw ValidationError("say which file to share: byteclub share PATH") }
            if let expires { _ = try LinkExpiry.parse(expires, now: Date()) }
        }
    }

    func run() async throws {
        let (list, json, decrypted) = (self.list, self.json, self.decrypted)
        let typed = backend.clubPath(path ?? "")
        let expiry = try expires.map { try LinkExpiry.parse($0, now: Date()) }
        let asked = expires != nil
        try await runRemote(backend, path: typed) { backend in
            let store = try sharingStore(backend.store)
            if !list, backend.embeddedRoot != nil {
                // The embedded club's server ends with this command, and the next one listens on
                // another port: a link made here would be dead before anyone opened it.
                throw RemoteError.notSupported("share links on the embedded club, which is served only while a byteclub command runs; share its folder with `byteclub serve --root DIR` (DIR: the embedded club's folder, --data-dir's) and make links there")
            }
            if list {
                var links = try await store.sharedLinks(nil)
                // The server names each file in lower case (Dropbox's `path_lower`); people and
                // `path_display` want it as the club spells it.
                for index in links.indices {
                    if let path = links[index].path, let entry = try? await backend.store.metadata(path) { links[index].path = entry.path }
                }
                if json { return try CLIJSON.print(links.map(LinkJSON.init)) }
                FileHandle.standardOutput.write(Data(Self.lines(links).utf8))
                return
            }
            let target = try await notePath(typed, on: backend)
            guard decrypted || !store.sharesDecryptedCopies else {
                say("\(target) is in an encrypted club: a link publishes a decrypted copy, readable by the server and by anyone with the link; add --decrypted to share it so")
                throw Exit.usage.code
            }
            let (link, existed) = try await store.createSharedLink(target, expires: expiry)
            if existed {
                say("\(target) already had this link" + (asked ? "; it keeps its expiry (unshare it first to change that)" : ""))
            }
            if json { return try CLIJSON.print(LinkJSON(link)) }
            FileHandle.standardOutput.write(Data((TerminalSafe.escape(link.url) + "\n").utf8))
        }
    }

    /// One link a line: the URL, the file and when it expires.
    static func lines(_ links: [RemoteSharedLink]) -> String {
        links.map { link in
            let when = link.expires.map { "expires " + DropboxTimestamp.format($0) } ?? "no expiry"
            return TerminalSafe.escape(link.url) + "  " + TerminalSafe.escape(link.path ?? link.name) + "  " + when + "\n"
        }.joined()
    }
}

/// A link as `share --json` and `share --list --json` print it.
struct LinkJSON: Encodable {
    var url: String
    var name: String
    var pathDisplay: String?
    var expires: Date?

    init(_ link: RemoteSharedLink) {
        url = link.url
        name = link.name
        pathDisplay = link.path
        expires = link.expires
    }

    func encode(to encoder: any Encoder) throws {
        var object = encoder.container(keyedBy: CodingKeys.self)
        try object.encode(url, forKey: .url)
        try object.encode(name, forKey: .name)
        try object.encode(pathDisplay, forKey: .pathDisplay)
        try object.encode(expires, forKey: .expires)
    }

    enum CodingKeys: String, CodingKey { case url, name, pathDisplay, expires }
}

/// `byteclub unshare URL`: ends a share link.
struct Unshare: AsyncParsableCommand {
    static let configuration = CommandConfiguration(abstract: "End a public link made by `share`.")
    @Argument(help: "The link's URL.") var url: String
    @OptionGroup var backend: BackendOptions

    func run() async throws {
        let url = self.url
        try await runRemote(backend) { backend in
            try await sharingStore(backend.store).revokeSharedLink(url: url)
        }
    }
}

/// `--expires`: a duration from now, or a moment.
enum LinkExpiry {
    static func parse(_ text: String, now: Date) throws -> Date {
        let trimmed = text.trimmingCharacters(in: .whitespaces)
        let units: [Character: Double] = ["s": 1, "m": 60, "h": 3600, "d": 86_400, "w": 604_800]
        if let unit = trimmed.last, let seconds = units[unit], let count = Int(trimmed.dropLast()), count > 0, count <= 3650 * 86_400 {
            let date = now.addingTimeInterval(Double(count) * seconds)
            guard date.timeIntervalSince(now) <= 3650 * 86_400 else { throw Self.error(text, "is more than ten years away") }
            return date
        }
        let moment = DropboxTimestamp.parse(trimmed) ?? DropboxTimestamp.parse(trimmed + "T00:00:00Z")
        guard let moment else {
            throw Self.error(text, "is neither a duration (30m, 12h, 7d, 2w) nor a date (2026-12-31 or 2026-12-31T18:00:00Z)")
        }
        guard moment > now else { throw Self.error(text, "is in the past") }
        return moment
    }

    private static func error(_ text: String, _ reason: String) -> ValidationError {
        ValidationError("--expires \(TerminalSafe.escape(text)) \(reason)")
    }
}
