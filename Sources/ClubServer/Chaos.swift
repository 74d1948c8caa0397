import Foundation
import Synchronization

/// Fault injection for testing clients: `--chaos drop=0.1,429=0.05,5xx=0.05,slow=0.05,truncate=0.05,stall=0.01`.
///
/// Each request rolls once, with a seeded generator so a failing client test can be replayed.
public struct ChaosSpec: Sendable, Equatable, CustomStringConvertible {
    /// Cut the connection at a random byte offset (of the request body for uploads, else of the response).
    public var drop: Double = 0
    /// Answer 429 with `Retry-After`.
    public var rateLimit: Double = 0
    /// Answer 500 or 503.
    public var serverError: Double = 0
    /// Trickle the response out slowly.
    public var slow: Double = 0
    /// Cut a JSON response in half.
    public var truncate: Double = 0
    /// Say nothing at all for five minutes (then 503): the client's idle timeout must notice.
    public var stall: Double = 0

    public init() {}

    /// Parses `key=probability` pairs separated by commas.
    public init(parsing text: String) throws {
        for pair in text.split(separator: ",") {
            let parts = pair.split(separator: "=", maxSplits: 1).map { $0.trimmingCharacters(in: .whitespaces) }
            guard parts.count == 2, let value = Double(parts[1]), (0...1).contains(value) else {
                throw ChaosSpecError(text: String(pair))
            }
            switch parts[0] {
            case "drop": drop = value
            case "429", "ratelimit": rateLimit = value
            case "5xx", "error": serverError = value
            case "slow": slow = value
            case "truncate": truncate = value
            case "stall": stall = value
            default: throw ChaosSpecError(text: String(pair))
            }
        }
        guard drop + rateLimit + serverError + slow + truncate + stall <= 1 else { throw ChaosSpecError(text: "probabilities add up to more than 1") }
    }

    public var description: String {
        "drop=\(drop),429=\(rateLimit),5xx=\(serverError),slow=\(slow),truncate=\(truncate),stall=\(stall)"
    }
}

public struct ChaosSpecError: Error, CustomStringConvertible {
    var text: String
    public var description: String {
        "bad --chaos entry '\(text)': expected drop|429|5xx|slow|truncate|stall=P with P between 0 and 1"
    }
}

enum Fault: Sendable, Equatable {
    case none, drop(fraction: Double), rateLimit, serverError(Int), slow, truncate, stall
}

/// Rolls faults with SplitMix64 behind a mutex, so the sequence depends only on the seed.
final class ChaosMonkey: Sendable {
    let spec: ChaosSpec
    private let state: Mutex<UInt64>

    init(spec: ChaosSpec, seed: UInt64) {
        self.spec = spec
        self.state = Mutex(seed)
    }

    private func next() -> Double {
        let value = state.withLock { state -> UInt64 in
            state &+= 0x9E37_79B9_7F4A_7C15
            var z = state
            z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
            z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
            return z ^ (z >> 31)
        }
        return Double(value >> 11) / Double(1 << 53)
    }

    func roll() -> Fault {
        var roll = next()
        let detail = next()
        for (probability, fault) in [(spec.drop, Fault.drop(fraction: detail)), (spec.rateLimit, .rateLimit),
                                     (spec.serverError, .serverError(detail < 0.5 ? 500 : 503)), (spec.slow, .slow),
                                     (spec.truncate, .truncate), (spec.stall, .stall)] {
            if roll < probability { return fault }
            roll -= probability
        }
        return .none
    }
}
