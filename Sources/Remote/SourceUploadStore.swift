import DropboxWire
import Foundation
import Transfer

/// A body made as it is sent (Transfer's ``Transfer/UploadSource``), for stores' callers that
/// do not import Transfer.
public typealias UploadSource = Transfer.UploadSource
public typealias UploadSourceReader = Transfer.UploadSourceReader

/// What an upload sends: a file as it lies, or a source made as it is sent.
enum UploadContent: Sendable {
    case file(URL)
    case source(any UploadSource)

    /// `length` bytes from `offset`, as a request body of the Dropbox client.
    func body(offset: Int64, length: Int64) -> DropboxStore.Body {
        switch self {
        case .file(let url): .file(url, offset: offset, length: length)
        case .source(let source): .source(source, offset: offset, length: length)
        }
    }

    /// Dropbox's content hash of all of it.
    func contentHash() throws -> String {
        switch self {
        case .file(let url):
            return try ContentHasher.hash(fileAt: url.path)
        case .source(let source):
            let reader = try source.reader(offset: 0, length: source.length)
            var hasher = ContentHasher()
            var buffer = [UInt8](repeating: 0, count: 1 << 20)
            var left = source.length
            while left > 0 {
                let count = try buffer.withUnsafeMutableBytes { try reader.read(into: UnsafeMutableRawBufferPointer(rebasing: $0[0..<Int(min(left, 1 << 20))])) }
                guard count > 0 else { throw RemoteError.local("the upload's body ended early") }
                buffer.withUnsafeBytes { hasher.update(UnsafeRawBufferPointer(rebasing: $0[0..<count])) }
                left -= Int64(count)
            }
            return hasher.finalize()
        }
    }

    /// What the content is called in a message.
    var name: String {
        switch self {
        case .file(let url): url.path
        case .source: "the upload's body"
        }
    }
}

/// A store that can upload a body made as it is sent (an encrypted club's sealed file, made
/// from the plaintext a chunk at a time, issue 56), so no copy of the file is written first.
///
/// `resuming` and `onSession` are ``ResumableUploadStore``'s: a store with upload sessions
/// continues the session (the source gives the same bytes again); one without (WebDAV) sends
/// the whole body and never calls `onSession`.
public protocol SourceUploadStore: RemoteStore {
    func upload(source: any UploadSource, to path: String, mode: WriteMode, autorename: Bool, resuming: UploadSessionMark?, streams: Int?,
                onSession: (@Sendable (UploadSessionMark) -> Void)?, progress: ProgressHandler?) async throws(RemoteError) -> RemoteEntry
}

/// A store that hands a file's bytes to a consumer as they arrive, from any offset, so a
/// reader can work on them as they come (an encrypted club opens each chunk as it arrives,
/// issue 56) rather than after the whole file is on disk.
public protocol StreamingDownloadStore: RemoteStore {
    /// The bytes of `path` from `offset` to its end, handed to `receive` in order as they arrive
    /// (in pieces of any size), with the retries of any idempotent call: a retry goes on from
    /// the last byte handed over, never handing a byte twice. `began` hears the file's entry
    /// (its rev, its size) before the first byte. With `rev`, an answer for any other revision
    /// is refused with ``StreamingDownloadChanged`` (the caller starts over); an error `receive`
    /// throws ends the download with it.
    func stream(_ path: String, from offset: Int64, rev: String?, progress: ProgressHandler?,
                began: @escaping @Sendable (RemoteEntry) throws -> Void,
                receive: @escaping @Sendable (Data) throws -> Void) async throws -> RemoteEntry
}

/// The file changed since the offset a streamed download continues from was reached.
public struct StreamingDownloadChanged: Error, Sendable {
    public init() {}
}
