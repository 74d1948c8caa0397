import Foundation
import TerminalUI

/// The tabs and the way out: switching tabs (loading one that never loaded) and `q`.
@MainActor
final class TabsController {
    let context: AppContext
    let refresher: Refresher
    let exit: AppExit

    init(context: AppContext, refresher: Refresher, exit: AppExit) {
        self.context = context
        self.refresher = refresher
        self.exit = exit
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

    /// `q`: quits, or first asks when edits are unsaved or transfers are running (with an agent
    /// to hand running transfers to, ``BackgroundController`` asks instead).
    func requestQuit() {
        let state = context.state
        guard state.needsQuitConfirmation else {
            exit.quit(0)
            return
        }
        var reasons: [String] = []
        if let unsaved = state.unsavedNotesSentence {
            reasons.append(unsaved)
        } else if state.hasUnsavedEdits {
            reasons.append("A note has unsaved changes (its draft is kept for next time).")
        }
        if state.runningTransfers == 1 { reasons.append("A transfer is still running: a download pauses (Enter resumes it next time), an upload stops.") }
        if state.runningTransfers > 1 {
            reasons.append("\(state.runningTransfers) transfers are still running: downloads pause (Enter resumes them next time), uploads stop.")
        }
        let modal = Modal(title: "Quit byteclub?", body: reasons + ["Quit anyway?"], buttons: ["Quit", "Cancel"])
        // Cancel is the default: Enter on a reflex must not lose work.
        context.ask { DialogLayer(modal, selected: 1) { [weak self] choice in
            if choice == 0 { self?.exit.quit(0) }
        } }
    }
}
