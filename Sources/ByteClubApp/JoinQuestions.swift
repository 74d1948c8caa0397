import Foundation
import ClubKit
import Remote
import TerminalUI

/// Asks "bob wants to join (fingerprint …): Admit?" for each request at an encrypted club's
/// door: at start, then every minute. A request answered "Not now" is not asked again in this
/// run (`byteclub members admit` still lists it).
@MainActor
final class JoinQuestions {
    private let context: AppContext
    private var asked: Set<String> = []
    private var timer: (any UIRepeating)?
    static let interval: Duration = .seconds(60)

    init(context: AppContext) {
        self.context = context
    }

    func start() {
        guard context.configuration.door != nil else { return }
        look()
        timer = context.effects.repeating(every: Self.interval) { [weak self] in self?.look() }
    }

    private func look() {
        guard let door = context.configuration.door else { return }
        context.perform({ () async throws(RemoteError) in try await door.waiting() }) { [weak self] result in
            guard let self, case .success(let requests) = result else { return }
            for request in requests where !self.asked.contains(request.name.lowercased()) {
                self.asked.insert(request.name.lowercased())
                self.ask(request, door: door)
            }
        }
    }

    private func ask(_ request: JoinRequestSummary, door: any ClubDoor) {
        let name = TerminalSafe.escape(request.name)
        let modal = Modal(title: "\(name) wants to join (fingerprint \(request.fingerprint)): Admit?",
                          body: ["Admit them only if they read you the same fingerprint.",
                                 "They get the club's key; nothing is encrypted again."],
                          buttons: ["Admit", "Not now"], width: 72)
        // "Not now" is the default: Enter must not let someone in by reflex.
        context.ask { DialogLayer(modal, selected: 1) { [weak self] choice in
            guard choice == 0, let self else { return }
            self.context.say(StatusMessage("Admitting \(name)…"))
            self.context.perform({ () async throws(RemoteError) in try await door.admit(request.name) }) { [weak self] result in
                switch result {
                case .success: self?.context.say(StatusMessage("Admitted \(name) (fingerprint \(request.fingerprint))"))
                case .failure(let error): self?.context.say(.error("Cannot admit \(name): \(error.message)"))
                }
            }
        } }
    }
}
