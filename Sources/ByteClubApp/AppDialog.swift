import TerminalUI

/// A question on screen (a dialog, a prompt, a file or photo chooser) as part of ``AppState``:
/// a value, so the state stays comparable. The layer that shows it is made once, when the screen
/// is derived (ClubApp+Layers.swift), by the maker ``AppModel`` keeps under the same id; it goes
/// from the screen when it goes from the state. Its answer goes to whoever asked, through the
/// layer's own callback.
public struct AppDialog: Equatable, Sendable {
    public enum Kind: Equatable, Sendable {
        /// A question: asking it clears the status bar's message.
        case question
        /// A chooser of files or photos: the message stays.
        case chooser
    }

    /// Tells one question from another while the layer made for it is kept.
    public let id: Int
    public let kind: Kind
}
