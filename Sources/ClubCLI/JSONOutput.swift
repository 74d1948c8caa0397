import ClubKit
import Foundation
import Remote

/// The one JSON vocabulary of every `--json` output (docs/cli.md, docs/schemas/).
///
/// Snake case, as Dropbox's own JSON: a Swift property `pathDisplay` is `path_display` on the
/// wire, by the encoder, so a new output type gets the convention without writing keys. Dates
/// are ISO 8601 in UTC, keys sorted (a diff of two runs is a diff of values), and the text is
/// safe on a terminal (``TerminalSafe/jsonText(_:)``: DEL and C1 escaped too).
enum CLIJSON {
    static func encode<T: Encodable>(_ value: T) throws -> Data {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        encoder.dateEncodingStrategy = .iso8601
        encoder.keyEncodingStrategy = .convertToSnakeCase
        return TerminalSafe.jsonText(try encoder.encode(value))
    }

    /// `value` and a newline to stdout.
    static func print<T: Encodable>(_ value: T) throws {
        FileHandle.standardOutput.write(try encode(value) + Data("\n".utf8))
    }
}

/// A file or folder as every command prints it (`ls`, `watch`, `outbox --send`, `put --json`).
///
/// The same names for the same things everywhere: `path_display` (as the club shows it),
/// `path_lower` (for comparisons), `modified_by` (the member's name) with `modified_by_id`
/// (the account id) beside it.
struct EntryJSON: Encodable, Sendable {
    var kind: String
    var name: String
    var pathDisplay: String
    var pathLower: String
    var id: String?
    var rev: String?
    var size: Int64
    var modified: Date?
    var contentHash: String?
    var modifiedBy: String?
    var modifiedById: String?

    init(_ entry: RemoteEntry, names: [String: String] = [:]) {
        kind = entry.kind.rawValue
        name = entry.name
        pathDisplay = entry.path
        pathLower = entry.pathLower
        id = entry.id
        rev = entry.shownRev
        size = entry.size
        modified = entry.modified
        contentHash = entry.contentHash
        modifiedById = entry.modifiedBy
        modifiedBy = MemberNames.shown(entry.modifiedBy, names: names)
    }

    /// Nulls written out: a field is always there, so a schema can require it.
    func encode(to encoder: any Encoder) throws {
        var object = encoder.container(keyedBy: CodingKeys.self)
        try object.encode(kind, forKey: .kind)
        try object.encode(name, forKey: .name)
        try object.encode(pathDisplay, forKey: .pathDisplay)
        try object.encode(pathLower, forKey: .pathLower)
        try object.encode(id, forKey: .id)
        try object.encode(rev, forKey: .rev)
        try object.encode(size, forKey: .size)
        try object.encode(modified, forKey: .modified)
        try object.encode(contentHash, forKey: .contentHash)
        try object.encode(modifiedBy, forKey: .modifiedBy)
        try object.encode(modifiedById, forKey: .modifiedById)
    }

    enum CodingKeys: String, CodingKey {
        case kind, name, pathDisplay, pathLower, id, rev, size, modified, contentHash, modifiedBy, modifiedById
    }
}
