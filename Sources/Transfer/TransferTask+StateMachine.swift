/// The lifecycle of one task, as a value with no side effects.
///
/// Each method returns the action its owner must carry out on the session queue; the
/// struct alone decides what is legal, so double cancels, resumes after completion and
/// the like are harmless no-ops.
struct TaskStateMachine: Sendable, Equatable {
    enum State: Sendable, Equatable {
        /// Created, never resumed.
        case created
        case running
        /// Suspended after it had started: curl holds the transfer paused.
        case paused
        case canceling
        case completed
    }

    enum ResumeAction: Equatable { case start, unpause, none }
    enum SuspendAction: Equatable { case pause, none }
    enum CancelAction: Equatable {
        /// Never started: complete with `.cancelled` without touching curl.
        case completeUnstarted
        /// Running or paused: remove it from curl, then complete.
        case abort
        case none
    }
    enum FinishAction: Equatable { case deliver, ignore }

    private(set) var state: State = .created

    mutating func resume() -> ResumeAction {
        switch state {
        case .created: state = .running; return .start
        case .paused: state = .running; return .unpause
        case .running, .canceling, .completed: return .none
        }
    }

    mutating func suspend() -> SuspendAction {
        switch state {
        case .running: state = .paused; return .pause
        case .created, .paused, .canceling, .completed: return .none
        }
    }

    mutating func cancel() -> CancelAction {
        switch state {
        case .created: state = .canceling; return .completeUnstarted
        case .running, .paused: state = .canceling; return .abort
        case .canceling, .completed: return .none
        }
    }

    /// The transfer ended (success, failure or cancel). Only the first end is delivered.
    mutating func finish() -> FinishAction {
        switch state {
        case .completed: return .ignore
        default: state = .completed; return .deliver
        }
    }

    var isStarted: Bool { state != .created }
}
