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
