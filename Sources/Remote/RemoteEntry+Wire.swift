import DropboxWire
import Foundation

// The wire vocabulary that Remote's own API speaks. One definition each lives in DropboxWire;
// these names keep the app and the CLI compiling with `import Remote` alone.

/// How an upload treats an existing file: `.add`, `.overwrite` or `.update(rev:)`.
public typealias WriteMode = DropboxWire.WriteMode
/// Dropbox's thumbnail sizes, e.g. `.w128h128`.
public typealias ThumbnailSize = DropboxWire.ThumbnailSize
/// Dropbox's content hash, as a store's entries carry it in ``RemoteEntry/contentHash``.
public typealias ContentHasher = DropboxWire.ContentHasher
/// Dropbox's JSON conventions (the ASCII-only escaping of header arguments).
public typealias DropboxJSON = DropboxWire.DropboxJSON
/// The rule for a name from the network used as a local file name (one path component).
public typealias SafeName = DropboxWire.SafeName
/// The one sanitizer for text from the network printed to a terminal.
public typealias TerminalSafe = DropboxWire.TerminalSafe

extension RemoteAccount {
    /// Whether this is a club's shared token's account (``ClubAccount``'s `club`): it speaks
    /// for whoever holds the token, so its name is no person's.
    public var isSharedToken: Bool { ClubAccount.isShared(id) }
}

extension RemoteEntry {
    /// The one mapping from the wire's metadata to an entry.
    ///
    /// An entry needs a path: Dropbox leaves paths out only for files not mounted in this
    /// account, which a club folder never holds. A deleted entry (only in listings that ask
    /// for them, which we never do) reads as a file, as it always has.
    init(_ metadata: Metadata) throws(RemoteError) {
        switch metadata {
        case .file(let file):
            try self.init(file)
        case .folder(let folder):
            try self.init(kind: .folder, name: folder.name, pathDisplay: folder.pathDisplay, pathLower: folder.pathLower, id: folder.id)
        case .deleted(let deleted):
            try self.init(kind: .file, name: deleted.name, pathDisplay: deleted.pathDisplay, pathLower: deleted.pathLower)
        }
    }

    /// A file's entry. Uploads and downloads answer with a file's metadata alone, without `.tag`.
    init(_ file: FileMetadata) throws(RemoteError) {
        try self.init(kind: .file, name: file.name, pathDisplay: file.pathDisplay, pathLower: file.pathLower, id: file.id,
                      rev: file.rev, size: file.size, modified: file.serverModified, contentHash: file.contentHash,
                      modifiedBy: file.sharingInfo?.modifiedBy)
        if file.sharingInfo?.readOnly == true { readOnly = true }
    }

    private init(kind: Kind, name: String, pathDisplay: String?, pathLower: String?, id: String? = nil, rev: String? = nil,
                 size: Int64 = 0, modified: Date? = nil, contentHash: String? = nil, modifiedBy: String? = nil) throws(RemoteError) {
        guard let display = pathDisplay ?? pathLower else {
            throw .server(status: 0, detail: "the server sent metadata without a name or path")
        }
        self.init(kind: kind, name: name, path: display, pathLower: pathLower ?? display.lowercased(), id: id, rev: rev,
                  size: size, modified: modified, contentHash: contentHash, modifiedBy: modifiedBy)
    }
}

extension DropboxStore {
    /// A wire type from an answer's JSON. A cut-off or garbled answer means the server (or a
    /// proxy) failed, which is worth retrying.
    /// A listing page is read by ``ListingPageReader`` first (``QuickReadable``).
    static func decode<T: Decodable>(_ type: T.Type, from data: Data) throws(RemoteError) -> T {
        if let quick = T.self as? any QuickReadable.Type, let value = quick.quickRead(data) as? T { return value }
        do {
            return try JSONDecoder().decode(T.self, from: data)
        } catch {
            throw .server(status: 0, detail: "the server's answer was not valid JSON")
        }
    }

    /// The Dropbox error in an error answer's body, if it has one.
    static func dropboxError(_ body: Data) -> DropboxError? {
        try? JSONDecoder().decode(DropboxError.self, from: body)
    }
}
