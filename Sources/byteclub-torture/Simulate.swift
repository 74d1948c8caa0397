import ArgumentParser
import ClubKit
import Crypto
import Foundation
import Simulation

/// `byteclub-torture --simulate`: generated histories at simulation speed (``SimulatedHistory``),
/// seed after seed on each backend, the broken promises of each seed printed with its history.
struct SimulationOptions: ParsableArguments {
    @Flag(help: "Run generated histories in the simulation instead of killing real processes.") var simulate = false
    @Option(help: "With --simulate: how many seeds on each backend.") var seeds = 100
    @Option(help: "With --simulate: the first seed.") var firstSeed: UInt64 = 1
    @Option(help: "With --simulate: steps in each history.") var steps = 200
    @Option(help: "With --simulate: the backends, comma-separated (club, webdav, encrypted; live, live-encrypted: members typing in one live note).")
    var backends = "club,webdav,encrypted"
    @Option(help: "With --simulate: who writes the notes: cli (the command line, as before the apps came), app (each member's app, in-process), both.")
    var shells: SimulatedHistory.Shells = .cli
    @Option(help: "With --simulate: a known past bug to put back (repeatable); the run stops at the first seed that finds it, and fails when none does.")
    var plant: [String] = []

    func validate() throws {
        guard seeds > 0 else { throw ValidationError("--seeds must be at least 1") }
        guard steps > 0 else { throw ValidationError("--steps must be at least 1") }
        for name in backends.split(separator: ",")
        where SimulatedHistory.Backend(rawValue: String(name)) == nil && SimulatedLiveHistory.Backend(rawValue: String(name)) == nil {
            throw ValidationError("unknown backend '\(name)': club, webdav, encrypted, live or live-encrypted")
        }
        for name in plant where PlantedBug(rawValue: name) == nil {
            throw ValidationError("unknown bug '\(name)': \(PlantedBug.allCases.map(\.rawValue).joined(separator: ", "))")
        }
    }

    func run(verbose: Bool) async throws {
        // This run's drafts, outboxes and keys in a folder of its own (in memory where the
        // machine has /dev/shm: an fsync there costs nothing, and the simulation's disk is not
        // what it checks).
        let shm = URL(fileURLWithPath: "/dev/shm")
        let base = (FileManager.default.fileExists(atPath: shm.path) ? shm : FileManager.default.temporaryDirectory)
            .appendingPathComponent("byteclub-sim-\(getpid())")
        for (variable, folder) in [("XDG_STATE_HOME", "state"), ("XDG_CACHE_HOME", "cache"), ("XDG_CONFIG_HOME", "config"), ("XDG_DATA_HOME", "data")] {
            setenv(variable, base.appendingPathComponent(folder).path, 1)
        }
        defer { try? FileManager.default.removeItem(at: base) }
        PlantedBug.planted = Set(plant.compactMap(PlantedBug.init(rawValue:)))
        if !plant.isEmpty { say("planted: \(plant.joined(separator: ", "))") }
        var failed = false
        for name in backends.split(separator: ",").map(String.init) {
            let started = ContinuousClock.now
            var digest = SHA256()
            var (stepsRun, broken, copied, foundAt): (Int, Int, Int, UInt64?) = (0, 0, 0, nil)
            for seed in firstSeed..<(firstSeed + UInt64(seeds)) {
                let (ran, found, log, tally, copies) = try await Self.history(name, seed: seed, steps: steps, shells: shells, base: base)
                stepsRun += ran
                copied += copies
                for line in log { digest.update(data: Data((line + "\n").utf8)) }
                if verbose {
                    say("seed \(seed) on \(name): \(ran) steps, \(tally), \(found.count) broken, \(copies) lines in two notes")
                }
                guard !found.isEmpty else { continue }
                broken += found.count
                failed = true
                if !plant.isEmpty {
                    // Proving it catches: the seed that found it is enough, its history is not news.
                    foundAt = seed
                    say("seed \(seed) on \(name) found it: \(found[0])")
                    break
                }
                say("""
                    seed \(seed) on \(name) broke the promise (replay: byteclub-torture --simulate --backends \(name) \
                    --first-seed \(seed) --seeds 1\(shells == .cli ? "" : " --shells " + shells.rawValue)\(plant.map { " --plant " + $0 }.joined())):
                    \(found.joined(separator: "\n"))
                    the history:
                    \(log.joined(separator: "\n"))
                    """)
            }
            let elapsed = ContinuousClock.now - started
            let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
            let hex = digest.finalize().map { String(format: "%02x", $0) }.joined().prefix(16)
            let seedsRun = foundAt.map { Int($0 - firstSeed) + 1 } ?? seeds
            say(String(format: "simulation on %@: %d seeds (%llu…%llu), %d steps, %.1f s (%.0f steps/s), %d broken, %d lines in two notes, log digest %@",
                       name, seedsRun, firstSeed, firstSeed + UInt64(seedsRun) - 1, stepsRun, seconds,
                       Double(stepsRun) / max(seconds, 0.001), broken, copied, String(hex)))
            if let foundAt {
                say("the planted bug was found by seed \(foundAt), after \(seedsRun) seed\(seedsRun == 1 ? "" : "s")")
                break
            }
        }
        // With a bug planted the run proves the simulation catches it: it fails when no seed did.
        if !plant.isEmpty {
            guard failed else {
                say("the planted bug \(plant.joined(separator: ", ")) was NOT found in \(seeds) seeds on \(backends)")
                throw ExitCode(1)
            }
            return
        }
        if failed { throw ExitCode(1) }
    }

    /// One seed's history on the backend named `name`: the steps it ran, the promises it broke,
    /// its log, a line of counts, and the lines it left in two notes.
    static func history(_ name: String, seed: UInt64, steps: Int, shells: SimulatedHistory.Shells, base: URL)
        async throws -> (steps: Int, broken: [String], log: [String], tally: String, copied: Int) {
        if let live = SimulatedLiveHistory.Backend(rawValue: name) {
            let folder = base.appendingPathComponent("live-\(name)-\(seed)")
            defer { try? FileManager.default.removeItem(at: folder) }
            let history = SimulatedLiveHistory(seed: seed, backend: live, folder: folder)
            history.run(steps: steps)
            return (history.step, history.violations(), history.log, history.tally, 0)
        }
        let backend = SimulatedHistory.Backend(rawValue: name)!
        let history = try await SimulatedHistory(seed: seed, backend: backend, runName: "\(getpid())-\(seed)", shells: shells)
        await history.run(steps: steps)
        let found = await history.violations()
        history.close()
        return (history.step, found, history.log, history.tally, history.copied.count)
    }
}

extension SimulatedHistory.Shells: ExpressibleByArgument {}
