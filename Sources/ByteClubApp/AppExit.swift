/// The way out of the app, as the quit questions and the background hand-over take it: the
/// helpers that run on their own stop first (``willQuit``), then the executable restores the
/// terminal and exits (``onQuit``).
@MainActor
final class AppExit {
    /// Called to leave the app, with the exit status.
    var onQuit: (@MainActor (Int32) -> Void)?
    /// Called just before ``onQuit`` (the live updates and the outbox stop there).
    var willQuit: (@MainActor () -> Void)?

    func quit(_ status: Int32) {
        willQuit?()
        onQuit?(status)
    }
}
