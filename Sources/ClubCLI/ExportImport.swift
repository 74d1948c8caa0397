import ArgumentParser
import ClubKit
import DropboxWire
import Foundation
import Remote

struct Export: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "export",
        abstract: "Write the club's notes as Markdown files with front matter, its photos and other files beside them.",
        discussion: """
            Each note becomes NAME.md in DIR (subfolders kept), opening with YAML front matter: \
            title, tags, pinned, created, modified, modified_by. A note that has front matter of its \
            own keeps it byte for byte, its tags and pinned lines written again only when the club's \
            differ, so an export imported into an empty club (byteclub import) exports again byte \
            for byte the same. Every other file (photos, PDFs, audio, JSON, canvas files) is copied \
            as it is, at its place; only the club's own .byteclub/ and .clubkeys/ stay out. A folder \
            a vault was imported into (byteclub import), exported alone or with the whole club, goes \
            back as the vault was: every file at its vault path, pictures where it had them, their \
            links as it wrote them, no front matter where it had none (FOLDER/.byteclub/import.json). \
            Files already the same in DIR are not fetched again, so an interrupted export resumes. \
            Obsidian, zk and nb open DIR as it is.
            """)
    @Argument(help: "What to export, when given before DIR: NAME: (a remote of config.toml), a folder in the club's folder, or NAME:FOLDER (default: the whole club's folder).")
    var source: String
    @Argument(help: "The folder to write (created if need be).") var directory: String?
    @Flag(help: "Say what would be written, and write nothing.") var dryRun = false
    @OptionGroup var backend: BackendOptions

    mutating func validate() throws {
        // `export DIR` as before; `export SOURCE DIR` names what to export first, as cp does.
        guard directory != nil else { return }
        source = try backend.takeRemote(from: source)
    }

    func run() async throws {
        let out = URL(fileURLWithPath: directory ?? source).standardizedFileURL
        let chosen = directory == nil ? nil : backend.clubPath(source)
        let dryRun = self.dryRun
        let problems = Carried(0)
        try await runRemote(backend) { backend in
            let export = backend.export(chosen, to: out, dryRun: dryRun)
            let progress = ProgressLine("export")
            let names = backend.names
            let report = try await export.run(names: { await names.names(for: $0) }) { event in
                switch event {
                case .progress(let done, let total): progress.update(Int64(done), Int64(total))
                case .wouldWrite(let target): FileHandle.standardOutput.write(Data("would write \(TerminalSafe.escape(target.path))\n".utf8))
                }
            }
            progress.finish()
            for refusal in report.refused { say(refusal) }
            problems.set(report.refused.count)
            say(report.summary)
        }
        if problems.value > 0 { throw Exit.conflict.code }
    }
}

struct Import: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "import",
        abstract: "Bring a folder of notes (an Obsidian, zk or nb vault, or an export) into the club: every file in it.",
        discussion: """
            Every .md and .txt file becomes a note, as it is (front matter and [[links]] included), \
            and its front matter's tags and `pinned: true` become the note's tags and pin (a tag \
            the club cannot keep, or front matter that does not parse, is said; the note still \
            comes whole). Pictures \
            (JPEG, PNG, GIF, HEIC, WebP) go under the club's photos/ folder, where PanoPhotos shows \
            them, in an album named after the folder they came from (a vault's or an export's \
            photos/ folder stays as it is), and the notes' picture links (![](assets/x.jpg), \
            ![[x.jpg|300]]) are written to follow them, each in its own style. Every other file (PDFs, SVG icons, audio, \
            video, JSON, canvas files) comes byte for byte to its place beside the notes, so \
            [[paper.pdf]] still finds it. Subfolders are kept (--flatten puts every file in the \
            club's folder itself). Hidden files and folders are left out, with a line naming them \
            (.obsidian, .zk and .nb: the vault's settings). What cannot be brought is named, \
            never renamed, and the import exits 4: a name the club refuses, one --flatten makes \
            twice, a FIFO, a socket or a symbolic link, a file that cannot be read. The line at \
            the end counts the notes, pictures and other files; exit 0 means every file came. What import rewrote is kept in \
            FOLDER/.byteclub/import.json, so byteclub export gives the vault back byte for byte. \
            A file already in the club with the same content is skipped, so an interrupted import \
            resumes where it stopped; one that differs is reported and left alone (exit 4).
            """)
    @Argument(help: "The folder to import.") var directory: String
    @Argument(help: "Where in the club: a folder in the club's folder, NAME: (a remote of config.toml) or NAME:FOLDER (default: the club's folder).")
    var target: String = ""
    @Flag(help: "Put every file in the club's folder itself, not in subfolders.") var flatten = false
    @Flag(help: "Say what would be imported, and import nothing.") var dryRun = false
    @OptionGroup var backend: BackendOptions

    mutating func validate() throws {
        target = try backend.takeRemote(from: target)
    }

    func run() async throws {
        let source = URL(fileURLWithPath: directory).standardizedFileURL
        let into = target.isEmpty ? nil : backend.clubPath(target)
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: source.path, isDirectory: &isDirectory), isDirectory.boolValue else {
            say("\(source.path) is not a folder")
            throw Exit.usage.code
        }
        let (flatten, dryRun) = (self.flatten, self.dryRun)
        let problems = Carried(0)
        // Every file of the vault, walked once: hidden ones are said here, what cannot come below.
        let vault = VaultFiles(walking: source)
        for line in vault.skippedLines() { say(line) }
        try await runRemote(backend) { backend in
            let vaultImport = backend.importing(vault, into: into, flatten: flatten, dryRun: dryRun)
            let progress = ProgressLine("import")
            // Through the write path: the notes land in order with the outbox.
            let report = try await backend.writes.importVault(vaultImport) { event in
                switch event {
                case .progress(let done, let total): progress.update(done, total)
                case .wouldImport(let local, let remote):
                    FileHandle.standardOutput.write(Data("would import \(TerminalSafe.escape(local.path)) → \(TerminalSafe.escape(remote))\n".utf8))
                case .said(let line): say(line)
                }
            }
            progress.finish()
            for line in report.untagged + report.refused { say(line) }
            problems.set(report.refused.count)
            say(report.summary)
        }
        if problems.value > 0 { throw Exit.conflict.code }
    }
}
