/// The one rule for a name from the network that becomes a local file name: it must be a single
/// path component.
///
/// A server, real or hostile, chooses the names in its listings. Used as they come, `../../x`
/// would leave the download folder, `a/b` would ask for a folder, and control characters would
/// end up in a file name that later reaches a terminal. So a local name is not empty, not `.` or
/// `..`, holds no `/` or `\`, no NUL and no control character (C0, DEL, C1), and fits in 255
/// bytes, the longest name Linux and macOS file systems take.
///
/// Callers either refuse an unsafe name with ``check(_:)`` (whose error says why) or replace it
/// with ``sanitized(_:)`` and tell the user they did (``problem(_:)`` says why).
public enum SafeName {
    /// The longest file name, in UTF-8 bytes, that common file systems accept.
    public static let maxBytes = 255
    /// What a name becomes when nothing usable is left of it (`..`, `/`, only control characters).
    public static let fallback = "download"

    /// Why a name is not a safe local file name.
    public enum Problem: Error, Sendable, Equatable, CustomStringConvertible {
        case empty
        case dotOrDotDot
        case separator(Character)
        case control(Unicode.Scalar)
        case tooLong(bytes: Int)

        /// The reason, for a sentence like `"x" is not a safe file name: it contains "/"`.
        public var reason: String {
            switch self {
            case .empty: return "it is empty"
            case .dotOrDotDot: return "it names a folder (. or ..)"
            case .separator(let character): return "it contains \"\(character)\""
            case .control(let scalar): return "it contains the control character \(TerminalSafe.escape(String(scalar)))"
            case .tooLong(let bytes): return "it is \(bytes) bytes long (at most \(SafeName.maxBytes))"
            }
        }

        public var description: String { reason }
    }

    /// A name refused by ``check(_:)``: the name, and why.
    public struct Refusal: Error, Sendable, Equatable, CustomStringConvertible {
        public var name: String
        public var problem: Problem

        public init(name: String, problem: Problem) {
            self.name = name
            self.problem = problem
        }

        /// One line, safe to print: `"../../evil.jpg" is not a safe file name: it contains "/"`.
        public var message: String {
            "\"\(TerminalSafe.escape(name))\" is not a safe file name: \(problem.reason)"
        }

        public var description: String { message }
    }

    /// Why `name` is not a single safe path component, or nil when it is.
    public static func problem(_ name: String) -> Problem? {
        if name.isEmpty { return .empty }
        if name == "." || name == ".." { return .dotOrDotDot }
        for scalar in name.unicodeScalars {
            if scalar == "/" || scalar == "\\" { return .separator(Character(scalar)) }
            if TerminalSafe.isControl(scalar) { return .control(scalar) }
        }
        let bytes = name.utf8.count
        if bytes > maxBytes { return .tooLong(bytes: bytes) }
        return nil
    }

    /// `name` itself when it is a safe local file name; otherwise a ``Refusal`` saying why.
    @discardableResult
    public static func check(_ name: String) throws(Refusal) -> String {
        if let problem = problem(name) { throw Refusal(name: name, problem: problem) }
        return name
    }

    /// A safe local file name made from `name`, visibly: what follows the last `/` or `\`
    /// (`../../evil.jpg` becomes `evil.jpg`), control characters replaced by `_`, cut to 255
    /// bytes keeping the extension, and ``fallback`` when nothing usable is left. A safe name
    /// comes back unchanged.
    public static func sanitized(_ name: String) -> String {
        if problem(name) == nil { return name }
        var replaced = ""
        replaced.unicodeScalars.reserveCapacity(name.unicodeScalars.count)
        for scalar in name.unicodeScalars {
            replaced.unicodeScalars.append(TerminalSafe.isControl(scalar) ? "_" : scalar)
        }
        // The last component that names a file: `evil.jpg/..` is as hostile as `../evil.jpg`.
        let components = replaced.split(whereSeparator: { $0 == "/" || $0 == "\\" })
        guard let last = components.last(where: { $0 != "." && $0 != ".." }) else { return fallback }
        return fitted(String(last))
    }

    /// `name` cut to ``maxBytes`` at a character boundary, keeping a short extension.
    static func fitted(_ name: String) -> String {
        guard name.utf8.count > maxBytes else { return name }
        var stem = Substring(name)
        var suffix = ""
        if let dot = name.lastIndex(of: "."), dot != name.startIndex, name.utf8.distance(from: dot, to: name.endIndex) <= 16 {
            stem = name[..<dot]
            suffix = String(name[dot...])
        }
        let room = maxBytes - suffix.utf8.count
        var used = 0
        var end = stem.startIndex
        for index in stem.indices {
            let size = stem[index].utf8.count
            if used + size > room { break }
            used += size
            end = stem.index(after: index)
        }
        let cut = String(stem[..<end]) + suffix
        return cut.isEmpty || cut == "." || cut == ".." ? fallback : cut
    }

    /// Whether `path`, from a server's answer, lies inside `folder` (the folder that was asked
    /// for; `""` is the root), compared case-insensitively as Dropbox compares paths.
    ///
    /// The path must be absolute and have no empty, `.` or `..` component, so it cannot climb out
    /// of the folder however it is read. A listing of `/byteclub/photos` answering
    /// `/etc/x.jpg` or `/byteclub/other/y.jpg` is refused with this.
    public static func path(_ path: String, isInside folder: String) -> Bool {
        // Checked for every entry of every listing: the usual case, the folder's bytes then a
        // slash, is settled on the UTF-8 bytes without splitting or lowercasing.
        quickCheck(path, isInside: folder) ?? fullCheck(path, isInside: folder)
    }

    /// ``path(_:isInside:)`` by components, for every case.
    static func fullCheck(_ path: String, isInside folder: String) -> Bool {
        guard path.hasPrefix("/") else { return false }
        let parts = path.dropFirst().split(separator: "/", omittingEmptySubsequences: false)
        guard parts.allSatisfy({ !$0.isEmpty && $0 != "." && $0 != ".." && !$0.contains("\0") }) else { return false }
        let base = folder.split(separator: "/")
        guard parts.count > base.count else { return false }
        for (part, wanted) in zip(parts, base) where part.lowercased() != wanted.lowercased() {
            return false
        }
        return true
    }

    /// ``path(_:isInside:)`` when `path` starts with exactly `folder`'s bytes and a slash (or
    /// `folder` is the root): whether every component after it is sound. Nil when the bytes
    /// differ (another case, a trailing slash on the folder), for the full comparison.
    static func quickCheck(_ path: String, isInside folder: String) -> Bool? {
        let path = path.utf8, folder = folder.utf8
        guard folder.last != UInt8(ascii: "/"), path.count > folder.count, path.starts(with: folder) else { return nil }
        var rest = path.dropFirst(folder.count)
        guard rest.first == UInt8(ascii: "/") else { return nil }
        if !folder.isEmpty, folder.first != UInt8(ascii: "/") { return nil }
        rest = rest.dropFirst()
        // Each component after the folder: not empty, not `.` or `..`, no NUL.
        var length = 0, dots = 0
        for byte in rest {
            if byte == UInt8(ascii: "/") {
                if length == 0 || dots == length && length <= 2 { return false }
                length = 0
                dots = 0
                continue
            }
            if byte == 0 { return false }
            length += 1
            if byte == UInt8(ascii: ".") { dots += 1 }
        }
        return !(length == 0 || dots == length && length <= 2)
    }
}
