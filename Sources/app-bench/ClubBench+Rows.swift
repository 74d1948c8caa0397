import Foundation

/// Issue 71's rows that the club above does not measure: an import of a vault beside `cp -r`,
/// commands that name one note at 6,500 notes and at the club's size, and a streamed upload to
/// a peer that is not byteclub's beside `curl -T`. Each is a script of its own (`scripts/`,
/// also run by hand), run here on the release binaries beside this one; its last line,
/// `summary {...}`, gives the figures printed beside their targets.
extension ClubBench {
    static func otherRows(_ widths: [Int], notes: Int) throws {
        guard let scripts = scriptsFolder() else {
            return say(row(["issue 71's other rows: no scripts/ folder here or above app-bench", "—", "", ""], widths))
        }
        let release = ServeProcess.binary.deletingLastPathComponent()
        let byteclub = release.appendingPathComponent("byteclub").path

        if let imported = try summary(scripts, "import-bench", ["--binary", byteclub, "--runs", "1"]) {
            let files = imported["files"] as? Int ?? 0
            say(row(["byteclub import of a \(grouped(files))-file vault, 5 folders deep", seconds(imported["import_s"]), "≤ 10 s",
                     "cp -r \(seconds(imported["cp_s"]))"], widths))
            let first = (imported["first_seen_s"] as? Double).map { String(format: "first after %.1f s", $0) } ?? "none seen"
            say(row(["  an app's change pages during it: files seen", "\(imported["seen_during"] as? Int ?? 0)", "live", first], widths))
        }
        for count in Set([6_500, notes]).sorted() {
            guard let named = try summary(scripts, "one-note-bench", ["--binary", byteclub, "--notes", "\(count)", "--runs", "5"]) else { continue }
            let target = count <= 6_500 ? "≤ 100 ms" : "≤ 200 ms"
            func wall(_ command: String) -> String { ms((named[command] as? [String: Any])?["wall_ms"] as? Double ?? .nan) }
            let floor = "cat PATH \(wall("cat PATH"))"
            for command in ["cat TITLE", "links TITLE"] {
                say(row(["byteclub \(command), \(grouped(count)) notes (median of 5)", wall(command), target, floor], widths))
            }
        }
        let transferBench = release.appendingPathComponent("transfer-bench").path
        if FileManager.default.isExecutableFile(atPath: transferBench),
           let upload = try summary(scripts, "peer-upload-bench", ["--transfer-bench", transferBench, "--runs", "5"]) {
            say(row(["512 MiB PUT to Python's http.server: Transfer / curl -T", String(format: "%.2f×", upload["ratio"] as? Double ?? .nan),
                     "≤ 1.10×", String(format: "process %.2f×; curl %@", upload["process_ratio"] as? Double ?? .nan,
                                       seconds(upload["curl_s"]))], widths))
        } else {
            say(row(["512 MiB PUT to a Python peer", "—", "≤ 1.10×", "no transfer-bench beside app-bench"], widths))
        }
        say(row(["an encrypted club: every note indexed / 1 GiB get", "—", "≤ 1.3×",
                 "app-bench club --encrypted; transfer-bench encrypted"], widths))
    }

    /// `scripts/` in the current folder or in a folder above this executable (the repository's).
    static func scriptsFolder() -> URL? {
        var folder = URL(fileURLWithPath: FileManager.default.currentDirectoryPath)
        var candidates = [folder.appendingPathComponent("scripts")]
        folder = ServeProcess.binary.deletingLastPathComponent()
        while folder.path != "/" {
            candidates.append(folder.appendingPathComponent("scripts"))
            folder = folder.deletingLastPathComponent()
        }
        return candidates.first { FileManager.default.isExecutableFile(atPath: $0.appendingPathComponent("import-bench").path) }
    }

    /// Runs `scripts/name arguments… --summary`, its output passed on indented, and reads its last
    /// line's JSON; nil (said) when it fails.
    static func summary(_ scripts: URL, _ name: String, _ arguments: [String]) throws -> [String: Any]? {
        let process = Process()
        process.executableURL = scripts.appendingPathComponent(name)
        process.arguments = arguments + ["--summary"]
        let output = Pipe()
        process.standardOutput = output
        process.standardError = output
        try process.run()
        let data = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        let lines = String(decoding: data, as: UTF8.self).split(separator: "\n")
        for line in lines where !line.hasPrefix("summary ") { say("    \(name): \(line)") }
        guard process.terminationStatus == 0, let last = lines.last(where: { $0.hasPrefix("summary ") }),
              let figures = try? JSONSerialization.jsonObject(with: Data(last.dropFirst("summary ".count).utf8)) as? [String: Any] else {
            say("    \(name) exited \(process.terminationStatus) with no summary")
            return nil
        }
        return figures
    }

    private static func seconds(_ value: Any?) -> String {
        (value as? Double).map { String(format: "%.2f s", $0) } ?? "—"
    }
}
