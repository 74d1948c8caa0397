import Foundation

/// Who uses byteclub on this machine, when no club can say: `BYTECLUB_NAME`, else the login
/// name, else "me". The embedded club knows its one member by it, and a template's
/// `{{author}}` falls back on it (``NoteTemplate/author(in:environment:)``).
public enum LocalMember {
    /// The name, printable and at most 100 bytes (as a club's member names are).
    public static func name(environment: [String: String] = ProcessInfo.processInfo.environment) -> String {
        for key in ["BYTECLUB_NAME", "USER", "LOGNAME"] {
            guard let name = environment[key]?.trimmingCharacters(in: .whitespaces), !name.isEmpty, name.utf8.count <= 100,
                  !name.unicodeScalars.contains(where: { $0.properties.generalCategory == .control }) else { continue }
            return name
        }
        return "me"
    }
}
