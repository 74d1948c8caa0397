import DropboxWire
import Foundation

// Tags over Dropbox v2: `files/tags/add`, `files/tags/get`, `files/tags/remove` (files.stone).
// A club server answers them under `/2/byteclub/files/tags/` with nested tags (`project/alpha`)
// too; its Dropbox routes, as Dropbox's, speak only `[\w]+` (docs/server.md).

extension DropboxStore: TaggingStore {
    /// Asked 100 paths at a time. Dropbox fails a whole `tags/get` when one path is gone, so a
    /// batch that meets `not_found` is asked again path by path, leaving the missing out.
    public func tags(of paths: [String]) async throws(RemoteError) -> [String: [String]] {
        var found: [String: [String]] = [:]
        var start = 0
        while start < paths.count {
            let batch = Array(paths[start..<min(paths.count, start + 100)])
            start += batch.count
            do {
                try await fetchTags(batch, into: &found)
            } catch .notFound where batch.count > 1 {
                for path in batch {
                    do { try await fetchTags([path], into: &found) } catch .notFound { continue }
                }
            } catch .notFound {
                continue
            }
        }
        return found
    }

    public func addTag(_ tag: String, to path: String) async throws(RemoteError) {
        let text = try Self.checked(tag)
        do {
            _ = try await clubRPC(.clubAddTag, else: .addTag, refused: clubTagsRefused, ["path": path, "tag_text": text], path: path,
                                  decoding: NoAnswer.self)
        } catch .server(409, let summary) where summary.hasPrefix("too_many_tags") {
            throw .server(status: 409, detail: "\(path) already has \(TagText.maximumPerItem) tags, the most a file can have")
        }
    }

    /// On a club server, `/2/byteclub/files/tags/add_batch` a thousand files a call (one write
    /// of the club's tags each); on Dropbox, or a server from before the route, one
    /// `tags/add` a tag.
    public func addTags(_ entries: [TagAddition]) async throws(RemoteError) -> [RemoteError?] {
        guard speaksClub, !clubTagsBatchRefused.withLock({ $0 }) else { return try await addTagsOneAtATime(entries) }
        var failures: [RemoteError?] = []
        failures.reserveCapacity(entries.count)
        for first in stride(from: 0, to: entries.count, by: AddTagsBatchArg.maxEntries) {
            let chunk = Array(entries[first..<min(entries.count, first + AddTagsBatchArg.maxEntries)])
            var argument: [[String: Any]] = []
            argument.reserveCapacity(chunk.count)
            for entry in chunk {
                var tags: [String] = []
                for tag in entry.tags { tags.append(try Self.checked(tag)) }
                argument.append(["path": entry.path, "tags": tags])
            }
            let answer: AddTagsBatchResult
            do {
                // Adding a tag a file has changes nothing: the call may be sent again.
                answer = try await rpc(.clubAddTagsBatch, ["entries": argument], path: chunk.count == 1 ? chunk[0].path : "", idempotent: true,
                                       decoding: AddTagsBatchResult.self)
            } catch .server(404, _) where first == 0 {
                clubTagsBatchRefused.withLock { $0 = true }
                return try await addTagsOneAtATime(entries)
            }
            guard answer.entries.count == chunk.count else {
                throw .server(status: 0, detail: "tags/add_batch answered \(answer.entries.count) entries for \(chunk.count)")
            }
            for (entry, outcome) in zip(chunk, answer.entries) {
                switch outcome {
                case .success:
                    failures.append(nil)
                case .failure(let tags) where tags.first == ErrorTag.tooManyTags.rawValue:
                    failures.append(.server(status: 409, detail: "\(entry.path) would have more than \(TagText.maximumPerItem) tags, the most a file can have"))
                case .failure(let tags) where tags.contains(ErrorTag.notFound.rawValue):
                    failures.append(.notFound(entry.path))
                case .failure(let tags):
                    failures.append(.server(status: 409, detail: tags.joined(separator: "/")))
                }
            }
        }
        return failures
    }

    public func removeTag(_ tag: String, from path: String) async throws(RemoteError) {
        let text = try Self.checked(tag)
        do {
            _ = try await clubRPC(.clubRemoveTag, else: .removeTag, refused: clubTagsRefused, ["path": path, "tag_text": text], path: path,
                                  decoding: NoAnswer.self)
        } catch .server(409, let summary) where summary.hasPrefix("tag_not_present") {
            return
        }
    }

    private func fetchTags(_ paths: [String], into found: inout [String: [String]]) async throws(RemoteError) {
        let answer = try await clubRPC(.clubGetTags, else: .getTags, refused: clubTagsRefused, ["paths": paths],
                                       path: paths.count == 1 ? paths[0] : "", decoding: GetTagsResult.self)
        let asked = Set(paths.map { $0.lowercased() })
        for item in answer.pathsToTags {
            let lower = item.path.lowercased()
            // Only what was asked about, and only texts a tag can be: nothing else reaches a row.
            guard asked.contains(lower) else { continue }
            found[lower] = item.texts.compactMap { try? TagText.normalised($0) }
        }
    }

    static func checked(_ tag: String) throws(RemoteError) -> String {
        do { return try TagText.normalised(tag) } catch { throw .local(error.description) }
    }
}

/// The answer of a call whose result is Dropbox's `Void` (`null`): nothing to read.
struct NoAnswer: Decodable, Sendable {
    init(from decoder: any Decoder) throws {}
}
