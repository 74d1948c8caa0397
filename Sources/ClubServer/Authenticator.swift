import Foundation
import Logging
import NIOCore
import ServiceLifecycle
import Synchronization

/// Who a token speaks for, and the requests each token has in flight.
///
/// Tokens come from two places: those given at start (`--token`, `--member NAME=TOKEN`, always
/// editors) and the member registry on disk. Both are looked up by the token's SHA-256, so no
/// token is kept in memory longer than its request. Each authenticated request is entered in
/// the ledger with its connection; when the registry changes, every request whose token no
/// longer speaks for the same member with the same role has its connection closed: a removed
/// member's longpoll ends and a transfer of theirs is cut at once.
final class Authenticator: Sendable {
    struct Grant: Sendable, Equatable {
        var name: String
        var role: MemberRole
    }

    private let fixed: [String: Grant]
    let registry: MemberRegistry?
    private let logger: Logger

    private struct InFlight: Sendable {
        var tokenHash: String
        var grant: Grant
        var channel: any Channel
    }
    private struct State: Sendable {
        var nextID: UInt64 = 0
        var inFlight: [UInt64: InFlight] = [:]
        var throttle = AuthThrottle()
        /// Every token hash the registry has held, and those it has since dropped.
        var known: Set<String> = []
        var revoked: Set<String> = []
    }
    private let state = Mutex(State())

    init(sharedToken: String, members: [ClubMember], registry: MemberRegistry?, logger: Logger, failuresAllowed: Int = 10) {
        var fixed: [String: Grant] = [:]
        if !sharedToken.isEmpty { fixed[MemberBook.hash(sharedToken)] = Grant(name: ClubMember.sharedName, role: .editor) }
        for member in members { fixed[MemberBook.hash(member.token)] = Grant(name: member.name, role: .editor) }
        self.fixed = fixed
        self.registry = registry
        self.logger = logger
        state.withLock { $0.throttle.allowed = failuresAllowed }
    }

    /// Whether any member is known: then file metadata says who made each revision.
    var hasMembers: Bool {
        fixed.values.contains { $0.name != ClubMember.sharedName } || ((try? registry?.current().members.isEmpty == false) ?? false)
    }

    /// The member a token speaks for now, or nil. A damaged registry grants nothing from it.
    func grant(forTokenHash hash: String) -> Grant? {
        if let grant = fixed[hash] { return grant }
        guard let member = try? registry?.current().member(forTokenHash: hash) else { return nil }
        return Grant(name: member.name, role: member.role)
    }

    /// The name of the removed member whose token this was, or nil: they are told they were
    /// removed, where a stranger's token only hears that it is not valid.
    func removedMember(forTokenHash hash: String) -> String? {
        guard fixed[hash] == nil else { return nil }
        return try? registry?.current().removedMember(forTokenHash: hash)
    }

    // MARK: - Failed attempts

    func gate(_ address: String) -> AuthThrottle.Gate {
        state.withLock { $0.throttle.gate(address, now: Self.now) }
    }

    func failed(_ address: String, what: String) {
        let started = state.withLock { $0.throttle.failed(address, now: Self.now) }
        if let started {
            logger.warning("authentication: too many failed \(what)s from \(address); refusing it for \(Int(started)) s")
        } else {
            logger.notice("authentication: a failed \(what) from \(address)")
        }
    }

    private static var now: TimeInterval { Date().timeIntervalSinceReferenceDate }

    // MARK: - Requests in flight

    func enter(tokenHash: String, grant: Grant, channel: any Channel) -> UInt64 {
        state.withLock { state in
            state.nextID += 1
            state.inFlight[state.nextID] = InFlight(tokenHash: tokenHash, grant: grant, channel: channel)
            return state.nextID
        }
    }

    func leave(_ id: UInt64) {
        _ = state.withLock { $0.inFlight.removeValue(forKey: id) }
    }

    /// Whether a token once spoke for a member and no longer does (removed): refused even where
    /// an unknown token is ignored (a longpoll).
    func wasRevoked(_ tokenHash: String) -> Bool {
        state.withLock { $0.revoked.contains(tokenHash) } || removedMember(forTokenHash: tokenHash) != nil
    }

    /// Closes the connection of every request whose token lost its member or changed role.
    /// Returns how many were cut.
    @discardableResult
    func revokeStale() -> Int {
        if let book = try? registry?.current() {
            let now = Set(book.members.flatMap(\.tokenHashes))
            state.withLock { state in
                state.revoked.formUnion(state.known.subtracting(now))
                state.revoked.subtract(now)
                state.known = now
            }
        }
        let inFlight = state.withLock { Array($0.inFlight) }
        var cut: [UInt64] = []
        for (id, request) in inFlight where grant(forTokenHash: request.tokenHash) != request.grant {
            cut.append(id)
            logger.notice("members: \(request.grant.name)'s request in flight cut (removed or role changed)")
            request.channel.close(promise: nil)
        }
        state.withLock { state in for id in cut { state.inFlight.removeValue(forKey: id) } }
        return cut.count
    }
}

/// The member making the current request, for the roles' checks deep inside a handler.
enum CallerRole {
    @TaskLocal static var role: MemberRole?

    /// Whether metadata should say `read_only: true`: the caller is a reader.
    static var readsOnly: Bool { role == .reader }
}

/// Looks at the member registry a few times a second: a change made by `byteclub members --root`
/// (another process) cuts the requests it revoked at once, not at their member's next request.
struct MemberWatcher: Service {
    let authenticator: Authenticator
    let store: FolderStore
    let interval: Duration

    func run() async throws {
        // Returning would end the server's service group: without a registry it is not started.
        guard let registry = authenticator.registry else { preconditionFailure("MemberWatcher needs a registry") }
        if authenticator.hasMembers { await store.showAuthors() }
        authenticator.revokeStale()
        try? await cancelWhenGracefulShutdown {
            var seen = registry.generation
            while !Task.isCancelled {
                try await Task.sleep(for: interval)
                _ = try? registry.current()
                guard registry.generation != seen else { continue }
                seen = registry.generation
                authenticator.revokeStale()
                if authenticator.hasMembers { await store.showAuthors() }
            }
        }
    }
}
