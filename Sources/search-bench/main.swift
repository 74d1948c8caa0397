import Foundation
import Markdown
import SearchIndex

// search-bench: full-text search side by side (issue 24). Writes N notes of about 5 KiB to a
// folder, measures the index (from scratch, one note re-indexed, query p95), then serves the
// folder with `byteclub serve` and times `byteclub search` (its index warm), `rg -il` and
// `grep -ril` for a rare word, a common word, a phrase and a CJK word, each a whole process
// run (start included), median of several runs.
//
// Usage: search-bench [--notes 10000] [--runs 7] [--byteclub PATH]

struct Options {
    var notes = 10_000
    var runs = 7
    var byteclub = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent().appendingPathComponent("byteclub").path

    init() {
        var arguments = CommandLine.arguments.dropFirst().makeIterator()
        while let argument = arguments.next() {
            switch argument {
            case "--notes": notes = arguments.next().flatMap(Int.init) ?? notes
            case "--runs": runs = arguments.next().flatMap(Int.init) ?? runs
            case "--byteclub": byteclub = arguments.next() ?? byteclub
            default:
                FileHandle.standardError.write(Data("usage: search-bench [--notes N] [--runs N] [--byteclub PATH]\n".utf8))
                exit(2)
            }
        }
    }
}

/// The notes: words drawn from a fixed vocabulary (a seeded generator, the same every run), a
/// common word in every note, a phrase in 1 %, a CJK sentence in 2 %, a rare word in one; and
/// links: every note links to two others by title (`[[Note 00042]]`), every tenth to the hub
/// note 0 as well, so the hub has a thousand backlinks and a typical note two or three.
enum Corpus {
    static let rare = "zanzibarite"
    static let common = "harbour"
    static let phrase = "boat hire"
    static let cjk = "東京"

    struct Generator {
        var state: UInt64
        mutating func next() -> UInt64 {
            state &+= 0x9E37_79B9_7F4A_7C15
            var z = state
            z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
            z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
            return z ^ (z >> 31)
        }
    }

    static func vocabulary() -> [String] {
        var generator = Generator(state: 42)
        let syllables = ["ka", "lo", "mi", "ne", "ru", "sa", "to", "vi", "be", "da", "fe", "gi", "ho", "ju", "pe", "qu", "ri", "st", "tr", "an"]
        return (0..<3000).map { _ in
            let count = 2 + Int(generator.next() % 3)
            return (0..<count).map { _ in syllables[Int(generator.next() % UInt64(syllables.count))] }.joined()
        }
    }

    static func title(_ i: Int) -> String { String(format: "Note %05d", i) }

    static func write(_ count: Int, to folder: URL) throws {
        let words = vocabulary()
        var generator = Generator(state: 7)
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        for i in 0..<count {
            var text = "Note \(i)\n"
            while text.utf8.count < 5 * 1024 {
                var line: [String] = []
                for _ in 0..<12 { line.append(words[Int(generator.next() % UInt64(words.count))]) }
                text += line.joined(separator: " ") + "\n"
            }
            text += "the \(common) was quiet\n"
            if i % 100 == 3 { text += "we asked about \(phrase) at the pier\n" }
            if i % 50 == 7 { text += "来週は\(cjk)都に行きます\n" }
            if i == count / 2 { text += "a \(rare) stone\n" }
            text += "see [[\(title(i * 7919 % count))]] and [also](\(title(i * 104_729 % count).replacingOccurrences(of: " ", with: "%20")).txt)\n"
            if i % 10 == 0 { text += "back to [[\(title(0))]]\n" }
            try Data(text.utf8).write(to: folder.appendingPathComponent(String(format: "Note %05d.txt", i)))
        }
    }
}

func seconds(_ body: () throws -> Void) rethrows -> Double {
    let start = DispatchTime.now().uptimeNanoseconds
    try body()
    return Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9
}

func percentile(_ values: [Double], _ p: Double) -> Double {
    let sorted = values.sorted()
    return sorted[min(sorted.count - 1, Int((Double(sorted.count) * p).rounded(.up)) - 1)]
}

func ms(_ value: Double) -> String { String(format: "%.1f ms", value * 1000) }

/// Runs a process to its end, output discarded; its exit status. posix_spawn and waitpid, not
/// Foundation's Process: its waitUntilExit polls a run loop every 50 ms, which rounds every
/// time up to a multiple of 50 ms.
@discardableResult
func run(_ executable: String, _ arguments: [String]) throws -> Int32 {
    var actions = posix_spawn_file_actions_t()
    posix_spawn_file_actions_init(&actions)
    defer { posix_spawn_file_actions_destroy(&actions) }
    posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0)
    posix_spawn_file_actions_addopen(&actions, 2, "/dev/null", O_WRONLY, 0)
    let argv: [UnsafeMutablePointer<CChar>?] = ([executable] + arguments).map { strdup($0) } + [nil]
    defer { for pointer in argv { free(pointer) } }
    var pid: pid_t = 0
    let spawned = posix_spawn(&pid, executable, &actions, nil, argv, environ)
    guard spawned == 0 else { throw POSIXError(POSIXErrorCode(rawValue: spawned) ?? .EIO) }
    var status: Int32 = 0
    while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
    return status
}

func which(_ name: String) -> String? {
    for folder in (ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin").split(separator: ":") {
        let path = "\(folder)/\(name)"
        if FileManager.default.isExecutableFile(atPath: path) { return path }
    }
    return nil
}

/// `byteclub serve` on a random port; its URL from its first line.
final class Serve {
    let process = Process()
    let url: String

    init(byteclub: String, root: URL, token: String) throws {
        let output = Pipe()
        process.executableURL = URL(fileURLWithPath: byteclub)
        process.arguments = ["serve", "--insecure-http", "--root", root.path, "--create", "--port", "0", "--token", token, "--log-level", "warning"]
        process.standardOutput = output
        process.standardError = FileHandle.nullDevice
        try process.run()
        var text = ""
        let deadline = Date().addingTimeInterval(30)
        while !text.contains("\n") && Date() < deadline {
            let chunk = output.fileHandleForReading.availableData
            if chunk.isEmpty { break }
            text += String(decoding: chunk, as: UTF8.self)
        }
        guard let match = text.range(of: #"http://127\.0\.0\.1:\d+"#, options: .regularExpression) else {
            process.terminate()
            throw CocoaError(.executableLoad, userInfo: [NSLocalizedDescriptionKey: "byteclub serve did not start: \(text)"])
        }
        url = String(text[match])
    }

    func stop() {
        process.terminate()
        process.waitUntilExit()
    }
}

let options = Options()
let base = FileManager.default.temporaryDirectory.appendingPathComponent("search-bench-\(getpid())")
defer { try? FileManager.default.removeItem(at: base) }
let root = base.appendingPathComponent("club")
let notesFolder = root.appendingPathComponent("byteclub")

print("search-bench: \(options.notes) notes of about 5 KiB, \(options.runs) runs per figure")
let writing = try seconds { try Corpus.write(options.notes, to: notesFolder) }
print("  notes written in \(String(format: "%.1f", writing)) s")

// The library alone: from scratch, one note, queries.
let indexFolder = base.appendingPathComponent("index")
let index = try SearchIndex(directory: indexFolder)
let names = try FileManager.default.contentsOfDirectory(atPath: notesFolder.path).sorted()
let listing = names.map { IndexSync.Entry(path: "/byteclub/\($0)", rev: "r1", modified: Date(), modifiedBy: "dbid:bench") }
let folderPath = root.path
let scratch = try await {
    let start = DispatchTime.now().uptimeNanoseconds
    _ = try await IndexSync(index: index, maxConcurrentFetches: 4).run(listing: listing) { entry in
        String(decoding: try Data(contentsOf: URL(fileURLWithPath: folderPath + entry.path)), as: UTF8.self)
    }
    return Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9
}()
print("  index from scratch (read + index \(options.notes) notes): \(String(format: "%.2f", scratch)) s   (target ≤ 10 s)")
// What finding the links adds to that: cmark's parse and the wiki-link scan of every note, alone.
let texts = try names.map { String(decoding: try Data(contentsOf: notesFolder.appendingPathComponent($0)), as: UTF8.self) }
var found = 0
let scanning = seconds { for text in texts { found += NoteLinks.scan(text).count } }
print("  of which finding the links (NoteLinks.scan of every note, alone): \(String(format: "%.2f", scanning)) s, \(found) links")

var single: [Double] = []
for i in 0..<50 {
    let path = "/byteclub/\(names[i * 7 % names.count])"
    let text = String(decoding: try Data(contentsOf: URL(fileURLWithPath: folderPath + path)), as: UTF8.self) + "\nedit \(i) kiwi\(i)\n"
    let note = IndexedNote(path: path, rev: "r2-\(i)", modified: Date(), modifiedBy: "dbid:bench", text: text)
    single.append(try seconds { try index.upsert(note) })
}
print("  one changed note re-indexed: median \(ms(percentile(single, 0.5))), p95 \(ms(percentile(single, 0.95)))   (target ≤ 10 ms)")

let queries: [(String, String, [String])] = [
    ("rare word", Corpus.rare, ["-F", Corpus.rare]),
    ("common word", Corpus.common, ["-F", Corpus.common]),
    ("phrase", "\"\(Corpus.phrase)\"", ["-F", Corpus.phrase]),
    ("CJK word", Corpus.cjk, ["-F", Corpus.cjk]),
]
var all: [Double] = []
for (label, query, _) in queries {
    var times: [Double] = []
    var count = 0
    for _ in 0..<40 { times.append(try seconds { count = try index.search(query, limit: 50).count }) }
    all += times
    print("  query \(label) (\(count) shown of up to 50): p50 \(ms(percentile(times, 0.5))), p95 \(ms(percentile(times, 0.95)))")
}
print("  query p95 over all: \(ms(percentile(all, 0.95)))   (target ≤ 30 ms)")

// Backlinks: one indexed lookup by the target's path and title (issue 34).
var typical: [Double] = [], hub: [Double] = []
var typicalCount = 0, hubCount = 0
for i in 0..<200 {
    let path = "/byteclub/\(names[(i * 37 + 1) % names.count])"
    typical.append(try seconds { typicalCount += try index.backlinks(to: path).count })
}
for _ in 0..<40 { hub.append(try seconds { hubCount = try index.backlinks(to: "/byteclub/\(Corpus.title(0)).txt").count }) }
print("  links indexed: \(try index.linkCount())")
print("  backlinks of a note (\(String(format: "%.1f", Double(typicalCount) / 200)) linking notes on average, 200 notes): p50 \(ms(percentile(typical, 0.5))), p95 \(ms(percentile(typical, 0.95)))   (target ≤ 20 ms)")
print("  backlinks of the hub note (\(hubCount) linking notes): p50 \(ms(percentile(hub, 0.5))), p95 \(ms(percentile(hub, 0.95)))   (target ≤ 20 ms)")

// Side by side, whole processes.
guard FileManager.default.isExecutableFile(atPath: options.byteclub) else {
    print("  (no byteclub at \(options.byteclub): build it, or pass --byteclub PATH)")
    exit(1)
}
let token = "bench-\(getpid())"
let server = try Serve(byteclub: options.byteclub, root: root, token: token)
defer { server.stop() }
let club = ["--server", server.url, "--token", token]
let warm = try seconds { try run(options.byteclub, ["search", Corpus.rare] + club) }
print("  club server's index built by the first search: \(String(format: "%.2f", warm)) s")
let rg = which("rg")
let grep = which("grep")
print("")
print("  | query | byteclub search | rg -il | grep -ril |")
print("  |---|---|---|---|")
for (label, query, literal) in queries {
    func median(_ executable: String?, _ arguments: [String]) throws -> String {
        guard let executable else { return "n/a" }
        var times: [Double] = []
        for _ in 0..<options.runs { times.append(try seconds { try run(executable, arguments) }) }
        return ms(percentile(times, 0.5))
    }
    let ours = try median(options.byteclub, ["search", query] + club)
    let theirs = try median(rg, ["-il"] + literal + [notesFolder.path])
    let plain = try median(grep, ["-ril"] + literal + [notesFolder.path])
    print("  | \(label) `\(query)` | \(ours) | \(theirs) | \(plain) |")
}
