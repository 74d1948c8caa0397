/// The terminal UI layer; see docs/architecture.md.
public enum TerminalUIVersion { public static let value = 1 }
