import ArgumentParser
import ClubKit
import Foundation
import Simulation

/// `byteclub-torture`: saves, renames, outbox sends, uploads and restores against a club, with
/// the app, the agent or the server killed (SIGKILL) at a random moment of each, restarted,
/// and the invariants checked after every kill. The schedule comes from a seed, printed first.
@main
struct Torture: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "byteclub-torture",
        abstract: "Kill the app, the agent or the server at random moments; check that nothing the user was told about is lost.",
        discussion: """
            Replay a run with --seed (the first line it prints). Exit 1 on any loss.
            With --simulate, generated histories at simulation speed instead: both members' cores over clubs in memory, \
            through a simulated network (docs/testing.md, "Simulation"): --seeds N from --first-seed, --steps each, on each of \
            --backends; --plant NAME puts a known past bug back (\(PlantedBug.allCases.map(\.rawValue).joined(separator: ", "))).
            """)

    @Option(help: "How many kills.") var kills = 1000
    @Option(help: "The schedule's seed (default: random).") var seed: UInt64?
    @Option(help: "The byteclub executable (default: beside this one).") var binary: String?
    @Flag(help: "Keep the run's folder (it is kept anyway after a loss).") var keep = false
    @Flag(help: "One line per kill: the operation, the victim, the delay and the step's time.") var verbose = false
    @OptionGroup var simulation: SimulationOptions

    func validate() throws {
        guard kills > 0 else { throw ValidationError("--kills must be at least 1") }
        try simulation.validate()
    }

    func run() async throws {
        if simulation.simulate { return try await simulation.run(verbose: verbose) }
        let seed = self.seed ?? UInt64.random(in: 0...UInt64.max)
        say("seed \(seed)")
        let own = (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")) ?? CommandLine.arguments[0]
        let binary = self.binary ?? URL(fileURLWithPath: own).deletingLastPathComponent().appendingPathComponent("byteclub").path
        guard FileManager.default.isExecutableFile(atPath: binary) else { throw TortureError("no byteclub at \(binary) (--binary PATH)") }
        // Short: the agent's socket path must fit a sockaddr_un.
        let base = URL(fileURLWithPath: "/tmp/bct-\(getpid())-\(seed % 100_000)")
        try? FileManager.default.removeItem(at: base)
        var signals: [DispatchSourceSignal] = []
        for number in [SIGINT, SIGTERM] {
            signal(number, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: number, queue: .global())
            source.setEventHandler { leftovers.endAll() }
            source.activate()
            signals.append(source)
        }
        defer { signals.forEach { $0.cancel() } }
        // Through its links: `swift build` makes `.build/debug` again as it runs, and a test
        // bundle built beside this run must not take the binary's path away from it.
        let club = try Club(base: base, binary: URL(fileURLWithPath: binary).standardizedFileURL.resolvingSymlinksInPath().path)
        var run: Run
        do {
            run = try Run(club: club, seed: seed, kills: kills)
        } catch {
            leftovers.end()
            throw error
        }
        run.verbose = verbose
        let lost = run.go()
        run.close()
        if lost == 0 && !keep { try? FileManager.default.removeItem(at: base) } else { say("the run's folder: \(base.path)") }
        if lost > 0 { throw ExitCode(1) }
    }
}

enum Victim: String { case app, agent, server }

/// One run: the schedule, the kills, the checks and the table.
struct Run {
    let club: Club
    let app: AppDriver
    let model = Model()
    let ops: Operations
    let checker: Checker
    let seed: UInt64
    let kills: Int
    var rng: SplitMix64
    var killed: [Victim: Int] = [:]
    var resets = 0
    var verbose = false
    var losses: [String] = []
    var reported: Set<String> = []
    let started = Date()

    init(club: Club, seed: UInt64, kills: Int) throws {
        self.club = club
        self.seed = seed
        self.kills = kills
        rng = SplitMix64(seed: seed)
        try club.startServer()
        app = try AppDriver(club: club)
        try app.launch()
        ops = Operations(club: club, app: app, model: model, seed: seed)
        checker = Checker(club: club, model: model)
    }

    /// Runs the schedule; the number of losses.
    mutating func go() -> Int {
        for step in 1...kills {
            ops.step = step
            do {
                try self.step(step)
            } catch {
                lose(step, "the step could not go on: \(error)")
            }
            if step % 50 == 0 || step == kills { progress(step) }
        }
        drain()
        table()
        return losses.count
    }

    mutating func lose(_ step: Int, _ what: String) {
        // A loss stays a loss at every later check: said once, at the step that found it.
        let key = what.components(separatedBy: ": ").dropFirst().joined(separator: ": ")
        guard reported.insert(key.isEmpty ? what : key).inserted else { return }
        losses.append("step \(step): \(what)")
        say("LOSS at step \(step) (replay: byteclub-torture --seed \(seed) --kills \(kills)): \(what)")
    }

    mutating func step(_ step: Int) throws {
        let operation = rng.weighted([(Operation.newNote, 3), (.editNote, 4), (.rename, 2), (.offlineSave, 2), (.put, 2), (.agentPut, 3), (.restore, 2)])
        var victim = rng.weighted([(Victim.app, 1), (.agent, 1), (.server, 1)])
        let delay = Double(rng.int(0...operation.window)) / 1000
        var payloads = SplitMix64(seed: rng.next())
        let began = Date()
        defer {
            if verbose { say(String(format: "step %d: %@, %@ killed after %d ms, %.2f s", step, operation.rawValue, victim.rawValue, Int(delay * 1000), Date().timeIntervalSince(began))) }
        }
        try ready()
        let prepared = Date()
        let flight = try ops.start(operation, rng: &payloads)
        if verbose { say(String(format: "  ready %.2f s, start %.2f s", prepared.timeIntervalSince(began), Date().timeIntervalSince(prepared))) }
        let moment = Date()
        while Date().timeIntervalSince(moment) < delay {
            flight?.poll()
            usleep(2_000)
        }
        if victim == .agent && club.agentPID == nil { victim = .server }
        switch victim {
        case .app: app.kill()
        case .agent: club.killAgent()
        case .server: club.killServer()
        }
        killed[victim, default: 0] += 1
        if victim == .server || !club.serverRunning { try club.startServer() }
        if victim == .app { try app.launch() }
        // A killed agent comes back with the next client: `transfers` starts it and it takes up
        // what its journal holds (a put --agent in flight reconnects by itself).
        if victim == .agent { _ = try club.run(["transfers"], name: "transfers", within: 30) }
        let killedAt = Date()
        flight?.settle()
        if verbose { say(String(format: "  restart and settle %.2f s", Date().timeIntervalSince(killedAt))) }
        for failure in ops.failures { lose(step, failure) }
        ops.failures.removeAll()
        for loss in checkSettled(afterServerRestart: victim == .server || operation == .offlineSave) {
            lose(step, "\(operation.rawValue), \(victim.rawValue) killed after \(Int(delay * 1000)) ms: \(loss)")
        }
    }

    /// The checks, again for a few seconds while they fail: a server just restarted takes in
    /// what changed while it was down within its first rescan (1 s).
    func checkSettled(afterServerRestart: Bool) -> [String] {
        var found = checker.run(afterServerRestart: afterServerRestart)
        let deadline = Date().addingTimeInterval(5)
        while !found.isEmpty && Date() < deadline {
            if verbose { say("  again: \(found.first ?? "")") }
            usleep(250_000)
            found = checker.run(afterServerRestart: afterServerRestart)
        }
        return found
    }

    /// The server up, the app up and at its list (killed and launched again if it is stuck).
    mutating func ready() throws {
        if !club.serverRunning { try club.startServer() }
        if !app.isRunning {
            try app.launch()
        } else if !app.toList() {
            resets += 1
            app.kill()
            try app.launch()
        }
    }

    /// At the end: what waits is sent, the agent's transfers end, and everything is checked.
    mutating func drain() {
        do {
            try ready()
            let sent = try club.run(["outbox", "--send"], name: "final-outbox", within: 120)
            if sent.status != 0 { lose(kills, "the final outbox --send exited \(sent.status ?? -1): \(sent.output.suffix(300))") }
            for photo in model.photos.values.sorted(by: { $0.id < $1.id }) {
                guard let follower = photo.follower else { continue }
                if follower.wait(until: Date().addingTimeInterval(120)) == 0 { photo.told = kills } else if photo.accepted != nil {
                    lose(kills, "the agent accepted \(photo.name) and did not finish it")
                }
            }
            let waited = try club.run(["transfers", "--wait"], name: "final-transfers", within: 300)
            if waited.status != 0 { lose(kills, "transfers --wait exited \(waited.status ?? -1): \(waited.output.suffix(300))") }
            for loss in checkSettled(afterServerRestart: true) { lose(kills, "at the end: \(loss)") }
        } catch {
            lose(kills, "the final checks could not run: \(error)")
        }
    }

    func progress(_ step: Int) {
        let seconds = Int(Date().timeIntervalSince(started))
        say("kills \(step)/\(kills) · app \(killed[.app] ?? 0) agent \(killed[.agent] ?? 0) server \(killed[.server] ?? 0) · checks \(checker.checks) · losses \(losses.count) · \(seconds) s")
    }

    func table() {
        let seconds = String(format: "%.0f", Date().timeIntervalSince(started))
        let notes = model.notes.values.filter { $0.told != nil }.count, photos = model.photos.values.filter { $0.told != nil }.count
        say("")
        say("| kills | app | agent | server | checks | losses | seconds |")
        say("|---|---|---|---|---|---|---|")
        say("| \(kills) | \(killed[.app] ?? 0) | \(killed[.agent] ?? 0) | \(killed[.server] ?? 0) | \(checker.checks) | \(losses.count) | \(seconds) |")
        say("")
        say("seed \(seed): \(notes) notes and \(photos) photos told saved; \(ops.stops) server stops for offline saves; \(resets) app resets")
        for loss in losses { say("loss: \(loss) (seed \(seed))") }
        for note in Set(ops.notes).sorted() { say("note: \(note)") }
    }

    func close() {
        app.close()
        club.shutDown()
    }
}

/// One line on stdout, at once (a pipe would otherwise hold it until the end).
func say(_ line: String) {
    FileHandle.standardOutput.write(Data((line + "\n").utf8))
}
