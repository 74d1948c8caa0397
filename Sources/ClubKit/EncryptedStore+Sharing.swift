import ClubCrypt
import Foundation
import Remote

/// Share links in an encrypted club: the server can only publish what it can read, so a link
/// is to a decrypted copy, put beside the club's keys (`.clubkeys/shared/ID/NAME`) and readable
/// by anyone with the link. The app and `byteclub share` ask before making one
/// (``SharingStore/sharesDecryptedCopies``).
extension EncryptedStore: SharingStore {
    public var sharesDecryptedCopies: Bool { true }

    /// Where the decrypted copy of `path` goes: a folder named by a keyed hash of the path (the
    /// path itself stays hidden), and the file's own name (which the link shows anyway).
    func sharedCopy(of path: String) -> String {
        ClubKeyFiles(clubFolder: folder).folder + "/shared/" + keyedID(of: path, for: "shared") + "/" + (path as NSString).lastPathComponent
    }

    var sharing: (any SharingStore)? { inner as? any SharingStore }

    /// A name for something kept about `path` beside the keys: 12 bytes of SHA-256 over the
    /// names key, `purpose` and the path, in hex, so the server learns nothing of the path.
    func keyedID(of path: String, for purpose: String) -> String {
        Data((keyring.secrets.names + "\n" + purpose + "\n" + signedPath(path)).utf8).sha256.prefix(12).map { String(format: "%02x", $0) }.joined()
    }

    public func createSharedLink(_ path: String, expires: Date?) async throws(RemoteError) -> (link: RemoteSharedLink, existed: Bool) {
        guard let sharing else { throw .notSupported("share links (\(inner.displayName) cannot make them)") }
        let (data, _) = try await read(path)
        let copy = sharedCopy(of: path)
        _ = try await inner.upload(data: data, to: copy, mode: .overwrite, autorename: false)
        var made = try await sharing.createSharedLink(copy, expires: expires)
        made.link.path = path
        return made
    }

    public func sharedLinks(_ path: String?) async throws(RemoteError) -> [RemoteSharedLink] {
        guard let sharing else { return [] }
        return try await sharing.sharedLinks(path.map(sharedCopy(of:))).map { link in
            var shown = link
            // A copy's own path names nothing the member knows; its name is the note's.
            shown.path = path
            return shown
        }
    }

    public func revokeSharedLink(url: String) async throws(RemoteError) {
        guard let sharing else { throw .notSupported("share links (\(inner.displayName) cannot make them)") }
        let copy = try await sharing.sharedLinks(nil).first { $0.url == url }?.path
        try await sharing.revokeSharedLink(url: url)
        // The decrypted copy goes with its link.
        if let copy { _ = try? await inner.delete(copy) }
    }
}
