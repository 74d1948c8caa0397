import ArgumentParser
import Foundation
import Transfer

/// The default command: the terminal UI. Until it lands, it says so.
struct Open: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "open",
        abstract: "Open the terminal UI (the default).",
        shouldDisplay: false
    )

    func run() async throws {
        print("byteclub \(ByteClub.configuration.version): the terminal UI is not written yet.")
        print("What works today: `byteclub serve --root DIR` (a Dropbox-v2-compatible club server),")
        print("the Transfer networking layer (libcurl \(Transfer.libcurlVersion)) and `make bench`.")
    }
}
