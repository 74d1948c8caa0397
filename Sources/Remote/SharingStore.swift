import DropboxWire
import Foundation

/// A share link of one file, for people outside the club.
public struct RemoteSharedLink: Sendable, Hashable, Codable {
    public var url: String
    public var name: String
    /// The linked file's path (lower case) where the server says, else nil.
    public var path: String?
    public var expires: Date?

    public init(url: String, name: String, path: String?, expires: Date?) {
        self.url = url
        self.name = name
        self.path = path
        self.expires = expires
    }
}

/// A store that can make share links: Dropbox and the club server (`sharing/*`). WebDAV has
/// no such thing, and says so through ``sharingStore(_:)``.
///
/// A protocol of its own rather than more requirements of `RemoteStore`: only some stores
/// can share, and asking `store as? SharingStore` says which.
public protocol SharingStore: RemoteStore {
    /// A public link to the file at `path`, expiring at `expires` if given. A file that has a
    /// link already gets that one back (`existed`), as Dropbox answers, whatever `expires` says.
    func createSharedLink(_ path: String, expires: Date?) async throws(RemoteError) -> (link: RemoteSharedLink, existed: Bool)
    /// The links of one file, or of everything when `path` is nil.
    func sharedLinks(_ path: String?) async throws(RemoteError) -> [RemoteSharedLink]
    /// Ends a link; an unknown one is `.notFound(url)`.
    func revokeSharedLink(url: String) async throws(RemoteError)
    /// Whether a link publishes a decrypted copy of an encrypted club's file (then the app and
    /// `byteclub share` ask first); false but for an encrypted club.
    var sharesDecryptedCopies: Bool { get }
}

extension SharingStore {
    public var sharesDecryptedCopies: Bool { false }
}

/// `store` as a ``SharingStore``, or the error a person should read when it cannot share.
public func sharingStore(_ store: any RemoteStore) throws(RemoteError) -> any SharingStore {
    if let sharing = store as? any SharingStore { return sharing }
    // Said as every capability a backend lacks is said (exit 1 in the CLI).
    if store is WebDAVStore { throw .notSupported("share links (this WebDAV server cannot make them)") }
    throw .notSupported("share links (\(store.displayName) cannot make them)")
}
