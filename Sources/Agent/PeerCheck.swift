#if canImport(Glibc)
import Glibc
#endif

/// Who may talk to the agent: only the user it runs as.
///
/// The socket's 0600 mode and its 0700 folder already keep others out; this is the second
/// lock, checked on every accepted connection with the kernel's word for the peer (SO_PEERCRED),
/// so a socket made reachable by mistake (a loosened mode, root's bypass of modes) still
/// serves no one else. Root is not let in either: the agent runs a user's transfers with a
/// user's credentials, and root has no need of them through this door.
public struct PeerCheck: Sendable, Equatable {
    public let owner: uid_t

    public init(owner: uid_t = getuid()) { self.owner = owner }

    /// nil when the peer may talk; else the line the agent sends before hanging up.
    public func refusal(peer: uid_t?) -> String? {
        guard let peer else { return "cannot tell who is connecting; refused" }
        guard peer == owner else { return "this agent belongs to uid \(owner); uid \(peer) is refused" }
        return nil
    }
}
