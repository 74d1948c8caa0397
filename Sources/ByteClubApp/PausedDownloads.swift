import Foundation
import Durable

/// A paused download, kept on disk so that `Enter` resumes it even after a restart.
public struct PausedDownload: Codable, Equatable, Sendable {
    public var path: String
    /// The rev that was downloading; a different rev now means the data is stale.
    public var rev: String?
    public var done: Int64
    public var total: Int64
    /// The Transfer layer's resume data.
    public var resumeData: Data

    public init(path: String, rev: String?, done: Int64, total: Int64, resumeData: Data) {
        self.path = path
        self.rev = rev
        self.done = done
        self.total = total
        self.resumeData = resumeData
    }

    public var percent: Int { total > 0 ? min(99, Int(done * 100 / total)) : 0 }
}

/// Paused downloads as JSON files under `$XDG_STATE_HOME/byteclub/resume/photos/`.
public struct PausedDownloads: Sendable {
    public let directory: URL

    public init(directory: URL) {
        self.directory = directory
    }

    private func url(_ path: String) -> URL {
        directory.appendingPathComponent(Draft.id(forPath: path) + ".json")
    }

    public func save(_ paused: PausedDownload) {
        if let data = try? JSONEncoder().encode(paused) { try? DurableFile.write(data, to: url(paused.path)) }
    }

    public func remove(_ path: String) {
        try? FileManager.default.removeItem(at: url(path))
    }

    public func all() -> [PausedDownload] {
        guard let names = try? FileManager.default.contentsOfDirectory(atPath: directory.path) else { return [] }
        return names.filter { $0.hasSuffix(".json") }.compactMap { name in
            (try? Data(contentsOf: directory.appendingPathComponent(name))).flatMap { try? JSONDecoder().decode(PausedDownload.self, from: $0) }
        }
    }
}
