import Foundation

/// A request body made as it is sent rather than read from a file as it lies: an encrypted
/// club's sealed file, made from the plaintext a chunk at a time, so nothing the size of the
/// file is written to disk before the upload (issue 56).
///
/// The bytes must be the same every time a range is read (a retried request, a rewind, a
/// session resumed by another process): a source is a function of what it was made from.
public protocol UploadSource: Sendable {
    /// The whole body's size.
    var length: Int64 { get }
    /// A reader of bytes `offset ..< offset + length`, owned by one request and used on one
    /// thread at a time (the session's queue).
    func reader(offset: Int64, length: Int64) throws -> any UploadSourceReader
}

/// One request's cursor over an ``UploadSource``.
public protocol UploadSourceReader: AnyObject {
    /// Fills `buffer` from the cursor on; 0 only at the end of the reader's range.
    func read(into buffer: UnsafeMutableRawBufferPointer) throws -> Int
    /// Moves the cursor to `offset` within the reader's range; false when it cannot.
    func seek(to offset: Int64) -> Bool
}
