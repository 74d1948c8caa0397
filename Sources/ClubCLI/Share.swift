import ArgumentParser
import ClubKit
import DropboxWire
import Foundation
import Remote

/// `byteclub share PATH [--expires 7d]`, `byteclub share --list [--json]`: public links to a
/// club's files for people outside it.
struct Share: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "share",
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
            if let expires { _ = try Self.expiry(expires) }
        }
    }

    func run() async throws {
        let (list, json, decrypted) = (self.list, self.json, self.decrypted)
        let typed = backend.clubPath(path ?? "")
        let expiry = try expires.map(Self.expiry)
        let asked = expires != nil
        try await runRemote(backend, path: typed) { backend in
            let decryptedCopies = try backend.sharesDecryptedCopies()
            if !list, backend.embeddedRoot != nil { throw ShareLinks.embeddedRefusal }
            if list {
                let links = try await backend.sharedLinks()
                if json { return try CLIJSON.print(links.map(LinkJSON.init)) }
                FileHandle.standardOutput.write(Data(ShareLinks.lines(links).utf8))
                return
            }
            let target = try await notePath(typed, on: backend)
            guard decrypted || !decryptedCopies else {
                say(ShareLinks.encryptedRefusal(target))
                throw Exit.usage.code
            }
            let (link, existed) = try await backend.writes.share(target, expires: expiry)
            if existed { say(ShareLinks.existed(target, asked: asked)) }
            if json { return try CLIJSON.print(LinkJSON(link)) }
            FileHandle.standardOutput.write(Data((TerminalSafe.escape(link.url) + "\n").utf8))
        }
    }

    /// `--expires`, or the reason it is refused as a usage error.
    static func expiry(_ text: String) throws -> Date {
        do { return try LinkExpiry.parse(text, now: Date()) } catch { throw ValidationError(error.description) }
    }
}

/// `byteclub unshare URL`: ends a share link.
struct Unshare: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "unshare", abstract: "End a public link made by `share`.")
    @Argument(help: "The link's URL.") var url: String
    @OptionGroup var backend: BackendOptions

    func run() async throws {
        let url = self.url
        try await runRemote(backend) { backend in
            try await backend.writes.unshare(url: url)
        }
    }
}
