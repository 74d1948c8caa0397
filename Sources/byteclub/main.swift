import ArgumentParser
import Transfer

/// The byteclub command line. Until the TUI lands, running it prints what exists so far.
struct ByteClub: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "byteclub",
        abstract: "A terminal client for a club's shared folder of notes and photos.",
        version: "0.1.0"
    )

    func run() throws {
        print("byteclub \(Self.configuration.version): the networking layer (Transfer, libcurl \(Transfer.libcurlVersion)) is built;")
        print("the club server and the terminal UI are not written yet. Try `make bench` or `make test`.")
    }
}

ByteClub.main()
