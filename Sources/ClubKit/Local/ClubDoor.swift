import Foundation
import Remote

/// Someone waiting to join an encrypted club: the name they asked under and their fingerprint.
public struct JoinRequestSummary: Sendable, Equatable {
    public var name: String
    public var fingerprint: String

    public init(name: String, fingerprint: String) {
        self.name = name
        self.fingerprint = fingerprint
    }
}

/// An encrypted club's door, as the app sees it: who is waiting, and letting them in (the
/// command line's `members admit`; the keys themselves stay in ClubKit).
public protocol ClubDoor: Sendable {
    func waiting() async throws(RemoteError) -> [JoinRequestSummary]
    func admit(_ name: String) async throws(RemoteError)
}
