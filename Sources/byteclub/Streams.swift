import ArgumentParser
import Foundation
import Remote

/// `--streams N`, for `put` and `get`: how many connections a large file may use.
struct StreamsOption: ParsableArguments {
    @Option(help: ArgumentHelp("Connections for a large file (1-16; default 4 for a file of 32 MiB or more, or 1 for a server on this machine); an N given here is used for any file of N × 4 MiB or more.",
                               valueName: "N"))
    var streams: Int?

    func validate() throws {
        guard let streams else { return }
        guard TransferStreams.allowed.contains(streams) else {
            throw ValidationError("--streams must be between \(TransferStreams.allowed.lowerBound) and \(TransferStreams.allowed.upperBound)")
        }
    }
}

extension RemoteStore {
    /// An upload over `streams` connections where the store can do that, else over one.
    func put(file: URL, to path: String, mode: WriteMode, autorename: Bool, progress: ProgressHandler?,
             streams: Int?) async throws(RemoteError) -> RemoteEntry {
        if let parallel = self as? any ParallelTransferStore {
            return try await parallel.upload(file: file, to: path, mode: mode, autorename: autorename, progress: progress, streams: streams)
        }
        return try await upload(file: file, to: path, mode: mode, autorename: autorename, progress: progress)
    }

    /// A download over `streams` connections where the store can do that, else over one.
    func get(_ path: String, to destination: URL, resumeData: Data?, progress: ProgressHandler?,
             onResumeData: (@Sendable (Data) -> Void)?, streams: Int?) async throws(RemoteError) -> RemoteEntry {
        if let parallel = self as? any ParallelTransferStore {
            return try await parallel.download(path, to: destination, resumeData: resumeData, progress: progress, onResumeData: onResumeData,
                                               streams: streams)
        }
        return try await download(path, to: destination, resumeData: resumeData, progress: progress, onResumeData: onResumeData)
    }
}
