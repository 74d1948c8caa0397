import DropboxWire
import Foundation
import Transfer

/// Upload sessions that another process can continue: the same ``UploadSessionStateMachine``
/// as `upload(file:…)`, one chunk at a time, with the session's mark handed out after each
/// acknowledged chunk and a way back in through ``UploadSessionStateMachine/init(size:chunkSize:retry:resuming:offset:)``.
extension DropboxStore: ResumableUploadStore {
    public func upload(file: URL, to path: String, mode: WriteMode, autorename: Bool, resuming: UploadSessionMark?,
                       onSession: @escaping @Sendable (UploadSessionMark) -> Void, progress: ProgressHandler?) async throws(RemoteError) -> RemoteEntry {
        let size: Int64
        do {
            let attributes = try FileManager.default.attributesOfItem(atPath: file.path)
            guard attributes[.type] as? FileAttributeType == .typeRegular else { throw RemoteError.local("Not a regular file: \(file.path)") }
            size = (attributes[.size] as? NSNumber)?.int64Value ?? 0
        } catch let error as RemoteError {
            throw error
        } catch {
            throw .local(FileManager.default.fileExists(atPath: file.path) ? "Cannot read \(file.path)" : "No such file: \(file.path)")
        }
        guard size > singleUploadLimit else {
            return try await upload(file: file, to: path, mode: mode, autorename: autorename, progress: progress)
        }
        if let resuming {
            do {
                return try await sessionLoop(file: file, size: size, to: path, mode: mode, autorename: autorename,
                                             resuming: resuming, onSession: onSession, progress: progress)
            } catch {
                // Gone (expired, or its server restarted): a new session from the first byte.
                if case .remote(let failure) = error { throw failure }
            }
        }
        do {
            return try await sessionLoop(file: file, size: size, to: path, mode: mode, autorename: autorename,
                                         resuming: nil, onSession: onSession, progress: progress)
        } catch {
            if case .remote(let failure) = error { throw failure }
            throw .server(status: 409, detail: "the upload session vanished")
        }
    }
}
