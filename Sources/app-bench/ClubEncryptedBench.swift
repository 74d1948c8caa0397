import ByteClubApp
import ClubCrypt
import ClubKit
import Foundation
import Remote
import TerminalUI

/// `app-bench club --encrypted`: the first sync of the same club, plain and encrypted, in one
/// run. The encrypted club's keys are made by `byteclub init --encrypted`; its files are the
/// plain club's, each sealed to the club key under its hidden name, as `init` would leave them.
@MainActor
enum ClubEncryptedBench {
    static func run(_ options: ClubBench.Options) async throws {
        let work = FileManager.default.temporaryDirectory.appendingPathComponent("app-bench-encrypted-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: work) }
        Interrupts.register { try? FileManager.default.removeItem(at: work) }
        // The byteclub run here keeps its identity and keyring in the work folder.
        for (name, folder) in [("XDG_CONFIG_HOME", "config"), ("XDG_STATE_HOME", "state"), ("XDG_CACHE_HOME", "cache-home")] {
            setenv(name, work.appendingPathComponent(folder).path, 1)
        }
        setenv("BYTECLUB_NAME", "bench", 1)
        let plainRoot = work.appendingPathComponent("plain")
        let sealedRoot = work.appendingPathComponent("encrypted")
        try ClubBench.seed(plainRoot.appendingPathComponent("byteclub"), options)
        try FileManager.default.createDirectory(at: sealedRoot.appendingPathComponent("byteclub"), withIntermediateDirectories: true)
        say("app-bench club --encrypted: \(ClubBench.grouped(options.notes)) notes of 1 KiB and \(ClubBench.grouped(options.photos)) photos, a plain club beside an encrypted one;")
        say("byteclub serve (release) in its own process on loopback, the app on this process's main queue.")

        var server = try ServeProcess(root: sealedRoot)
        guard try ClubBench.run([ServeProcess.binary.path, "init", "--encrypted", "--server", server.url.absoluteString, "--token", ServeProcess.token],
                                discardOutput: true) == 0 else { throw BenchError("byteclub init --encrypted failed") }
        guard let me = try MemberIdentityFile.load() else { throw BenchError("byteclub init --encrypted made no identity") }
        let keyring = try await ClubKeyring.load(DropboxStore(displayName: "bench", endpoints: .club(server.url), tokens: StaticToken(ServeProcess.token)),
                                                 folder: "/byteclub", key: "bench", me: me)
        server.stop()
        let sealing = ContinuousClock.now
        let sealed = try seal(plainRoot.appendingPathComponent("byteclub"), into: sealedRoot.appendingPathComponent("byteclub"), keyring: keyring)
        say("(\(ClubBench.grouped(sealed)) files sealed in \(ClubBench.seconds(since: sealing)))")
        say("(opening one note, one core: \(try openingCost(keyring)) µs: the X25519 stanza, the Ed25519 signature, the hash, the cipher)")

        let widths = [52, 12, 12, 12]
        say(row(["measure", "plain", "encrypted", "ratio"], widths))
        var figures: [(first: Double, all: Double, p99: Double, peak: Int?)] = []
        for (label, root) in [("plain", plainRoot), ("encrypted", sealedRoot)] {
            server = try ServeProcess(root: root)
            defer { server.stop() }
            var configuration = AppConfiguration()
            configuration.cache = ClubCache(directory: work.appendingPathComponent("cache-\(label)"))
            configuration.searchIndex = AppConfiguration.searchIndex(in: work.appendingPathComponent("index-\(label)"))
            configuration.downloadDirectory = work.appendingPathComponent("downloads")
            configuration.liveUpdates = false
            let inner = DropboxStore(displayName: "bench", endpoints: .club(server.url), tokens: StaticToken(ServeProcess.token))
            let store: any RemoteStore = label == "plain" ? inner : EncryptedStore(inner: inner, keyring: keyring, folder: "/byteclub", key: "bench")
            let compositor = Compositor()
            let app = ClubApp(store: store, compositor: compositor, configuration: configuration)
            let before = ProcessStatus.own("VmRSS:") ?? 0
            let (firstFrame, allIndexed, delays) = try await ClubBench.coldSync(app, compositor, notes: options.notes, since: .now)
            figures.append((firstFrame, allIndexed, percentile(delays, 0.99), (ProcessStatus.own("VmRSS:") ?? 0) - before))
        }
        let plain = figures[0], encrypted = figures[1]
        say(row(["app, cold start: first frame listing notes", ClubBench.ms(plain.first), ClubBench.ms(encrypted.first), ratio(encrypted.first, plain.first)], widths))
        say(row(["app, every note cached and indexed, cold", ClubBench.ms(plain.all), ClubBench.ms(encrypted.all), ratio(encrypted.all, plain.all)], widths))
        say(row(["app, main-queue delay p99 during the first sync", ClubBench.ms(plain.p99), ClubBench.ms(encrypted.p99), ""], widths))
        say(row(["app, RSS grown over the first sync", ClubBench.mib(plain.peak), ClubBench.mib(encrypted.peak), ""], widths))
        say("target: every note cached and indexed, encrypted ≤ 1.25× plain")
        say("")
    }

    /// What opening and checking one sealed 1 KiB note costs on one core, the median of 2,000.
    static func openingCost(_ keyring: ClubKeyring) throws -> Int {
        let note = Data(String(repeating: "word ", count: 200).utf8)
        let sealed = try ClubSeal.seal(note, path: "/note.md", version: 1, to: [keyring.recipient], by: keyring.me)
        let identities = keyring.secrets.identities.map { $0 as any AgeIdentity }
        var times: [Double] = []
        for _ in 0..<2000 {
            let start = ContinuousClock.now
            _ = try ClubSeal.open(sealed, path: "/note.md", identities: identities, roster: keyring.roster)
            times.append(milliseconds(since: start) * 1000)
        }
        return Int(percentile(times.sorted(), 0.5))
    }

    static func ratio(_ a: Double, _ b: Double) -> String { String(format: "%.2f×", a / max(b, 0.001)) }

    /// Seals every file under `plain` into `sealed`, under hidden names, a core each.
    static func seal(_ plain: URL, into sealed: URL, keyring: ClubKeyring) throws -> Int {
        let files = (FileManager.default.enumerator(at: plain, includingPropertiesForKeys: [.isRegularFileKey])?.compactMap { $0 as? URL } ?? [])
            .filter { (try? $0.resourceValues(forKeys: [.isRegularFileKey]).isRegularFile) == true }
        let failures = Failures()
        DispatchQueue.concurrentPerform(iterations: 8) { part in
            for file in files[(files.count * part / 8)..<(files.count * (part + 1) / 8)] {
                let relative = file.path.dropFirst(plain.path.count + 1).split(separator: "/").map(String.init)
                let hidden = relative.compactMap { keyring.names.hide($0) }
                do {
                    guard hidden.count == relative.count else { throw BenchError("a name too long to hide: \(relative)") }
                    let target = hidden.reduce(sealed) { $0.appendingPathComponent($1) }
                    try FileManager.default.createDirectory(at: target.deletingLastPathComponent(), withIntermediateDirectories: true)
                    let path = "/" + relative.joined(separator: "/")
                    try ClubSeal.seal(try Data(contentsOf: file), path: path.lowercased(), version: 1, to: [keyring.recipient], by: keyring.me).write(to: target)
                } catch {
                    failures.add("\(file.path): \(error)")
                }
            }
        }
        if let first = failures.first { throw BenchError(first) }
        return files.count
    }

    /// The first failure of a concurrent loop.
    final class Failures: @unchecked Sendable {
        // @unchecked Sendable: `list` is read and written only under `lock`.
        private let lock = NSLock()
        private var list: [String] = []
        func add(_ failure: String) { lock.withLock { list.append(failure) } }
        var first: String? { lock.withLock { list.first } }
    }
}
