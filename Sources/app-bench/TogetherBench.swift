import ClubServer
import DropboxWire
import Foundation
import LiveText
import ClubKit
import Remote
import Synchronization
import TerminalUI
#if canImport(Glibc)
import Glibc
#endif

/// Live editing (issue 57): `app-bench together`.
///
/// 1. **The LaTeX-paper trace** (josephg/editing-traces' `automerge-paper.json.gz`, 259,778 edits;
///    `LIVETEXT_TRACE` names the file): applied to a `LiveDocument` as typed edits, each one's
///    update encoded, then the same edits through pycrdt (Yrs) in a python3 of the same run.
/// 2. **A note with 10,000 edits of history**: opened from its journal (the app's open), and
///    joined fresh from the server's log of the same 10,000 updates.
/// 3. **Three members typing in one note** on a club server on loopback: the released app in a
///    pseudo-terminal as ann, its key echo while ray and cy type 20 keys a second each through
///    their own live sockets; and from each key of ray's and cy's to its arrival in the others'
///    documents and editor buffers.
@MainActor
enum TogetherBench {
    static func run() async throws {
        try trace()
        try history()
        keyWork()
        try await typing()
    }

    // MARK: A key's own work in a big note

    /// A typed key's work in a live 1 MiB note: the editor's edit into the shared document as the
    /// editor made it (``TextBuffer/edits(since:)``, the app's way), beside the whole-text
    /// difference the app made before (issue 68), in the same run.
    static func keyWork(keys: Int = 300) {
        let opened = MarkdownBench.note(size: 1 << 20)
        var results: [(String, [Double])] = []
        for byEdits in [true, false] {
            var note = LiveNote(noteID: "id:big", folder: nil)
            _ = note.joined(editorText: opened, openedText: opened)
            var buffer = TextBuffer(text: opened)
            buffer.moveCursor(to: buffer.position(ofUTF16: buffer.utf16Count / 2))
            var synced = buffer.editCount
            var times: [Double] = []
            for key in 0..<keys {
                let start = ContinuousClock.now
                buffer.insert(key % 6 == 5 ? " " : String(UnicodeScalar(UInt8(97 + key % 26))))
                if byEdits, let edits = buffer.edits(since: synced) {
                    for edit in edits { _ = note.edit(replacing: edit.range, with: edit.text, continuing: edit.continuesStep) }
                } else {
                    _ = note.edit(to: buffer.text, cursor: buffer.utf16Offset(of: buffer.cursor))
                }
                synced = buffer.editCount
                times.append(seconds(since: start) * 1000)
            }
            guard note.text == buffer.text else { fatalError("app-bench together: the document and the editor differ") }
            results.append((byEdits ? "the editor's edit, as made (the app now)" : "the whole text compared (the app before)", times.sorted()))
        }
        print("app-bench together: a typed key's own work in a live 1 MiB note (buffer, document, update), \(keys) keys mid-note")
        print(row(["", "median ms", "p99 ms"], [58, 10, 8]))
        for (name, times) in results {
            print(row([name, String(format: "%.3f", percentile(times, 0.5)), String(format: "%.3f", percentile(times, 0.99))], [58, 10, 8]))
        }
        print("")
    }

    // MARK: The trace

    static func trace() throws {
        guard let path = ProcessInfo.processInfo.environment["LIVETEXT_TRACE"], FileManager.default.fileExists(atPath: path) else {
            print("app-bench together: the trace is skipped: LIVETEXT_TRACE names no file (automerge-paper.json.gz of josephg/editing-traces; `make bench` takes it from a fetched mirror)")
            print("")
            return
        }
        // Parsed in a scope of its own, its objects freed and the peak reset before the typing:
        // the row below is the typing's, not the JSON parser's.
        let parse = { () throws -> ([(at: Int, delete: Int, insert: String)], String) in
            let unzip = Process()
            unzip.executableURL = URL(fileURLWithPath: "/bin/gzip")
            unzip.arguments = ["-dc", path]
            let pipe = Pipe()
            unzip.standardOutput = pipe
            try unzip.run()
            let json = pipe.fileHandleForReading.readDataToEndOfFile()
            unzip.waitUntilExit()
            guard let object = try JSONSerialization.jsonObject(with: json) as? [String: Any], let txns = object["txns"] as? [[String: Any]],
                  let end = object["endContent"] as? String else { throw BenchError("\(path) is not an editing trace") }
            var edits: [(at: Int, delete: Int, insert: String)] = []
            for txn in txns {
                for patch in (txn["patches"] as? [[Any]]) ?? [] where patch.count == 3 {
                    edits.append(((patch[0] as? Int) ?? 0, (patch[1] as? Int) ?? 0, (patch[2] as? String) ?? ""))
                }
            }
            return (edits, end)
        }
        let (edits, end) = try parse()
        // glibc's malloc_trim, so the parser's freed pages leave the process.
        if let trim = dlsym(UnsafeMutableRawPointer(bitPattern: 0), "malloc_trim") {
            _ = unsafeBitCast(trim, to: (@convention(c) (Int) -> Int32).self)(0)
        }
        try? "5".write(toFile: "/proc/self/clear_refs", atomically: false, encoding: .utf8)
        let before = peakRSS()
        var document = LiveDocument(clientID: 1)
        var bytes = 0
        let started = ContinuousClock.now
        for edit in edits {
            if edit.delete > 0 { bytes += document.delete(edit.at..<(edit.at + edit.delete)).count }
            if !edit.insert.isEmpty { bytes += document.insert(edit.insert, at: edit.at).count }
        }
        let ours = seconds(since: started)
        guard document.text == end else { throw BenchError("the trace did not end at its text") }
        let state = document.encodeStateAsUpdate()
        let loadStarted = ContinuousClock.now
        var fresh = LiveDocument(clientID: 2)
        try fresh.apply(update: state)
        let load = seconds(since: loadStarted)

        // pycrdt, the same edits, in this run.
        let script = """
        import gzip, json, resource, sys, time
        from pycrdt import Doc, Text
        trace = json.load(gzip.open(sys.argv[1]))
        doc = Doc(); text = doc.get("note", type=Text)
        start = time.perf_counter()
        for txn in trace["txns"]:
            for at, delete, insert in txn["patches"]:
                if delete: del text[at:at + delete]
                if insert: text.insert(at, insert)
        took = time.perf_counter() - start
        assert str(text) == trace["endContent"]
        print(took, len(doc.get_update()), resource.getrusage(resource.RUSAGE_SELF).ru_maxrss // 1024)
        """
        let python = Process()
        python.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        python.arguments = ["python3", "-c", script, path]
        let output = Pipe()
        python.standardOutput = output
        python.standardError = FileHandle.nullDevice
        try python.run()
        let answer = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self).split(separator: " ")
        python.waitUntilExit()

        print("app-bench together: the LaTeX-paper trace (\(edits.count) edits, ending at \(end.count) characters), one document, one core")
        print(row(["", "byteclub LiveText", "pycrdt (Yrs from Python)"], [44, 20, 26]))
        print(row(["every edit typed, its update encoded", String(format: "%.2f s", ours),
                   answer.count == 3 ? String(format: "%.2f s", Double(answer[0]) ?? 0) : "pycrdt not installed"], [44, 20, 26]))
        print(row(["the whole state", "\(state.count) bytes", answer.count == 3 ? "\(answer[1]) bytes" : "—"], [44, 20, 26]))
        print(row(["that state applied to an empty document", String(format: "%.1f ms", load * 1000), "—"], [44, 20, 26]))
        print(row(["peak RSS while typing (MiB)", "\(peakRSS()) (\(before) before)", answer.count == 3 ? String(answer[2].dropLast(answer[2].hasSuffix("\n") ? 1 : 0)) + " (the whole run)" : "—"],
                  [44, 20, 26]))
        print("updates sent: \(bytes) bytes in all")
        print("")
    }

    // MARK: A long history

    static func history(edits: Int = 10_000) throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("app-bench-together-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: folder) }
        // A note typed for 10,000 keys (a word a few keys, a line every 60): its journal.
        var writer = LiveNote(noteID: "id:history", folder: folder)
        _ = writer.joined(editorText: "# Minutes\n", openedText: "# Minutes\n")
        var text = writer.text
        for key in 0..<edits {
            let typed: Character = key % 60 == 59 ? "\n" : key % 6 == 5 ? " " : Character(UnicodeScalar(UInt8(97 + key % 26)))
            if key % 50 == 49 {
                text.removeLast()
            } else {
                text.append(typed)
            }
            _ = writer.edit(to: text)
        }
        // What the server's log would hold: every update, the seed's first (the journal's records).
        let updates = LiveNote.records(of: try Data(contentsOf: folder.appendingPathComponent("history")))
        var openTimes: [Double] = []
        var joinTimes: [Double] = []
        for _ in 0..<5 {
            let started = ContinuousClock.now
            var note = LiveNote(noteID: "id:history", folder: folder)
            let join = note.joined(editorText: note.text, openedText: note.text)
            let buffer = TextBuffer(text: join.text)
            openTimes.append(seconds(since: started) * 1000)
            guard buffer.text == text else { throw BenchError("the note opened from its journal is not the text typed") }

            let fresh = ContinuousClock.now
            var joiner = LiveNote(noteID: "id:fresh", folder: nil)
            for update in updates { _ = try joiner.receive(update) }
            _ = joiner.joined(editorText: "", openedText: "")
            joinTimes.append(seconds(since: fresh) * 1000)
            guard joiner.text == text else { throw BenchError("the log replayed is not the text typed") }
        }
        // The club server's room after a save: its log of every update compacted into one snapshot.
        let frames = updates.map { LiveFrame.encode(member: "ann", update: $0) }
        let logged = frames.reduce(0) { $0 + 4 + $1.count }
        let compacted = (LiveHub.snapshot(of: frames)?.reduce(0) { $0 + 4 + $1.count }) ?? logged
        print("app-bench together: the room of a note typed for \(edits) keys (a Backspace every 50), \(text.utf8.count) bytes of text")
        print(row(["", "bytes", "× text"], [58, 10, 8]))
        print(row(["the room's log, every update", "\(logged)", String(format: "%.2f", Double(logged) / Double(text.utf8.count))], [58, 10, 8]))
        print(row(["after a revision: one snapshot (LiveHub.compact)", "\(compacted)", String(format: "%.2f", Double(compacted) / Double(text.utf8.count))],
                  [58, 10, 8]))
        print("")
        print("app-bench together: opening a note with \(edits) edits of history (\(text.utf8.count) bytes of text), 5 runs")
        print(row(["", "median ms", "max ms"], [58, 10, 8]))
        print(row(["from its journal on this machine (the app's open)", String(format: "%.1f", percentile(openTimes.sorted(), 0.5)),
                   String(format: "%.1f", openTimes.max() ?? 0)], [58, 10, 8]))
        print(row(["a member new to it: the server's \(updates.count) updates, one by one", String(format: "%.1f", percentile(joinTimes.sorted(), 0.5)),
                   String(format: "%.1f", joinTimes.max() ?? 0)], [58, 10, 8]))
        print("")
    }

    // MARK: Three members typing

    /// A member typing through its own socket: a document, an editor buffer, a socket.
    ///
    /// `@unchecked Sendable`: every use is on ``Members/queue``, one serial queue (the typist's
    /// timer and the socket's events both run there), so no two threads touch it at once.
    final class Member: @unchecked Sendable {
        let name: String
        var note: LiveNote
        var buffer: TextBuffer
        var socket: LiveSocket?
        var joined = false
        /// The buffer's ``TextBuffer/editCount`` its document last took.
        var synced = 0

        init(name: String, text: String) {
            self.name = name
            note = LiveNote(noteID: "id:x", folder: nil)
            buffer = TextBuffer(text: text)
        }
    }

    /// ray and cy, and what their keys measured; `@unchecked Sendable` as ``Member``: used on `queue` only.
    final class Members: @unchecked Sendable {
        let queue = DispatchQueue(label: "app-bench.together.members")
        let list: [Member]
        let opened: String
        var sent: [String: ContinuousClock.Instant] = [:]
        var arrivals: [Double] = []
        var localWork: [Double] = []
        var typed = 0

        /// `member`'s edits since the last into its document, as the app sends them; the updates sent.
        func send(_ member: Member) {
            guard let edits = member.buffer.edits(since: member.synced) else { return }
            for edit in edits where !edit.isShared {
                for update in member.note.edit(replacing: edit.range, with: edit.text, continuing: edit.continuesStep) {
                    member.socket?.send(update: update)
                }
            }
            member.synced = member.buffer.editCount
        }

        init(_ names: [String], opened: String) {
            list = names.map { Member(name: $0, text: opened) }
            self.opened = opened
        }

        /// On `queue`: a socket's event for `member`.
        func handle(_ event: LiveSocketEvent, for member: Member) {
            switch event {
            case .presence where !member.joined:
                let join = member.note.joined(editorText: member.buffer.text, openedText: opened)
                if let update = join.send { member.socket?.send(update: update) }
                member.buffer = TextBuffer(text: join.text)
                member.buffer.moveCursor(to: member.buffer.position(ofUTF16: member.buffer.utf16Count))
                member.synced = member.buffer.editCount
                member.joined = true
            case .update(_, let bytes):
                guard let changes = try? member.note.receive(bytes) else { return }
                for change in changes {
                    switch change {
                    case .insert(let text, let at):
                        member.buffer.applyShared(at..<at, with: text)
                        // A key of the other member's: its mark is its text.
                        if let mark = sent[text] { arrivals.append(TogetherBench.seconds(since: mark) * 1000) }
                    case .delete(let range): member.buffer.applyShared(range, with: "")
                    }
                }
            default: break
            }
        }

        /// On `queue`: the next key, typed by the next member in turn.
        func typeOne() {
            let member = list[typed % list.count]
            // Letters only (ann's echo is measured on "Q"), a mark each.
            let key = String(UnicodeScalar(UInt8(97 + (typed / list.count) % 26)))
            let start = ContinuousClock.now
            member.buffer.insert(key)
            send(member)
            localWork.append(TogetherBench.seconds(since: start) * 1000)
            sent[key] = start
            typed += 1
        }
    }

    static func typing(keysPerMember: Int = 400) async throws {
        let executable = URL(fileURLWithPath: CommandLine.arguments[0]).resolvingSymlinksInPath()
        let binary = executable.deletingLastPathComponent().appendingPathComponent("byteclub").path
        guard FileManager.default.isExecutableFile(atPath: binary) else {
            throw BenchError("build byteclub next to app-bench first (swift build -c release --product byteclub)")
        }
        let base = FileManager.default.temporaryDirectory.appendingPathComponent("app-bench-together-\(UUID().uuidString)")
        let folder = base.appendingPathComponent("club/byteclub")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let opened = "# Minutes\n\nAgenda:\n"
        try Data(opened.utf8).write(to: folder.appendingPathComponent("Minutes.md"))
        var configuration = ClubServerConfiguration(root: base.appendingPathComponent("club").path, token: "")
        configuration.members = ["ann", "ray", "cy"].map { ClubMember(name: $0, token: "bench-\($0)") }
        configuration.logger.logLevel = .critical
        let server = try await ClubServer.start(configuration)
        defer { try? FileManager.default.removeItem(at: base) }
        let store = { (name: String) in DropboxStore(displayName: "club", endpoints: .club(server.baseURL), tokens: StaticToken("bench-\(name)")) }
        let id = try await store("ann").metadata("/byteclub/Minutes.md").id ?? ""

        // ann: the released app in a pseudo-terminal, the note open.
        let environment = [
            "HOME": base.path, "TERM": "xterm-256color", "LANG": "C.UTF-8", "PATH": "/usr/bin:/bin",
            "XDG_STATE_HOME": base.appendingPathComponent("state").path, "XDG_CACHE_HOME": base.appendingPathComponent("cache").path,
            "XDG_DATA_HOME": base.appendingPathComponent("data").path, "XDG_CONFIG_HOME": base.appendingPathComponent("config").path,
        ]
        let app = try EchoBench.PTYApp(binary: binary, arguments: ["--server", server.baseURL.absoluteString, "--token", "bench-ann"], environment: environment)
        defer { app.stop() }
        try app.waitFor("Minutes")
        let offset = app.output.total
        app.send("\r")
        try app.waitFor("Editing \"Minutes.md\"", after: offset)

        // ray and cy: documents of their own, through sockets of their own, on their queue.
        let members = Members(["ray", "cy"], opened: opened)
        // One after the other, so the presence reads "ann, ray, cy".
        for member in members.list {
            member.socket = store(member.name).openLive(fileID: id) { [members] event in
                members.queue.async { members.handle(event, for: member) }
            }
            try await AppBench.wait("\(member.name) in the note", timeout: 30) { members.queue.sync { member.joined } }
        }
        // (ncurses writes only the cells that change: the last letter may already be there.)
        try app.waitFor("Live: ann, ray, c", after: 0)

        // ray and cy type 20 keys a second each while ann's echo is measured.
        let total = keysPerMember * members.list.count
        let typist = DispatchSource.makeTimerSource(queue: members.queue)
        typist.schedule(deadline: .now(), repeating: .milliseconds(25))
        typist.setEventHandler { [members] in if members.typed < total { members.typeOne() } }
        typist.resume()
        let echo = try EchoBench.measure(app, count: 300) { members.queue.sync { members.typed < total } }
        typist.cancel()
        try await AppBench.wait("the last keys arrived", timeout: 30) { members.queue.sync { members.list[0].note.text == members.list[1].note.text } }
        // ray's keys on ann's screen: each one typed (a "Z", which nothing else draws), and the
        // pty's output read until it shows.
        var onScreen: [Double] = []
        for _ in 0..<100 {
            let offset = app.output.total
            let start = ContinuousClock.now
            members.queue.sync {
                let ray = members.list[0]
                ray.buffer.insert("Z")
                members.send(ray)
            }
            let seen = try app.waitForMatch("Z", after: offset, timeout: 5)
            onScreen.append(milliseconds(from: start, to: app.output.arrival(ofByteAt: seen.at) ?? .now))
            usleep(20_000)
        }
        onScreen.sort()
        let (local, remote) = members.queue.sync { (members.localWork.sorted(), members.arrivals.sorted()) }
        for member in members.list { member.socket?.close() }
        print("app-bench together: three members typing in one note on a club server on loopback (ray and cy 20 keys a second each)")
        print(row(["", "keys", "median ms", "p95 ms", "p99 ms"], [60, 6, 10, 8, 8]))
        print(row(["ann's key echo, the released app in a pty (120×36)", "\(echo.count)", String(format: "%.2f", percentile(echo, 0.5)),
                   String(format: "%.2f", percentile(echo, 0.95)), String(format: "%.2f", percentile(echo, 0.99))], [60, 6, 10, 8, 8]))
        print(row(["a typed key's own work (buffer, document, update sent)", "\(local.count)", String(format: "%.3f", percentile(local, 0.5)),
                   String(format: "%.3f", percentile(local, 0.95)), String(format: "%.3f", percentile(local, 0.99))], [60, 6, 10, 8, 8]))
        print(row(["a key to the other member's document and buffer", "\(remote.count)", String(format: "%.2f", percentile(remote, 0.5)),
                   String(format: "%.2f", percentile(remote, 0.95)), String(format: "%.2f", percentile(remote, 0.99))], [60, 6, 10, 8, 8]))
        print(row(["ray's key on ann's screen (the released app's pty output)", "\(onScreen.count)", String(format: "%.2f", percentile(onScreen, 0.5)),
                   String(format: "%.2f", percentile(onScreen, 0.95)), String(format: "%.2f", percentile(onScreen, 0.99))], [60, 6, 10, 8, 8]))
        print("")
        await server.stop()
    }

    nonisolated static func seconds(since start: ContinuousClock.Instant) -> Double {
        let elapsed = ContinuousClock.now - start
        return Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
    }

    /// The process's peak resident set, MiB.
    static func peakRSS() -> Int {
        let status = (try? String(contentsOfFile: "/proc/self/status", encoding: .utf8)) ?? ""
        let line = status.split(separator: "\n").first { $0.hasPrefix("VmHWM:") } ?? ""
        return (Int(line.split(separator: " ").dropFirst().first ?? "") ?? 0) / 1024
    }
}
