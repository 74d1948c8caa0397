import Foundation
import LocalClub
import Remote
import SearchIndex

/// What this machine keeps for a club, by the club's ``Backend/key``: the one place the command
/// line and the app find the outbox, the offline cache and the search index of the club they
/// are connected to.
extension Backend {
    /// What waits to be sent to this club (`$XDG_STATE_HOME/byteclub/outbox/KEY`).
    public var outbox: Outbox { Outbox(directory: Paths.outbox(key)) }

    /// The club's listings and notes as last seen, for offline starts (`$XDG_CACHE_HOME/byteclub/KEY`).
    public var cache: ClubCache { ClubCache(directory: Paths.cache(key)) }

    /// The club's search index, beside its cache; a failure to open it says why.
    public func searchIndex() throws(RemoteError) -> SearchIndex {
        do {
            return try SearchIndex(directory: Paths.cache(key))
        } catch {
            throw RemoteError.local(error.description)
        }
    }
}
