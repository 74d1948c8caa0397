import DropboxWire
import Foundation
import Remote

/// Public links to a club's files for people outside it, as `share` and `unshare` make, list
/// and end them.
public enum ShareLinks {
    /// The club's links, each file named as the club spells it: the server names each in lower
    /// case (Dropbox's `path_lower`), and people and `path_display` want it as the club does.
    public static func listed(_ sharing: any SharingStore, club store: any RemoteStore) async throws(RemoteError) -> [RemoteSharedLink] {
        var links = try await sharing.sharedLinks(nil)
        for index in links.indices {
            if let path = links[index].path, let entry = try? await store.metadata(path) { links[index].path = entry.path }
        }
        return links
    }

    /// Whether a link of the club behind `store` shares a decrypted copy (an encrypted club:
    /// both shells ask the user's leave first), or why that club cannot share.
    public static func sharesDecryptedCopies(_ store: any RemoteStore) throws(RemoteError) -> Bool {
        try sharingStore(store).sharesDecryptedCopies
    }

    /// Why the embedded club makes no links: its server ends with the command, and the next one
    /// listens on another port, so a link made there would be dead before anyone opened it.
    public static let embeddedRefusal = RemoteError.notSupported("share links on the embedded club, which is served only while a byteclub command runs; share its folder with `byteclub serve --root DIR` (DIR: the embedded club's folder, --data-dir's) and make links there")

    /// What is said of a file in an encrypted club shared without `--decrypted`.
    public static func encryptedRefusal(_ path: String) -> String {
        "\(path) is in an encrypted club: a link publishes a decrypted copy, readable by the server and by anyone with the link; add --decrypted to share it so"
    }

    /// What is said when the file had a link already (`asked`: an expiry was asked for).
    public static func existed(_ path: String, asked: Bool) -> String {
        "\(path) already had this link" + (asked ? "; it keeps its expiry (unshare it first to change that)" : "")
    }

    /// One link a line: the URL, the file and when it expires.
    public static func lines(_ links: [RemoteSharedLink]) -> String {
        links.map { link in
            let when = link.expires.map { "expires " + DropboxTimestamp.format($0) } ?? "no expiry"
            return TerminalSafe.escape(link.url) + "  " + TerminalSafe.escape(link.path ?? link.name) + "  " + when + "\n"
        }.joined()
    }
}

/// A link as `share --json` and `share --list --json` print it.
public struct LinkJSON: Encodable, Sendable {
    public var url: String
    public var name: String
    public var pathDisplay: String?
    public var expires: Date?

    public init(_ link: RemoteSharedLink) {
        url = link.url
        name = link.name
        pathDisplay = link.path
        expires = link.expires
    }

    public func encode(to encoder: any Encoder) throws {
        var object = encoder.container(keyedBy: CodingKeys.self)
        try object.encode(url, forKey: .url)
        try object.encode(name, forKey: .name)
        try object.encode(pathDisplay, forKey: .pathDisplay)
        try object.encode(expires, forKey: .expires)
    }

    enum CodingKeys: String, CodingKey { case url, name, pathDisplay, expires }
}

/// `--expires`: a duration from now, or a moment.
public enum LinkExpiry {
    /// Why `--expires` was refused: "--expires 3x is neither a duration … nor a date …".
    public struct Refusal: Error, Equatable, CustomStringConvertible {
        public var description: String
    }

    public static func parse(_ text: String, now: Date) throws(Refusal) -> Date {
        let trimmed = text.trimmingCharacters(in: .whitespaces)
        let units: [Character: Double] = ["s": 1, "m": 60, "h": 3600, "d": 86_400, "w": 604_800]
        if let unit = trimmed.last, let seconds = units[unit], let count = Int(trimmed.dropLast()), count > 0, count <= 3650 * 86_400 {
            let date = now.addingTimeInterval(Double(count) * seconds)
            guard date.timeIntervalSince(now) <= 3650 * 86_400 else { throw refusal(text, "is more than ten years away") }
            return date
        }
        let moment = DropboxTimestamp.parse(trimmed) ?? DropboxTimestamp.parse(trimmed + "T00:00:00Z")
        guard let moment else {
            throw refusal(text, "is neither a duration (30m, 12h, 7d, 2w) nor a date (2026-12-31 or 2026-12-31T18:00:00Z)")
        }
        guard moment > now else { throw refusal(text, "is in the past") }
        return moment
    }

    private static func refusal(_ text: String, _ reason: String) -> Refusal {
        Refusal(description: "--expires \(TerminalSafe.escape(text)) \(reason)")
    }
}
