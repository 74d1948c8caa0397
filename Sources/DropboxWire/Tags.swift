import Foundation

/// A tag's text as Dropbox takes it (`TagText` in files.stone: `[\w]+`, 1 to 32 characters),
/// and the one rule that says so, shared by the server (which answers a 400) and the clients
/// (which refuse before sending).
public enum TagText {
    /// Dropbox's limit on a tag's length.
    public static let maximumLength = 32
    /// Dropbox's limit on tags per item ("No more than 20 tags can be added to a given item").
    public static let maximumPerItem = 20

    /// Why a text is not a tag, in words for a person.
    public struct Refusal: Error, Sendable, Equatable, CustomStringConvertible {
        public var text: String
        public var reason: String
        public var description: String { "'\(text)' is not a tag name: \(reason)" }
    }

    /// The tag as stored: lower case, as Dropbox converts it ("Will be automatically converted
    /// to lowercase letters"). Letters and digits of any script and `_`, as Python's `\w` (the
    /// pattern's own dialect) allows, and `/` between such parts: a nested tag (`project/alpha`).
    ///
    /// The rule is checked on the stored form, not on what was typed: lowering can make a text
    /// the rule refuses (`İ` lowers to `i` and a combining dot, which is no word character, and
    /// the official SDK then refused every `files/tags/get` of the file). So the text is first
    /// folded as the stored form is compared: NFKC (a full-width `ｔｒｉｐ` is `trip`), lower case,
    /// and the dot that `İ` leaves on an `i` that has one already dropped.
    public static func normalised(_ text: String) throws(Refusal) -> String {
        guard !text.isEmpty else { throw Refusal(text: text, reason: "it is empty") }
        // Counted on the text as typed too: a long text is refused before it is folded.
        guard text.count <= maximumLength else {
            throw Refusal(text: TerminalSafe.escape(String(text.prefix(maximumLength))) + "…", reason: "longer than \(maximumLength) characters")
        }
        // A nested tag (`project/alpha`, as Obsidian writes them): parts of word characters
        // joined by `/`. Dropbox's own pattern has no `/`; the club server and WebDAV keep them.
        let parts = text.split(separator: "/", omittingEmptySubsequences: false)
        if parts.count > 1, parts.contains(where: \.isEmpty) {
            throw Refusal(text: TerminalSafe.escape(text), reason: "a nested tag's parts are letters, digits or _ between single '/'s")
        }
        for character in text where character != "/" && !isWordCharacter(character) && !isFoldedAway(character) {
            let shown = character == " " ? "a space" : "'" + TerminalSafe.escape(String(character)) + "'"
            throw Refusal(text: TerminalSafe.escape(text), reason: "\(shown) is not allowed (letters, digits, _)")
        }
        let stored = folded(text)
        guard !stored.isEmpty, stored.count <= maximumLength, stored.allSatisfy({ $0 == "/" || isWordCharacter($0) }),
              !stored.split(separator: "/", omittingEmptySubsequences: false).contains(where: \.isEmpty) else {
            throw Refusal(text: TerminalSafe.escape(text), reason: "its lower-case form '\(TerminalSafe.escape(stored))' is not (letters, digits, _, at most \(maximumLength))")
        }
        return stored
    }

    /// NFKC, lower case, NFKC again (lowering can decompose), and `i` + U+0307 as `i`.
    private static func folded(_ text: String) -> String {
        let lowered = text.precomposedStringWithCompatibilityMapping.lowercased().precomposedStringWithCompatibilityMapping
        var scalars = String.UnicodeScalarView()
        var previous: Unicode.Scalar?
        for scalar in lowered.unicodeScalars {
            if scalar == "\u{0307}", previous == "i" || previous == "j" { continue }
            scalars.append(scalar)
            previous = scalar
        }
        return String(scalars)
    }

    /// Whether the stored tag `tag` is `parent` or nested under it (`project/alpha` under
    /// `project`); both stored forms.
    public static func isUnder(_ tag: String, parent: String) -> Bool {
        tag == parent || (tag.hasPrefix(parent) && tag.utf8.count > parent.utf8.count
                          && tag.utf8[tag.utf8.index(tag.utf8.startIndex, offsetBy: parent.utf8.count)] == UInt8(ascii: "/"))
    }

    /// A character the rule would refuse as typed but folding makes a word character (a
    /// compatibility form such as `ﬁ`, or `İ`, which is one character of two scalars once NFD).
    private static func isFoldedAway(_ character: Character) -> Bool {
        let stored = folded(String(character))
        return !stored.isEmpty && stored.allSatisfy(isWordCharacter)
    }

    /// Whether the stored tag `tag` is one Dropbox's own pattern (`[\w]+`) allows: not nested.
    public static func isDropboxTag(_ tag: String) -> Bool { !tag.contains("/") }

    /// Whether `text` is already a stored tag (normalised and valid).
    public static func isNormalised(_ text: String) -> Bool {
        (try? normalised(text)) == text
    }

    private static func isWordCharacter(_ character: Character) -> Bool {
        guard character.unicodeScalars.count == 1, let scalar = character.unicodeScalars.first else { return false }
        if scalar == "_" { return true }
        let category = scalar.properties.generalCategory
        switch category {
        case .uppercaseLetter, .lowercaseLetter, .titlecaseLetter, .modifierLetter, .otherLetter, .decimalNumber: return true
        default: return false
        }
    }
}

/// `files/tags/add` and `files/tags/remove`'s argument: `{"path","tag_text"}`.
public struct TagArg: Sendable, Hashable, Codable {
    public var path: String
    public var tagText: String

    public init(path: String, tagText: String) {
        self.path = path
        self.tagText = tagText
    }

    enum CodingKeys: String, CodingKey { case path, tagText = "tag_text" }
}

/// `files/tags/get`'s argument: `{"paths":[…]}`.
public struct GetTagsArg: Sendable, Hashable, Codable {
    public var paths: [String]

    public init(paths: [String]) { self.paths = paths }
}

/// One tag as `files/tags/get` answers it: `{".tag":"user_generated_tag","tag_text":"trip"}`.
/// Dropbox's `Tag` union has no other member yet; one that comes later is kept as its tag, with
/// no text, so an answer holding it still decodes.
public struct TagEntry: Sendable, Hashable, Codable {
    public var kind: String
    public var tagText: String?

    public static let userGenerated = "user_generated_tag"

    public init(userGenerated text: String) {
        kind = Self.userGenerated
        tagText = text
    }

    enum CodingKeys: String, CodingKey { case kind = ".tag", tagText = "tag_text" }
}

/// `{"path","tags":[…]}`, one per path asked for.
public struct PathToTags: Sendable, Hashable, Codable {
    public var path: String
    public var tags: [TagEntry]

    public init(path: String, tags: [TagEntry]) {
        self.path = path
        self.tags = tags
    }

    /// The texts of the user-generated tags.
    public var texts: [String] { tags.compactMap { $0.kind == TagEntry.userGenerated ? $0.tagText : nil } }
}

/// `files/tags/get`'s answer: `{"paths_to_tags":[…]}`.
public struct GetTagsResult: Sendable, Hashable, Codable {
    public var pathsToTags: [PathToTags]

    public init(pathsToTags: [PathToTags]) { self.pathsToTags = pathsToTags }

    enum CodingKeys: String, CodingKey { case pathsToTags = "paths_to_tags" }
}

/// `/2/byteclub/files/tags/add_batch`'s argument (byteclub's own): `{"entries":[{"path","tags":[…]}, …]}`,
/// at most ``maxEntries``. Each entry's tags are added to its file as `files/tags/add` adds one
/// (nested tags too, as the club's own routes take them); the answer has an entry for each, at
/// its position (``AddTagsBatchResult``).
public struct AddTagsBatchArg: Sendable, Hashable, Codable {
    public static let maxEntries = 1000

    public struct Entry: Sendable, Hashable, Codable {
        public var path: String
        public var tags: [String]

        public init(path: String, tags: [String]) {
            self.path = path
            self.tags = tags
        }
    }

    public var entries: [Entry]

    public init(entries: [Entry]) { self.entries = entries }
}

/// `/2/byteclub/files/tags/add_batch`'s answer: `{"entries":[{".tag":"success"} | {".tag":"failure","failure":AddTagError}, …]}`,
/// one per entry asked, at the same position. A failure is the union `files/tags/add` answers
/// in its 409 (`path/not_found`, `too_many_tags`); an entry's failure leaves the others' tags added.
public struct AddTagsBatchResult: Sendable, Hashable, Codable {
    public enum Entry: Sendable, Hashable, Codable {
        case success
        /// The failure's tags, outermost first (`["path", "not_found"]`).
        case failure([String])

        enum CodingKeys: String, CodingKey { case tag = ".tag", failure }

        public init(from decoder: any Decoder) throws {
            let container = try decoder.container(keyedBy: CodingKeys.self)
            switch try container.decode(String.self, forKey: .tag) {
            case "success": self = .success
            case "failure": self = .failure(try container.decode(ErrorUnion.self, forKey: .failure).summaryTags)
            case let other: throw DecodingError.dataCorruptedError(forKey: .tag, in: container, debugDescription: "unknown entry \(other)")
            }
        }

        public func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: CodingKeys.self)
            switch self {
            case .success:
                try container.encode("success", forKey: .tag)
            case .failure(let tags):
                try container.encode("failure", forKey: .tag)
                try container.encode(ErrorUnion.nested(tags.compactMap(ErrorTag.init(rawValue:))), forKey: .failure)
            }
        }
    }

    public var entries: [Entry]

    public init(entries: [Entry]) { self.entries = entries }
}
