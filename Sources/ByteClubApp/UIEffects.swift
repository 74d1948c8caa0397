import Dispatch
import Remote

/// A repeating piece of UI work that can be stopped.
@MainActor
public protocol UIRepeating: AnyObject {
    func cancel()
}

/// The one way the app layer reaches the UI queue: work off the queue with its result delivered
/// on it, work after a delay, work repeated, and progress relayed from the network's threads.
///
/// Controllers never name a queue themselves. The app runs on ``MainQueueEffects``; a test can
/// hand the controllers its own effects and decide when delayed and repeated work runs.
@MainActor
public protocol UIEffects: AnyObject {
    /// Runs `work` off the UI queue and hands its result to `deliver` on it.
    @discardableResult
    func perform<T: Sendable>(_ work: @escaping @Sendable () async throws(RemoteError) -> T,
                              then deliver: @escaping @MainActor (Result<T, RemoteError>) -> Void) -> Task<Void, Never>
    /// Runs `body` on the UI queue after `delay` (zero: on the next turn, not inside this one).
    func after(_ delay: Duration, _ body: @escaping @MainActor () -> Void)
    /// Runs `body` on the UI queue every `interval` until the returned handle is cancelled.
    func repeating(every interval: Duration, _ body: @escaping @MainActor () -> Void) -> any UIRepeating
    /// A handler that may be called from any thread and forwards each call to `body` on the UI queue.
    func relay(_ body: @escaping @MainActor @Sendable (Int64, Int64) -> Void) -> ProgressHandler
    /// Seconds on a monotonic clock, for rates and ETAs.
    func now() -> Double
    /// The hop onto the UI queue for work done on a queue of the app's own.
    var hop: UIHop { get }
}

extension UIEffects {
    public var hop: UIHop { .main }
}

/// The hop onto the UI queue from a serial queue of the app's own: work that keeps its own
/// queue for order (a layout of the rendered view, a Markdown parse, a draft's write) hands its
/// result over here, so the app reaches the UI queue in this file alone.
public struct UIHop: Sendable {
    private let run: @Sendable (Duration, @escaping @MainActor @Sendable () -> Void) -> Void

    public init(_ run: @escaping @Sendable (Duration, @escaping @MainActor @Sendable () -> Void) -> Void) {
        self.run = run
    }

    /// `DispatchQueue.main`, run by `dispatchMain()` (or by the test's main run loop).
    public static let main = UIHop { delay, body in
        let work: @Sendable () -> Void = { MainActor.assumeIsolated { body() } }
        let (seconds, attoseconds) = delay.components
        let nanoseconds = Int(seconds) * 1_000_000_000 + Int(attoseconds / 1_000_000_000)
        if nanoseconds <= 0 {
            DispatchQueue.main.async(execute: work)
        } else {
            DispatchQueue.main.asyncAfter(deadline: .now() + .nanoseconds(nanoseconds), execute: work)
        }
    }

    /// Runs `body` on the UI queue, after `delay` (zero: on a later turn, never inside this one).
    public func callAsFunction(after delay: Duration = .zero, _ body: @escaping @MainActor @Sendable () -> Void) {
        run(delay, body)
    }
}

/// The app's effects: the UI queue is `DispatchQueue.main`, run by `dispatchMain()` (or by the
/// test's main run loop).
@MainActor
public final class MainQueueEffects: UIEffects {
    public init() {}

    @discardableResult
    public func perform<T: Sendable>(_ work: @escaping @Sendable () async throws(RemoteError) -> T,
                                     then deliver: @escaping @MainActor (Result<T, RemoteError>) -> Void) -> Task<Void, Never> {
        Task.detached {
            let result: Result<T, RemoteError>
            do throws(RemoteError) {
                result = .success(try await work())
            } catch {
                result = .failure(error)
            }
            DispatchQueue.main.async {
                MainActor.assumeIsolated {
                    dispatchPrecondition(condition: .onQueue(.main))
                    deliver(result)
                }
            }
        }
    }

    public func after(_ delay: Duration, _ body: @escaping @MainActor () -> Void) {
        let (seconds, attoseconds) = delay.components
        let nanoseconds = Int(seconds) * 1_000_000_000 + Int(attoseconds / 1_000_000_000)
        DispatchQueue.main.asyncAfter(deadline: .now() + .nanoseconds(max(0, nanoseconds))) {
            MainActor.assumeIsolated { body() }
        }
    }

    public func repeating(every interval: Duration, _ body: @escaping @MainActor () -> Void) -> any UIRepeating {
        let (seconds, attoseconds) = interval.components
        let period = DispatchTimeInterval.nanoseconds(Int(seconds) * 1_000_000_000 + Int(attoseconds / 1_000_000_000))
        let timer = DispatchSource.makeTimerSource(queue: .main)
        timer.schedule(deadline: .now() + period, repeating: period)
        timer.setEventHandler { MainActor.assumeIsolated { body() } }
        timer.resume()
        return Repeater(timer)
    }

    public func relay(_ body: @escaping @MainActor @Sendable (Int64, Int64) -> Void) -> ProgressHandler {
        { done, expected in
            DispatchQueue.main.async {
                MainActor.assumeIsolated { body(done, expected) }
            }
        }
    }

    public func now() -> Double {
        Double(DispatchTime.now().uptimeNanoseconds) / 1e9
    }

    private final class Repeater: UIRepeating {
        private let timer: any DispatchSourceTimer
        init(_ timer: any DispatchSourceTimer) { self.timer = timer }
        func cancel() { timer.cancel() }
        // The handle's owner is gone (an app of a test, say): so is the work, not a timer firing for nobody.
        isolated deinit { timer.cancel() }
    }
}
