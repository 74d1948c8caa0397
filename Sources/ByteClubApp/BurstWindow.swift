import Foundation

/// The end of a burst of another member's commits (a `put -r`), as the server's longpolls tell
/// it: each answer that asks the list to come back in `backoff` seconds puts the end at twice
/// that from now (at least 2 s), and never more than ``longest`` after the burst began; a burst
/// told of after its end is a new one. What follows a change page and costs the server a call
/// per note (the index's sync, the notes' tags) waits for the end, and is done once: an open
/// app costs another member's `put -r` what changed, once, not a share of each of its pages.
struct BurstWindow {
    /// The longest a burst puts work off: a burst that never ends is caught up this often. A
    /// `put -r` of 10,000 notes runs 12–18 s here, and a catch-up at 10 s ran beside its end.
    static let longest: Double = 30

    /// When the burst is taken to be over, and when it began (``UIEffects/now()``); in the past
    /// when there is none.
    private(set) var ends = 0.0
    private var began = 0.0

    mutating func told(backoff: Double, now: Double) {
        if ends <= now { began = now }
        ends = min(now + max(2, 2 * backoff), began + Self.longest)
    }

    /// Seconds until the end (0 or less: no burst now).
    func wait(now: Double) -> Double { ends - now }
}
