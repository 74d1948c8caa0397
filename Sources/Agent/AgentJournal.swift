import Foundation
import Durable
#if canImport(Glibc)
import Glibc
#endif

/// The agent's transfers on disk, so that a `kill -9` loses nothing: rewritten whole (a few
/// hundred bytes a transfer) at every change of state and every acknowledged upload chunk,
/// through a flushed temporary file renamed over the old one, the folder flushed after.
///
/// Progress between marks is not written: after a crash an upload continues at its session's
/// last mark (the server says the exact offset), a download at the size of the partial file
/// its resume data names (written before its first byte: ``AgentEngine/partialDownload(_:store:engine:)``).
public struct AgentJournal: Sendable {
    /// What the file holds. `remote` is the club without its secret (``AgentRemote/secret``).
    public struct Contents: Codable, Sendable, Equatable {
        public var remote: AgentRemote?
        public var transfers: [AgentTransfer]

        public init(remote: AgentRemote?, transfers: [AgentTransfer]) {
            self.remote = remote
            self.transfers = transfers
        }
    }

    public let url: URL

    public init(url: URL) { self.url = url }

    /// What was written last; empty when there is no journal. A journal that cannot be read is
    /// set aside (renamed `.broken`), never silently dropped, and the agent starts empty.
    public func load() -> Contents {
        guard let data = FileManager.default.contents(atPath: url.path) else { return Contents(remote: nil, transfers: []) }
        do {
            return try AgentLines.decode(Contents.self, from: data)
        } catch {
            _ = rename(url.path, url.path + ".broken")
            return Contents(remote: nil, transfers: [])
        }
    }

    /// Writes `contents` durably (the secret is stripped here, whatever the caller passed).
    public func save(_ contents: Contents) throws {
        var contents = contents
        contents.remote?.secret = nil
        let folder = url.deletingLastPathComponent()
        try PrivateFiles.folder(folder)
        do {
            try DurableFile.write(AgentLines.encode(contents), to: url)
        } catch {
            throw AgentError.place("cannot write the agent's journal: \(error)")
        }
    }
}
