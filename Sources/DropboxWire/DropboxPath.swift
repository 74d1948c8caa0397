import Foundation

/// A validated Dropbox-style path: "" is the root, otherwise "/a/b".
///
/// Validation is the first line of the club server's confinement: nothing that could climb out
/// of the root, or mean something else to the host file system, gets past it.
public struct DropboxPath: Sendable, Hashable, CustomStringConvertible {
    /// A path that is unsafe or ill-formed; the server answers it with `path/malformed_path`.
    public struct Malformed: Error, Sendable, Hashable {
        public let text: String
    }

    /// Components as the client spelled them.
    public let components: [String]

    public init(components: [String]) { self.components = components }

    public static let root = DropboxPath(components: [])
    /// The server's own folder inside the root; hidden and untouchable through the API.
    public static let reservedName = ".byteclub"
    public static let maxComponentBytes = 255
    public static let maxPathBytes = 4096

    public var isRoot: Bool { components.isEmpty }
    public var name: String { components.last ?? "" }
    public var display: String { components.isEmpty ? "" : "/" + components.joined(separator: "/") }
    public var lower: String { display.lowercased() }
    public var parent: DropboxPath { DropboxPath(components: Array(components.dropLast())) }
    public var description: String { display }

    public func appending(_ name: String) -> DropboxPath { DropboxPath(components: components + [name]) }

    /// Parses a client's path, throwing `malformed_path` for anything unsafe or ill-formed.
    public static func parse(_ text: String) throws(Malformed) -> DropboxPath {
        if text.isEmpty || text == "/" { return .root }
        guard text.hasPrefix("/") else { throw Malformed(text: text) }
        guard text.utf8.count <= maxPathBytes else { throw Malformed(text: text) }
        let parts = text.dropFirst().split(separator: "/", omittingEmptySubsequences: false).map(String.init)
        for part in parts {
            guard isSafeComponent(part) else { throw Malformed(text: text) }
        }
        if parts.first?.lowercased() == reservedName { throw Malformed(text: text) }
        return DropboxPath(components: parts)
    }

    /// A name that is a plain file name on every platform we care about.
    public static func isSafeComponent(_ part: String) -> Bool {
        if part.isEmpty || part == "." || part == ".." { return false }
        if part.utf8.count > maxComponentBytes { return false }
        for scalar in part.unicodeScalars {
            // NUL and other control characters (C0, DEL and C1: a terminal takes U+0080–U+009F as
            // controls too), and path separators of any host.
            if scalar.value < 0x20 || (0x7F...0x9F).contains(scalar.value) || scalar == "\\" || scalar == "/" { return false }
        }
        // "%2e%2e" and friends: never meaningful here, and dangerous to anything that decodes.
        // (Decoding only a name with a `%`: Foundation's decoding was a tenth of a 100,000-file walk.)
        if part.utf8.contains(UInt8(ascii: "%")), let decoded = part.removingPercentEncoding, decoded != part {
            if decoded == "." || decoded == ".." || decoded.contains("/") || decoded.contains("\\") || decoded.contains("\0") { return false }
        }
        // Trailing spaces and dots are stripped by some file systems, turning one name into another.
        if part.hasSuffix(" ") || part.hasSuffix(".") { return false }
        return true
    }
}
