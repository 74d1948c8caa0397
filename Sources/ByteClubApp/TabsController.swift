import Foundation
import TerminalUI

/// The tabs and the way out: switching tabs (loading one that never loaded) and `q`.
@MainActor
final class TabsController {
    let context: AppContext
    let refresher: Refresher
    /// Called to leave the app, with the exit status.
    var onQuit: (@MainActor (Int32) -> Void)?
    /// Called just before ``onQuit`` (the live updates stop there).
    var willQuit: (@MainActor () -> Void)?
    /// Asks the quit question with "background" as its default, when transfers run and an agent
    /// can take them; false when it cannot, and the question is ours.
    var backgroundQuit: (@MainActor (@escaping @MainActor () -> Void) -> Bool)?

    init(context: AppContext, refresher: Refresher) {
        self.context = context
        self.refresher = refresher
    }

    /// Switches to `tab`, loading it if it never loaded. The status bar says the tab's count,
    /// or that it loads: never the other tab's count (an error stays up).
    func select(_ tab: Tab) {
        context.update {
            $0.tab = tab
            if $0.message?.kind != .error { $0.sayCount() }
        }
        if !context.state[tab].hasLoaded, !context.state[tab].isLoading { refresher.refresh(tab) }
    }

    /// `q`: quits, or first asks when edits are unsaved or transfers are running.
    func requestQuit() {
        let state = context.state
        // With an agent, running transfers can go on after the quit: that question instead.
        if state.runningTransfers > 0, let offer = backgroundQuit, offer({ [weak self] in self?.quit(0) }) { return }
        guard state.needsQuitConfirmation else {
            quit(0)
            return
        }
        var reasons: [String] = []
        if state.hasUnsavedEdits { reasons.append("A note has unsaved changes (its draft is kept for next time).") }
        if state.runningTransfers == 1 { reasons.append("A transfer is still running: a download pauses (Enter resumes it next time), an upload stops.") }
        if state.runningTransfers > 1 {
            reasons.append("\(state.runningTransfers) transfers are still running: downloads pause (Enter resumes them next time), uploads stop.")
        }
        let modal = Modal(title: "Quit byteclub?", body: reasons + ["Quit anyway?"], buttons: ["Quit", "Cancel"])
        // Cancel is the default: Enter on a reflex must not lose work.
        context.ask { DialogLayer(modal, selected: 1) { [weak self] choice in
            if choice == 0 { self?.quit(0) }
        } }
    }

    private func quit(_ status: Int32) {
        willQuit?()
        onQuit?(status)
    }
}
