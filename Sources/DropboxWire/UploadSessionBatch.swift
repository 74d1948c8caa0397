import Foundation

/// `upload_session/finish_batch_v2`'s answer (`UploadSessionFinishBatchResult`): one entry per
/// entry asked, at the same position, each `{".tag":"success", …FileMetadata}` or
/// `{".tag":"failure","failure":UploadSessionFinishError}`.
public struct UploadSessionFinishBatchResult: Sendable, Decodable {
    public enum Entry: Sendable {
        case success(FileMetadata)
        case failure(ErrorUnion)
    }

    public var entries: [Entry]

    /// The most entries one call takes (the spec's bound on `UploadSessionFinishBatchArg.entries`).
    public static let maxEntries = 1000

    enum CodingKeys: String, CodingKey { case entries }

    public init(from decoder: any Decoder) throws {
        let object = try decoder.container(keyedBy: CodingKeys.self)
        var list = try object.nestedUnkeyedContainer(forKey: .entries)
        var entries: [Entry] = []
        while !list.isAtEnd {
            let entry = try list.nestedContainer(keyedBy: WireKey.self)
            let tag = try entry.decode(String.self, forKey: .tag)
            switch tag {
            case "success":
                entries.append(.success(try FileMetadata(object: entry)))
            case "failure":
                entries.append(.failure(try entry.decode(ErrorUnion.self, forKey: WireKey("failure"))))
            default:
                // An open union: a tag this client does not know is a failure it cannot name.
                entries.append(.failure(ErrorUnion(tag: tag)))
            }
        }
        self.entries = entries
    }
}

extension ErrorUnion {
    /// The tags from the outside in, as `error_summary` spells them: `lookup_failed`, then
    /// `incorrect_offset`; a write error's `reason` is followed too (`path`, `conflict`, `file`).
    public var summaryTags: [String] {
        var tags: [String] = []
        var level: ErrorUnion? = self
        while let current = level, let tag = current.tag, tags.count < 8 {
            tags.append(tag)
            level = current.unions[tag] ?? current.unions["reason"]
        }
        return tags
    }
}
