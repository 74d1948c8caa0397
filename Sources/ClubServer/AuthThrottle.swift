import Foundation

/// Failed authentications per client address, and which addresses are shut out for now.
///
/// A value with an injected clock (`now` on every call), so its rules are tested without a
/// server or a sleep. Each address may fail `allowed` times in a `window`; the next failure
/// shuts it out for `lockout`, doubled at every lockout after (up to `maxLockout`) until the
/// address stays clean for a whole window. A token is 256 random bits: at `allowed` guesses a
/// minute, a brute force is hopeless, and each lockout is logged once.
struct AuthThrottle: Sendable {
    var allowed = 10
    var window: TimeInterval = 60
    var lockout: TimeInterval = 60
    var maxLockout: TimeInterval = 3600
    /// Addresses remembered at most: past it the oldest clean ones are forgotten.
    var maxAddresses = 10_000

    struct Record: Sendable {
        var failures: [TimeInterval] = []
        var lockedUntil: TimeInterval = 0
        var lockouts = 0
    }
    private(set) var records: [String: Record] = [:]

    /// What to do with a request from `address` before looking at its token.
    enum Gate: Equatable {
        case open
        /// Refused unseen: 429 with this many seconds in `Retry-After`.
        case shut(retryAfter: Int)
    }

    func gate(_ address: String, now: TimeInterval) -> Gate {
        guard let record = records[address], record.lockedUntil > now else { return .open }
        return .shut(retryAfter: max(1, Int((record.lockedUntil - now).rounded(.up))))
    }

    /// Records a failed token; returns the lockout's length when this failure starts one (to log).
    mutating func failed(_ address: String, now: TimeInterval) -> TimeInterval? {
        if records.count >= maxAddresses, records[address] == nil { forgetClean(now: now) }
        var record = records[address] ?? Record()
        record.failures.removeAll { $0 <= now - window }
        if record.failures.isEmpty, record.lockedUntil <= now - window { record.lockouts = 0 }
        record.failures.append(now)
        var started: TimeInterval?
        if record.failures.count > allowed {
            let length = min(maxLockout, lockout * pow(2, Double(record.lockouts)))
            record.lockedUntil = now + length
            record.lockouts += 1
            record.failures.removeAll()
            started = length
        }
        records[address] = record
        return started
    }

    private mutating func forgetClean(now: TimeInterval) {
        records = records.filter { $0.value.lockedUntil > now || $0.value.failures.contains { $0 > now - window } }
    }
}
