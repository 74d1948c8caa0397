import Foundation

/// The invariants, checked after every kill and restart from the files themselves: the club
/// folder, the server's `.byteclub` (journal, ids, revisions), the app's drafts and outbox and
/// the agent's journal. Each failed check is a loss, described in one line.
final class Checker {
    let club: Club
    let model: Model
    private(set) var checks = 0
    /// Files already found whole, by path and (inode, size, mtime): not read again.
    private var whole: [String: String] = [:]
    /// Revision bytes already found whole, by path.
    private var wholeRevisions: Set<String> = []
    /// History logs found whole, with the (log, folder) stamps they had.
    private var wholeLogs: [String: String] = [:]

    init(club: Club, model: Model) {
        self.club = club
        self.model = model
    }

    private func stamp(_ path: String) -> String? {
        var info = stat()
        guard lstat(path, &info) == 0 else { return nil }
        return "\(info.st_ino) \(info.st_size) \(info.st_mtim.tv_sec).\(info.st_mtim.tv_nsec)"
    }

    private func names(_ url: URL) -> [String] {
        ((try? FileManager.default.contentsOfDirectory(atPath: url.path)) ?? []).filter { !$0.hasPrefix(".") }.sorted()
    }

    /// What is on the server now: each note file's version (by note id) and each photo.
    struct Live {
        var notes: [Int: [(name: String, version: Int)]] = [:]
        var photos: Set<String> = []
        var files: [String] = []
    }

    /// Every check; the losses found.
    func run(afterServerRestart: Bool) -> [String] {
        var losses: [String] = []
        func check(_ ok: Bool, _ loss: @autoclosure () -> String) {
            checks += 1
            if !ok { losses.append(loss()) }
        }
        // 1. No note or photo on the server is cut off or mixed.
        var live = Live()
        for name in names(club.notes) where name != "photos" {
            let path = club.notes.appendingPathComponent(name).path
            live.files.append("/byteclub/" + name)
            guard let id = NoteText.id(fromName: name) else {
                check(false, "a file the run never made: /byteclub/\(name)")
                continue
            }
            guard let text = try? String(contentsOfFile: path, encoding: .utf8) else {
                check(false, "/byteclub/\(name) is not text")
                continue
            }
            switch NoteText.check(text) {
            case .valid(let bodyID, let version):
                check(bodyID == id, "/byteclub/\(name) holds note n\(bodyID)'s text (mixed)")
                check(model.notes[id].flatMap { model.version(of: text, note: $0) } == version, "/byteclub/\(name) holds lines of n\(id) the run never typed (v\(version))")
                live.notes[id, default: []].append((name, version))
            case .damaged(let why):
                check(false, "/byteclub/\(name) is damaged: \(why)")
            }
        }
        for name in names(club.photos) {
            let path = club.photos.appendingPathComponent(name).path
            live.files.append("/byteclub/photos/" + name)
            live.photos.insert(name)
            let mark = stamp(path)
            if let mark, whole[path] == mark { checks += 1; continue }
            let data = (try? Data(contentsOf: URL(fileURLWithPath: path))) ?? Data()
            let problem = PhotoBytes.problem(data, name: name)
            check(problem == nil, "/byteclub/photos/\(name): \(problem ?? "")")
            if problem == nil, let mark { whole[path] = mark }
        }
        // 2. Every save the user was told about is on the server, in a draft or in the outbox.
        let kept = Kept.read(club)
        for note in model.notes.values {
            guard let told = note.told else { continue }
            var present = Set((live.notes[note.id] ?? []).map(\.version))
            for text in kept.texts { if let version = model.version(of: text, note: note) { present.insert(version) } }
            check(!present.isDisjoint(with: note.candidates),
                  "n\(note.id): told at step \(told.step) (\(told.how)) of v\(told.version), may be \(note.candidates.sorted()); found \(present.sorted()) (server \((live.notes[note.id] ?? []).map(\.name)))")
            if let name = note.toldName {
                let named = (live.notes[note.id] ?? []).contains { note.names.contains($0.name) }
                    || kept.renames.contains { note.names.contains(($0 as NSString).lastPathComponent) }
                    || kept.texts.contains { model.version(of: $0, note: note) != nil }
                check(named, "n\(note.id): told it is \(name); the server has \((live.notes[note.id] ?? []).map(\.name)) and the outbox no such rename")
            }
        }
        // 3. Every photo whose upload was confirmed is on the server, whole (checked above).
        for photo in model.photos.values where photo.told != nil {
            check(live.photos.contains(photo.name), "\(photo.name): put said it was uploaded (step \(photo.told ?? 0)); it is not on the server")
        }
        // 4. The agent finishes what it accepted: nothing failed or cancelled in its journal.
        for transfer in club.agentTransfers() {
            let state = transfer["state"] as? String ?? "?"
            check(state != "failed" && state != "cancelled",
                  "the agent's transfer of \(transfer["local"] as? String ?? "?") is \(state): \(transfer["error"] as? String ?? "")")
        }
        // 5. The server's journal, ids and revisions agree with the folder.
        losses += server(live, check: check)
        if afterServerRestart { losses += listing(live, check: check) }
        return losses
    }

    private func server(_ live: Live, check: (Bool, @autoclosure () -> String) -> Void) -> [String] {
        let ids = club.serverIDs()
        // The journal: a header, then `<seq> <+|-> <path>` with rising numbers; a last line
        // without its newline is a crash's leftover the server cuts off when it loads.
        let journal = (try? String(contentsOf: club.meta.appendingPathComponent("journal"), encoding: .utf8)) ?? ""
        var lines = journal.split(separator: "\n", omittingEmptySubsequences: false)
        if lines.last.map({ !$0.isEmpty }) ?? false || !journal.hasSuffix("\n") { lines.removeLast() }
        check(lines.first?.hasPrefix("byteclub-journal 1 ") ?? false, "the server's journal has no header")
        var last: UInt64 = 0
        var newest: [String: Character] = [:]
        for line in lines.dropFirst() where !line.isEmpty {
            let fields = line.split(separator: " ", maxSplits: 2, omittingEmptySubsequences: false)
            guard fields.count == 3, let seq = UInt64(fields[0]), seq > last, fields[1] == "+" || fields[1] == "-" else {
                check(false, "the server's journal has a bad line: \(line.prefix(80))")
                break
            }
            last = seq
            newest[String(fields[2]).lowercased()] = fields[1].first
        }
        for file in live.files {
            check(ids[file.lowercased()] != nil, "\(file) is on disk but has no id in ids.json")
            check(newest[file.lowercased()] == "+", "\(file) is on disk but the journal's last word on it is \(newest[file.lowercased()].map(String.init) ?? "nothing")")
        }
        let onDisk = Set(live.files.map { $0.lowercased() })
        for (path, sign) in newest where sign == "+" && path.hasPrefix("/byteclub/") && path != "/byteclub/photos" {
            check(onDisk.contains(path), "the journal says \(path) was written last, but it is not on disk")
        }
        // Revisions: each live file's history (by its id) ends with the file as it is (the server
        // records a change it missed when it next looks, as `log` makes it), and no history is
        // left without a file or a tombstone (its revisions would be lost to `log` and `restore`).
        let revisions = club.meta.appendingPathComponent("revisions")
        for file in live.files {
            guard let id = ids[file.lowercased()], id.hasPrefix("id:") else { continue }
            let hash = liveHash(club.root.path + file)
            var newest = newestRecord(revisions.appendingPathComponent(String(id.dropFirst(3))))
            if newest != hash {
                _ = try? club.run(["log", file, "--limit", "1"], name: "log", within: 30)
                newest = newestRecord(revisions.appendingPathComponent(String(id.dropFirst(3))))
            }
            check(newest == hash, "\(file)'s history (\(id)) ends with \(newest?.prefix(12) ?? "nothing"), not the file as it is (\(hash?.prefix(12) ?? "?"))")
        }
        let known = Set(ids.values.map { String($0.dropFirst(3)) })
        let deleted = (try? String(contentsOf: revisions.appendingPathComponent("deleted.json"), encoding: .utf8)) ?? ""
        for key in names(revisions) where key != "revs" && !key.hasSuffix(".json") && key != "pruned" {
            check(known.contains(key) || deleted.contains("id:" + key), "the history revisions/\(key) belongs to no file (no id in ids.json, no tombstone): its revisions are lost")
        }
        // Every history's log parses, and the bytes it keeps are whole files.
        for key in names(revisions) where key != "revs" {
            let folder = revisions.appendingPathComponent(key)
            var isFolder: ObjCBool = false
            guard FileManager.default.fileExists(atPath: folder.path, isDirectory: &isFolder), isFolder.boolValue else { continue }
            // A history whose log and bytes are as they were when last found whole is not read again.
            let logPath = folder.appendingPathComponent("log").path
            let mark = (stamp(logPath) ?? "") + "|" + (stamp(folder.path) ?? "")
            if wholeLogs[logPath] == mark {
                checks += 1
                continue
            }
            guard let log = try? String(contentsOf: folder.appendingPathComponent("log"), encoding: .utf8) else { continue }
            checks += 1
            var failed = false
            defer { if !failed { wholeLogs[logPath] = mark } }
            for line in log.split(separator: "\n") {
                guard let record = try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any],
                      let hash = record["hash"] as? String, let size = (record["size"] as? NSNumber)?.intValue,
                      let path = record["path"] as? String else {
                    check(false, "revisions/\(key)/log has a bad line: \(line.prefix(80))")
                    failed = true
                    continue
                }
                let bytes = folder.appendingPathComponent(hash).path
                guard let mark = stamp(bytes), !wholeRevisions.contains(bytes + mark) else { continue }
                let data = (try? Data(contentsOf: URL(fileURLWithPath: bytes))) ?? Data()
                let name = (path as NSString).lastPathComponent
                var problem: String?
                if data.count != size || Hex.contentHash(data) != hash {
                    problem = "\(data.count) bytes, \(size) recorded, hash \(Hex.contentHash(data) == hash ? "matches" : "differs")"
                } else if name.hasSuffix(".jpg") {
                    problem = PhotoBytes.problem(data, name: name)
                } else if case .damaged(let why) = NoteText.check(String(decoding: data, as: UTF8.self)) {
                    problem = why
                }
                check(problem == nil, "a revision of \(path) (revisions/\(key)/\(hash.prefix(12))…) is not whole: \(problem ?? "")")
                failed = failed || problem != nil
                if problem == nil { wholeRevisions.insert(bytes + mark) }
            }
        }
        return []
    }

    /// A file's Dropbox content hash, kept while the file is unchanged.
    private var hashes: [String: (String, String)] = [:]
    private func liveHash(_ path: String) -> String? {
        guard let mark = stamp(path) else { return nil }
        if let (seen, hash) = hashes[path], seen == mark { return hash }
        guard let data = try? Data(contentsOf: URL(fileURLWithPath: path)) else { return nil }
        let hash = Hex.contentHash(data)
        hashes[path] = (mark, hash)
        return hash
    }

    /// The content hash of a history's newest revision.
    private func newestRecord(_ history: URL) -> String? {
        guard let log = try? String(contentsOf: history.appendingPathComponent("log"), encoding: .utf8),
              let last = log.split(separator: "\n").last,
              let record = try? JSONSerialization.jsonObject(with: Data(last.utf8)) as? [String: Any] else { return nil }
        return record["hash"] as? String
    }

    /// After a restart the server answers `ls` with what is on disk.
    private func listing(_ live: Live, check: (Bool, @autoclosure () -> String) -> Void) -> [String] {
        var listed: [String] = []
        for folder in ["/byteclub", "/byteclub/photos"] {
            guard let result = try? club.run(["ls", folder, "--json"], name: "ls", within: 30), result.status == 0,
                  let entries = try? JSONSerialization.jsonObject(with: Data(result.output.utf8)) as? [[String: Any]] else {
                check(false, "byteclub ls \(folder) failed after the server restarted")
                continue
            }
            listed += entries.filter { $0["kind"] as? String == "file" }.compactMap { $0["path_display"] as? String }
        }
        check(Set(listed) == Set(live.files),
              "ls lists what is not on disk (\(Set(listed).subtracting(live.files).sorted().prefix(3))) or leaves out what is (\(Set(live.files).subtracting(listed).sorted().prefix(3)))")
        return []
    }
}
