import TerminalUI

/// A question on screen (a dialog, a prompt, a file or photo chooser) as part of ``AppState``:
/// the layer that shows it is made from it once, when the screen is derived
/// (ClubApp+Layers.swift), and it goes from the screen when it goes from the state. Its answer
/// goes to whoever asked, through the layer's own callback.
public struct AppDialog: Sendable {
    /// Tells one question from another while the layer made for it is kept.
    let id: Int
    /// Makes the layer that asks the question (called once, on the UI queue).
    let make: @MainActor @Sendable () -> any Layer
}
