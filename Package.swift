// swift-tools-version: 6.1
import PackageDescription

/// `make fuzz` builds with BYTECLUB_FUZZ=1: the modules that parse bytes from outside (and the
/// fuzz targets over them) get libFuzzer's coverage and AddressSanitizer, and are compiled for
/// `@testable import` in release. Only these: the dependencies keep their flags, so their release
/// build is shared with `make bench` and coverage counts our parsers, not NIO's or GRDB's.
let fuzzing = Context.environment["BYTECLUB_FUZZ"] == "1"
let fuzzed: [SwiftSetting] = fuzzing ? [.unsafeFlags(["-sanitize=fuzzer,address", "-enable-testing"]), .define("FUZZING")] : []

let package = Package(
    name: "byteclub",
    platforms: [.macOS(.v15)],
    products: [
        .executable(name: "byteclub", targets: ["byteclub"]),
        .executable(name: "transfer-bench", targets: ["transfer-bench"]),
        .executable(name: "ui-bench", targets: ["ui-bench"]),
        .executable(name: "app-bench", targets: ["app-bench"]),
        .executable(name: "search-bench", targets: ["search-bench"]),
        .executable(name: "byteclub-torture", targets: ["byteclub-torture"]),
        .library(name: "Transfer", targets: ["Transfer"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.2"),
        .package(url: "https://github.com/apple/swift-nio", from: "2.101.2"),
        .package(url: "https://github.com/apple/swift-log", from: "1.16.2"),
        .package(url: "https://github.com/apple/swift-crypto", from: "3.12.3"),
        .package(url: "https://github.com/hummingbird-project/hummingbird", from: "2.28.1"),
        // The club server's live channel (/2/byteclub/live), a WebSocket per member in a note.
        .package(url: "https://github.com/hummingbird-project/hummingbird-websocket", from: "2.8.1"),
        .package(url: "https://github.com/apple/swift-http-types", from: "1.8.0"),
        // The club server's TLS (through HummingbirdTLS) and its self-signed certificate.
        .package(url: "https://github.com/apple/swift-nio-ssl", from: "2.37.6"),
        .package(url: "https://github.com/apple/swift-certificates", from: "1.21.1"),
        .package(url: "https://github.com/apple/swift-asn1", from: "1.0.0"),
        .package(url: "https://github.com/swift-server/swift-service-lifecycle", from: "2.13.0"),
        // config.toml's parser (toml++ underneath).
        .package(url: "https://github.com/LebJe/TOMLKit", from: "0.6.0"),
        // The search index's SQLite (FTS5); on Linux it links the system libsqlite3.
        .package(url: "https://github.com/groue/GRDB.swift", from: "7.10.0"),
        // A note's YAML front matter (Markdown's FrontMatter), parsed by a real YAML library.
        .package(url: "https://github.com/jpsim/Yams", from: "6.2.2"),
        // AsyncChannel: `ls` prints one page while the next is decoded, and never queues more
        // (Hummingbird builds it already).
        .package(url: "https://github.com/apple/swift-async-algorithms", from: "1.0.2"),
    ],
    targets: [
        // MARK: C libraries (system-library targets with shim headers)

        // libcurl through pkg-config, with small C shims for its variadic functions.
        .systemLibrary(name: "CCurl", pkgConfig: "libcurl", providers: [.apt(["libcurl4-openssl-dev"])]),
        // ncursesw, with NCURSES_WIDECHAR forced on and shims for macros and C globals.
        .systemLibrary(name: "CNcursesw", pkgConfig: "ncursesw", providers: [.apt(["libncursesw5-dev"])]),
        // The terminal's own C (a real target, like swift-nio's CNIOLinux): crash handlers that restore
        // the terminal, the signal mask, size and input ioctls, cell widths. Uses terminfo from ncursesw.
        .target(name: "CTerminalShim", dependencies: ["CNcursesw"]),
        // libjpeg-turbo's TurboJPEG API.
        .systemLibrary(name: "CTurboJPEG", pkgConfig: "libturbojpeg", providers: [.apt(["libturbojpeg0-dev"])]),
        // libspng: PNG decoded a row at a time within set limits, and encoded (PNG thumbnails).
        .systemLibrary(name: "CSpng", pkgConfig: "spng", providers: [.apt(["libspng-dev"])]),
        // libwebp: WebP decoded with scaling, and an animated one's first frame (its demuxer).
        .systemLibrary(name: "CWebP", pkgConfig: "libwebpdemux", providers: [.apt(["libwebp-dev"])]),
        // giflib: a GIF's first frame, read record by record.
        .systemLibrary(name: "CGif", pkgConfig: "libgif", providers: [.apt(["libgif-dev"])]),
        // librsvg: SVG rasterised onto a cairo surface, from memory with no base file (no file or URL
        // loaded). Loaded with dlopen on the first SVG, not linked: it brings some 50 libraries that
        // only a process drawing an SVG should pay for (the header declares the calls it makes).
        .systemLibrary(name: "CRsvg", providers: [.apt(["librsvg2-dev"])]),
        // libchafa's canvas (image to terminal symbols); its pkg-config file needs glib's headers.
        .systemLibrary(name: "CChafa", pkgConfig: "chafa", providers: [.apt(["libchafa-dev", "libglib2.0-dev"])]),
        // cmark-gfm, GitHub's CommonMark parser, and its table/strikethrough/autolink/tasklist
        // extensions (Debian has no pkg-config file for the extensions: the module map links both).
        .systemLibrary(name: "CCmarkGFM", providers: [.apt(["libcmark-gfm-dev", "libcmark-gfm-extensions-dev"])]),
        // The agent's C: SO_PEERCRED's peer uid and a detached (setsid, double fork) start.
        .target(name: "CAgentShim"),
        // glibc's malloc controls: the club server gives a big decode's freed memory back.
        .systemLibrary(name: "CMalloc"),

        // MARK: Layers

        // syncfs(2), which glibc declares only under _GNU_SOURCE: many files flushed at once.
        .target(name: "CDurableShim"),
        // The one durable file write (temp, fsync, rename, folder fsync), below everything that keeps state.
        .target(name: "Durable", dependencies: ["CDurableShim"]),
        // URLSession-style networking on libcurl multi + Dispatch. No app knowledge.
        .target(name: "Transfer", dependencies: ["CCurl"]),
        // Pictures decoded by their magic bytes (JPEG with DCT scaling, PNG, GIF, WebP, SVG rasterised),
        // within one pixel limit; resize; JPEG and PNG encode.
        .target(name: "Imaging", dependencies: ["CTurboJPEG", "CSpng", "CWebP", "CGif", "CRsvg"], swiftSettings: fuzzed),
        // The Dropbox v2 wire vocabulary, one definition each: metadata, unions, timestamps, errors.
        .target(name: "DropboxWire", dependencies: [.product(name: "Crypto", package: "swift-crypto")], swiftSettings: fuzzed),
        // RemoteStore, the Dropbox v2 and WebDAV clients over Transfer, with retries and OAuth2 PKCE.
        // No Imaging: a store only moves bytes; thumbnails a server cannot make are made in the app.
        .target(
            name: "Remote",
            dependencies: [
                "Transfer",
                "DropboxWire",
                "Durable",
                // A live note's WebSocket (LiveSocket); the club server's side is ClubServer's.
                .product(name: "HummingbirdWSClient", package: "hummingbird-websocket"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: fuzzed
        ),
        // The Dropbox-v2-compatible club server over a folder (Hummingbird 2).
        .target(
            name: "ClubServer",
            dependencies: [
                "CMalloc",
                "DropboxWire",
                "Durable",
                "Imaging",
                "SearchIndex",
                // A shared note opened in a browser is rendered as a page (ClubAPI+NotePage).
                "Markdown",
                // A plain club's live log is compacted into one snapshot at each revision (LiveHub.compact),
                // and its note written from it, a change made outside merged in (LiveFileText).
                "LiveText",
                "NoteMerge",
                .product(name: "Hummingbird", package: "hummingbird"),
                // The connection rules (timeouts, caps) are NIO channel handlers around Hummingbird's HTTP/1.1 channel.
                .product(name: "HummingbirdCore", package: "hummingbird"),
                // HTTPS by default (`serve --insecure-http` for plain), with a certificate of its own.
                .product(name: "HummingbirdTLS", package: "hummingbird"),
                .product(name: "HummingbirdWebSocket", package: "hummingbird-websocket"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
                .product(name: "X509", package: "swift-certificates"),
                .product(name: "SwiftASN1", package: "swift-asn1"),
                .product(name: "NIOCore", package: "swift-nio"),
                // ServerIdentity.probe: a client handshake, for trust on first use.
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOTLS", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: fuzzed
        ),
        // The sample club (notes and photos) that seeds the embedded server on first run.
        .target(name: "SampleClub", path: "Resources", sources: ["SampleClub.swift"], resources: [.copy("SampleClub")]),
        // ncursesw driver, Canvas, keys, event loop, compositor, widgets, and images drawn in cells.
        .target(name: "TerminalUI", dependencies: ["CNcursesw", "CTerminalShim", "CChafa"], swiftSettings: fuzzed),

        // Full-text search over the notes: SQLite FTS5 through GRDB. No Remote, no app knowledge.
        .target(name: "SearchIndex", dependencies: [.product(name: "GRDB", package: "GRDB.swift"), "Markdown", "Durable"], swiftSettings: fuzzed),
        // The background transfer owner: a Unix-socket server over Remote (and so Transfer), and its client.
        .target(name: "Agent", dependencies: ["Remote", "DropboxWire", "Durable", "CAgentShim"], swiftSettings: fuzzed),

        // Markdown highlighting: spans of lines from cmark-gfm's parse tree and source positions;
        // a note's YAML front matter through Yams.
        .target(name: "Markdown", dependencies: ["CCmarkGFM", .product(name: "Yams", package: "Yams")], swiftSettings: fuzzed),

        // Encrypted clubs: the age v1 format (X25519, scrypt), byteclub's write signatures and hidden names.
        .target(name: "ClubCrypt", dependencies: [.product(name: "Crypto", package: "swift-crypto"),
                                                  .product(name: "_CryptoExtras", package: "swift-crypto")], swiftSettings: fuzzed),
        // The three-way line merge (diff3) of a note's text. Pure Swift, no dependencies.
        .target(name: "NoteMerge"),
        // A note's text as a CRDT for live editing: Yjs's YATA over one root Y.Text and Yjs's
        // update format v1, so Yjs and Yrs (pycrdt) peers read and write it. Pure Swift, no UI, no network.
        .target(name: "LiveText", swiftSettings: fuzzed),

        // App state and screens: tabs, notes, editor, photos, transfer modal, drafts. No ncurses
        // here. The club's rules come from the core (ClubKit), which the command line imports too.
        .target(name: "ByteClubApp", dependencies: ["ClubKit", "TerminalUI", "Remote", "Durable", "Imaging", "NoteMerge", "SearchIndex", "Markdown", .product(name: "Logging", package: "swift-log")]),

        // config.toml: parsed and checked (TOMLKit), apart from the executable so the fuzzer and tests import it.
        .target(name: "ByteClubConfig", dependencies: [.product(name: "TOMLKit", package: "TOMLKit")], swiftSettings: fuzzed),

        // One libFuzzer target per parser of bytes from outside (`make fuzz`); the replay test runs their seeds.
        .target(
            name: "FuzzTargets",
            dependencies: [
                "ClubServer", "DropboxWire", "Remote", "TerminalUI", "Agent", "SearchIndex", "ByteClubConfig", "Markdown", "ClubCrypt", "Imaging", "LiveText", "ClubKit",
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOEmbedded", package: "swift-nio"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: fuzzed
        ),

        // MARK: Test and benchmark support

        // A small, scriptable HTTP/1.1 server on loopback for tests and benchmarks.
        .target(
            name: "LoopbackHTTP",
            dependencies: [
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                // TLSInterceptor: a TLS-terminating proxy with a certificate of its own.
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
            ]
        ),

        // MARK: Executables

        // The core both shells import (issue 69: one core, one answer), with no UI: the backend's
        // construction (embedded, club, Dropbox, WebDAV), account fallbacks, folder migrations,
        // paths, secrets; and (Local/) what the club keeps on this machine: drafts, the outbox and
        // its one write path, the offline cache, the club folder's layout, a note's front matter
        // and its tags agreeing, which note a title or link names (NoteResolver), links kept
        // through renames and moves (LinkRewrite), and how the club's search index is kept current.
        .target(
            name: "ClubKit",
            dependencies: ["Remote", "ClubServer", "SampleClub", "SearchIndex", "Agent", "ByteClubConfig", "ClubCrypt", "Durable", "Imaging",
                           "Markdown", "DropboxWire", "NoteMerge", "LiveText",
                           .product(name: "Crypto", package: "swift-crypto"), .product(name: "Logging", package: "swift-log")],
            swiftSettings: fuzzed
        ),
        // The command line's shell: each command parses its arguments, calls the core (ClubKit)
        // and prints the result. A library, as the app's shell (ByteClubApp) is, so
        // that the executable is only where the two start.
        .target(
            name: "ClubCLI",
            dependencies: [
                "ClubKit",
                "Remote",
                "ClubServer",
                "SampleClub",
                "TerminalUI",
                "SearchIndex",
                "Agent",
                "Durable",
                "DropboxWire",
                "Transfer",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Logging", package: "swift-log"),
                "ByteClubConfig",
                // `cat --render` lays a note out as the app's rendered view does.
                "Markdown",
                // `edit` merges a draft with a change made meanwhile.
                "NoteMerge",
                "ClubCrypt",
                .product(name: "AsyncAlgorithms", package: "swift-async-algorithms"),
            ]
        ),
        // The executable: the command tree, the app's start (`open`) and the app's agent.
        .executableTarget(
            name: "byteclub",
            dependencies: [
                "ClubCLI",
                "ClubKit",
                "Remote",
                "ByteClubApp",
                "TerminalUI",
                "Agent",
                "Durable",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Logging", package: "swift-log"),
                "ByteClubConfig",
            ],
            // A release byteclub carries the Swift runtime and Foundation in itself: a start loads 53
            // libraries, not 68, and binds 13,891 symbols, not 21,908 (the dynamic loader was 40% of
            // `byteclub --version`'s cycles), so `cat PATH` takes 59 -> 43 ms of CPU. At compile time
            // the flag makes this module's object name every static library Foundation needs
            // (StaticLink.swift); debug builds stay dynamic, for their link time.
            swiftSettings: [.unsafeFlags(["-static-stdlib"], .when(configuration: .release))],
            linkerSettings: [.unsafeFlags(["-static-stdlib"], .when(configuration: .release))]
        ),
        .executableTarget(
            name: "transfer-bench",
            dependencies: [
                "Transfer",
                "LoopbackHTTP",
                "DropboxWire",
                "ClubServer",
                "Imaging",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ]
        ),

        // libFuzzer's driver over FuzzTargets under `make fuzz`; otherwise it replays the files it is given.
        .executableTarget(
            name: "byteclub-fuzz",
            dependencies: ["FuzzTargets"],
            swiftSettings: fuzzed,
            // libFuzzer without its main (ours calls LLVMFuzzerRunDriver); `make fuzz` passes the archive.
            linkerSettings: fuzzing ? [.unsafeFlags(["-sanitize=address"])] : []
        ),

        .executableTarget(name: "ui-bench", dependencies: ["TerminalUI", "NoteMerge", "ClubKit"]),
        // Search side by side: the index (through `byteclub search`), rg and grep over the same notes.
        .executableTarget(name: "search-bench", dependencies: ["SearchIndex", "Markdown"]),
        // The whole app on a club server: first frames, scrolling, transfer progress, cancel, key echo.
        .executableTarget(
            name: "app-bench",
            dependencies: ["ByteClubApp", "ClubServer", "DropboxWire", "Remote", "Imaging", "TerminalUI", "LoopbackHTTP", "SearchIndex", "ClubKit", "ClubCrypt", "LiveText", .product(name: "Logging", package: "swift-log")]
        ),

        // `make torture`: the real binaries (serve, agent, put, restore, the app in tmux) killed at
        // random moments of a seeded schedule, and the invariants checked after every kill.
        .executableTarget(
            name: "byteclub-torture",
            dependencies: ["Simulation", "ClubKit", .product(name: "ArgumentParser", package: "swift-argument-parser"), .product(name: "Crypto", package: "swift-crypto")]
        ),
        // Histories at simulation speed (issue 70): both members' cores over clubs in memory
        // (the club server's commit rule, WebDAV's, an encrypted club) through a simulated
        // network, time a counter and every choice from a seed. byteclub-torture --simulate.
        // Each member's app too (ByteClubApp on a compositor of its own, its UI queue simulated).
        .target(name: "Simulation", dependencies: ["ClubKit", "ClubServer", "Remote", "DropboxWire", "ClubCrypt", "Transfer", "LiveText",
                                                   "ByteClubApp", "TerminalUI", .product(name: "Logging", package: "swift-log")]),

        // MARK: Tests

        // Helpers shared by the test targets: snapshot assertions, the built binary's location.
        .target(name: "TestSupport", dependencies: [
            "TerminalUI", "LoopbackHTTP",
            // Drafts read as byteclub reads them (AppHarness.draftTexts).
            "ClubKit",
            // GracefulServer: the tests' own Hummingbird servers, stopped without a trap.
            .product(name: "Hummingbird", package: "hummingbird"),
            .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
        ], path: "Tests/TestSupport"),

        .testTarget(name: "LoopbackHTTPTests", dependencies: ["LoopbackHTTP"]),
        .testTarget(name: "TransferTests", dependencies: ["Transfer", "LoopbackHTTP"]),
        .testTarget(name: "ImagingTests", dependencies: ["Imaging"]),
        .testTarget(name: "NoteMergeTests", dependencies: ["NoteMerge", "ClubKit"]),
        // The interop test runs pycrdt (Yrs) through LiveTextTests/pycrdt_interop.py.
        .testTarget(name: "LiveTextTests", dependencies: ["LiveText", "TestSupport"], exclude: ["pycrdt_interop.py"]),
        .testTarget(name: "DurableTests", dependencies: ["Durable"]),
        .testTarget(name: "ClubCryptTests", dependencies: ["ClubCrypt", "TestSupport", .product(name: "Crypto", package: "swift-crypto")],
                    exclude: ["AgeVectors"]),
        .testTarget(name: "MarkdownTests", dependencies: ["Markdown"]),
        .testTarget(name: "SearchIndexTests", dependencies: ["SearchIndex", "Markdown"]),
        .testTarget(name: "ClubKitTests", dependencies: ["ClubKit", "Simulation", "Remote", "SearchIndex", "Markdown", "TestSupport", "ByteClubConfig", "LiveText"]),
        .testTarget(name: "DropboxWireTests", dependencies: ["DropboxWire", "TestSupport", .product(name: "Crypto", package: "swift-crypto")]),
        .testTarget(
            name: "RemoteTests",
            dependencies: ["Remote", "ClubCLI", "DropboxWire", "ClubServer", "Transfer", "Imaging", "TestSupport", .product(name: "Hummingbird", package: "hummingbird")]
        ),
        .testTarget(name: "ClubServerTests", dependencies: ["ClubServer", "DropboxWire", "Transfer", "SampleClub", "Imaging", "Remote", "TestSupport",
                                                    // The live channel's tests: real WebSocket clients, LiveText documents typed through it.
                                                    "LiveText", .product(name: "HummingbirdWSClient", package: "hummingbird-websocket"),
                                                    .product(name: "NIOSSL", package: "swift-nio-ssl")]),
        .testTarget(name: "ByteClubAppTests", dependencies: [
            "ByteClubApp", "TerminalUI", "Remote", "ClubServer", "TestSupport",
            // Generated histories (Histories/): the command line's one way to a store and its folders.
            "ClubKit", "ClubCrypt",
            // JPEGs for the thumbnails the app makes itself (a store without thumbnails).
            "Imaging",
            // The hostile server the client is tested against.
            .product(name: "Hummingbird", package: "hummingbird"),
            .product(name: "HTTPTypes", package: "swift-http-types"),
            .product(name: "Logging", package: "swift-log"),
        ], exclude: ["__Snapshots__"]),
        .testTarget(name: "AgentTests", dependencies: ["Agent", "Remote", "ClubServer", "TestSupport"]),
        .testTarget(name: "EndToEndTests", dependencies: ["TestSupport", "Imaging"]),
        // A user's whole path across features, in tmux against real servers: one test a journey.
        .testTarget(name: "JourneyTests", dependencies: ["TestSupport", "ClubCrypt"]),
        .testTarget(name: "FuzzTargetsTests", dependencies: ["FuzzTargets"]),
        .testTarget(name: "TerminalUITests", dependencies: ["TerminalUI", "CTerminalShim", "CNcursesw", "TestSupport"], exclude: ["__Snapshots__"]),
    ],
    swiftLanguageModes: [.v6]
)
