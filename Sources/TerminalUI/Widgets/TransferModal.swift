/// The upload/download progress dialog, as a layer: a ``Modal`` drawn from a
/// ``TransferProgress``.
///
/// ```
/// ╭─ Uploading pano-basement-lab.jpg ──────────────────╮
/// │                                                    │
/// │  ██████████████████▉░░░░░░░░░░░░░░░░░░░░░░░░   42%  │
/// │  3.3 MB / 7.9 MB · 1.2 MB/s · 0:04 left            │
/// │                                                    │
/// │  Esc cancel · b background                         │
/// ╰────────────────────────────────────────────────────╯
/// ```
/// It does no timing and no transferring of its own. The owner feeds events into ``transfer``
/// as they arrive and asks the compositor for a frame; a key the modal acts on removes the
/// modal from the stack, then reports an ``Outcome`` for the owner to carry out (cancel the
/// task, show it in the status bar). Once the transfer has ended (finished, failed, cancelled
/// or paused) the modal shows how, and its keys only close it.
@MainActor
public final class TransferModal: Layer {
    /// What the user asked for.
    public enum Outcome: Hashable, Sendable {
        /// Esc or `c` while the transfer runs: stop it (a download keeps resume data).
        case cancel
        /// `b`: keep the transfer running without the modal, shown in the status bar.
        case background
        /// Esc, Enter or `c` after the transfer ended: the modal is gone, nothing else to do.
        case close
    }

    /// The keys while the transfer runs.
    public static let runningBindings = KeyBindings<Outcome>(group: "Transfer", [
        .init([.escape, .char("c")], .cancel, "Cancel the transfer"),
        .init([.char("b")], .background, "Keep it running in the background"),
    ])

    /// The keys once the transfer has ended.
    public static let endedBindings = KeyBindings<Outcome>(group: "Transfer", [
        .init([.escape, .enter, .char("c")], .close, "Close"),
    ])

    /// The hint line while the transfer runs (end-to-end tests look for these words).
    public static let runningHint = "Esc cancel · b background"
    /// The hint line once it has ended.
    public static let endedHint = "Esc close"

    /// The transfer shown; update it and ask for a redraw.
    public var transfer: TransferProgress
    private let onOutcome: @MainActor (Outcome) -> Void

    public init(_ transfer: TransferProgress, onOutcome: @escaping @MainActor (Outcome) -> Void) {
        self.transfer = transfer
        self.onOutcome = onOutcome
    }

    /// The keys that apply now.
    public var bindings: KeyBindings<Outcome> {
        transfer.isActive ? Self.runningBindings : Self.endedBindings
    }

    /// The dialog for the current state.
    public var modal: Modal {
        let p = transfer
        var body: [String] = []
        if let outcome = p.outcomeText {
            body.append(outcome)
        } else if let resume = p.resumeMessage {
            body.append(resume)
        }
        var detail: String? = p.detailText
        // Modal prints the detail line under a bar only; with no size there is no bar.
        if p.fraction == nil, let line = detail {
            body.append(line)
            detail = nil
        }
        var isError = false
        if case .failed = p.phase { isError = true }
        return Modal(
            title: p.title,
            body: body,
            progress: p.fraction,
            progressDetail: detail,
            hint: p.isActive ? Self.runningHint : Self.endedHint,
            width: 52,
            progressLabel: p.percentText,
            bodyIsError: isError
        )
    }

    public func render(into canvas: any Canvas, area: Rect) {
        modal.render(into: canvas, area: area)
    }

    public func handle(_ key: Key, context: LayerContext) -> EventResult {
        if let outcome = bindings.action(for: key) {
            context.dismiss()
            onOutcome(outcome)
            return .consumed
        }
        // Quit, redraw and help still work; anything else stops here, so the screen under the
        // modal does not act on keys typed at it.
        switch key {
        case .ctrl, .f, .char("?"), .resize: return .ignored
        default: return .consumed
        }
    }

    public func commands() -> [Command] { bindings.commands }
}
