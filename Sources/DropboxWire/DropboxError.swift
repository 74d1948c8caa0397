import Foundation

/// The tags of Dropbox's error unions that this project sends or reads.
///
/// An error names a path through nested unions, e.g. `path` then `not_found`, which
/// `error_summary` spells "path/not_found/..".
public enum ErrorTag: String, Sendable, Hashable, CaseIterable {
    // Where the error sits: the argument it is about.
    case path
    case pathLookup = "path_lookup"
    case pathWrite = "path_write"
    case fromLookup = "from_lookup"
    case to
    case lookupFailed = "lookup_failed"
    // Lookups.
    case notFound = "not_found"
    case notFile = "not_file"
    case notFolder = "not_folder"
    case malformedPath = "malformed_path"
    case restrictedContent = "restricted_content"
    // Writes.
    case conflict
    case file
    case folder
    case fileAncestor = "file_ancestor"
    case insufficientSpace = "insufficient_space"
    case disallowedName = "disallowed_name"
    case noWritePermission = "no_write_permission"
    case tooManyWriteOperations = "too_many_write_operations"
    case cantMoveFolderIntoItself = "cant_move_folder_into_itself"
    case tooManyFiles = "too_many_files"
    case insufficientQuota = "insufficient_quota"
    // Accounts (`users/get_account`).
    case noAccount = "no_account"
    // Revisions.
    case invalidRevision = "invalid_revision"
    case invalidBeforeRev = "invalid_before_rev"
    // Listings and upload sessions.
    case reset
    case incorrectOffset = "incorrect_offset"
    case closed
    /// A session that would grow past the largest file Dropbox takes (350 GB).
    case tooLarge = "too_large"
    /// An upload session's start whose body is more than the server takes.
    case payloadTooLarge = "payload_too_large"
    // Concurrent upload sessions (UploadSessionLookupError, UploadSessionStartError, UploadSessionFinishError).
    case notClosed = "not_closed"
    case concurrentSessionInvalidOffset = "concurrent_session_invalid_offset"
    case concurrentSessionInvalidDataSize = "concurrent_session_invalid_data_size"
    case concurrentSessionDataNotAllowed = "concurrent_session_data_not_allowed"
    case concurrentSessionCloseNotAllowed = "concurrent_session_close_not_allowed"
    case concurrentSessionNotClosed = "concurrent_session_not_closed"
    case concurrentSessionMissingData = "concurrent_session_missing_data"
    case contentHashMismatch = "content_hash_mismatch"
    // Thumbnails.
    case unsupportedExtension = "unsupported_extension"
    case unsupportedImage = "unsupported_image"
    case conversionError = "conversion_error"
    // Tags (`files/tags/add`, `files/tags/remove`).
    case tooManyTags = "too_many_tags"
    case tagNotPresent = "tag_not_present"
    // Auth and rate limits.
    case invalidAccessToken = "invalid_access_token"
    case expiredAccessToken = "expired_access_token"
    /// An account that may no longer sign in: the club server's answer to a removed member.
    case userSuspended = "user_suspended"
    case tooManyRequests = "too_many_requests"
    // Shared links (`sharing/*`).
    case sharedLinkAlreadyExists = "shared_link_already_exists"
    case sharedLinkNotFound = "shared_link_not_found"
    case sharedLinkAccessDenied = "shared_link_access_denied"
    case sharedLinkMalformed = "shared_link_malformed"
    case settingsError = "settings_error"
    case invalidSettings = "invalid_settings"
    case notAuthorized = "not_authorized"
}

/// A nested error union: `{".tag":"path","path":{".tag":"not_found"}}`, with the numbers and
/// strings some members carry (`correct_offset`, `retry_after`, `upload_session_id`).
public struct ErrorUnion: Sendable, Hashable, Codable {
    public var tag: String?
    /// Nested unions by field name: usually under the tag's own name, or under `reason`.
    public var unions: [String: ErrorUnion]
    public var numbers: [String: Int64]
    public var strings: [String: String]

    public init(tag: String?, unions: [String: ErrorUnion] = [:], numbers: [String: Int64] = [:], strings: [String: String] = [:]) {
        self.tag = tag
        self.unions = unions
        self.numbers = numbers
        self.strings = strings
    }

    /// `{".tag":a, a:{".tag":b, b:{…}}}` from [a, b, …]; the innermost level gets `numbers`.
    public static func nested(_ tags: [ErrorTag], numbers: [String: Int64] = [:]) -> ErrorUnion {
        guard let first = tags.first else { return ErrorUnion(tag: nil, numbers: numbers) }
        guard tags.count > 1 else { return ErrorUnion(tag: first.rawValue, numbers: numbers) }
        return ErrorUnion(tag: first.rawValue, unions: [first.rawValue: nested(Array(tags.dropFirst()), numbers: numbers)])
    }

    /// A number anywhere inside, e.g. `correct_offset` under `lookup_failed/incorrect_offset`.
    public func number(_ key: String) -> Int64? {
        if let value = numbers[key] { return value }
        for union in unions.values { if let value = union.number(key) { return value } }
        return nil
    }

    public init(from decoder: any Decoder) throws {
        let object = try decoder.container(keyedBy: WireKey.self)
        self.init(tag: try object.decodeIfPresent(String.self, forKey: .tag))
        for key in object.allKeys where key != .tag {
            if let union = try? object.decode(ErrorUnion.self, forKey: key) {
                unions[key.stringValue] = union
            } else if let number = try? object.decode(Int64.self, forKey: key) {
                numbers[key.stringValue] = number
            } else if let number = try? object.decode(Double.self, forKey: key), let whole = Int64(exactly: number.rounded(.up)) {
                // `exactly`: a server's 1e300 (or NaN) is no number of seconds, and must not trap.
                numbers[key.stringValue] = whole
            } else if let string = try? object.decode(String.self, forKey: key) {
                strings[key.stringValue] = string
            }
        }
    }

    public func encode(to encoder: any Encoder) throws {
        var object = encoder.container(keyedBy: WireKey.self)
        try object.encodeIfPresent(tag, forKey: .tag)
        for (key, union) in unions { try object.encode(union, forKey: WireKey(key)) }
        for (key, number) in numbers { try object.encode(number, forKey: WireKey(key)) }
        for (key, string) in strings { try object.encode(string, forKey: WireKey(key)) }
    }
}

/// The JSON body of a Dropbox error answer (401, 409, 429):
/// `{"error_summary":"path/not_found/..","error":{".tag":"path","path":{".tag":"not_found"}}}`.
public struct DropboxError: Sendable, Hashable, Codable, Error {
    public var errorSummary: String
    public var error: ErrorUnion
    /// Dropbox's `user_message` (`{"locale","text"}`): a sentence for a person, where the tags
    /// alone would leave them guessing (a revision past the history kept, say).
    public var userMessage: String?

    public init(errorSummary: String, error: ErrorUnion, userMessage: String? = nil) {
        self.errorSummary = errorSummary
        self.error = error
        self.userMessage = userMessage
    }

    enum CodingKeys: String, CodingKey { case errorSummary = "error_summary", error, userMessage = "user_message" }

    private struct LocalizedText: Codable {
        var locale: String
        var text: String
    }

    public init(from decoder: any Decoder) throws {
        let object = try decoder.container(keyedBy: CodingKeys.self)
        errorSummary = try object.decodeIfPresent(String.self, forKey: .errorSummary) ?? ""
        error = try object.decodeIfPresent(ErrorUnion.self, forKey: .error) ?? ErrorUnion(tag: nil)
        userMessage = (try? object.decodeIfPresent(LocalizedText.self, forKey: .userMessage))?.text
    }

    public func encode(to encoder: any Encoder) throws {
        var object = encoder.container(keyedBy: CodingKeys.self)
        try object.encode(errorSummary, forKey: .errorSummary)
        try object.encode(error, forKey: .error)
        try object.encodeIfPresent(userMessage.map { LocalizedText(locale: "en", text: $0) }, forKey: .userMessage)
    }

    /// The summary's tags, e.g. ["path", "not_found"] of "path/not_found/..".
    public var tags: [String] {
        errorSummary.split(separator: "/").map(String.init).filter { $0 != ".." && !$0.hasPrefix("..") }
    }

    public func contains(_ tag: ErrorTag) -> Bool { tags.contains(tag.rawValue) }

    /// Seconds to wait, from a 429's `retry_after`.
    public var retryAfter: Int64? { error.numbers["retry_after"] }

    /// Where an upload session really is, from `incorrect_offset`'s `correct_offset`.
    public var correctOffset: Int64? { error.number("correct_offset") }

    /// An endpoint error (409) along `tags`, e.g. [.path, .notFound]; the innermost union gets `numbers`.
    public static func endpoint(_ tags: [ErrorTag], numbers: [String: Int64] = [:]) -> DropboxError {
        DropboxError(errorSummary: summary(tags), error: .nested(tags, numbers: numbers))
    }

    /// An upload's write error: `{".tag":"path","reason":{…},"upload_session_id":""}`.
    public static func uploadPath(_ reason: [ErrorTag]) -> DropboxError {
        DropboxError(errorSummary: summary([.path] + reason),
                     error: ErrorUnion(tag: ErrorTag.path.rawValue, unions: ["reason": .nested(reason)], strings: ["upload_session_id": ""]))
    }

    /// A 429's body: `{"error":{"reason":{".tag":"too_many_requests"},"retry_after":N}}`.
    public static func rateLimited(retryAfter seconds: Int64) -> DropboxError {
        DropboxError(errorSummary: summary([.tooManyRequests]),
                     error: ErrorUnion(tag: nil, unions: ["reason": .nested([.tooManyRequests])], numbers: ["retry_after": seconds]))
    }

    /// A 401's body.
    public static let invalidAccessToken = DropboxError(errorSummary: summary([.invalidAccessToken]), error: .nested([.invalidAccessToken]))
    /// A 401's body for an account that may no longer sign in (a removed member).
    public static let userSuspended = DropboxError(errorSummary: summary([.userSuspended]), error: .nested([.userSuspended]))

    /// "a/b/.." as Dropbox writes summaries.
    public static func summary(_ tags: [ErrorTag]) -> String {
        tags.map(\.rawValue).joined(separator: "/") + "/.."
    }

    /// The body's JSON text, keys sorted.
    public var json: Data {
        (try? DropboxJSON.encode(self)) ?? Data("{}".utf8)
    }
}
