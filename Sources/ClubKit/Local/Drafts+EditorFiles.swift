import Durable
import Foundation
import Remote

/// A draft handed to an external editor (the app's `Alt-E`, the command line's `edit`): its
/// file beside the draft, and what a byteclub killed meanwhile left there.
extension DraftStore {
    /// Where the editor edits draft `id`: beside the draft, named with the note's extension so
    /// the editor highlights it (`note-….editing.md`). ``all()`` lists only `.json`, never these.
    public func editorFile(for id: String, fileName: String) -> URL {
        let ext = fileName.split(separator: ".").count > 1 ? String(fileName.split(separator: ".").last!) : "txt"
        return directory.appendingPathComponent("\(id).editing.\(StorageName.make(ext.lowercased()))")
    }

    /// Writes the editor's file durably, 0600 (``DurableFile``).
    public func writeEditorFile(_ data: Data, to url: URL) throws {
        try DurableFile.write(data, to: url)
    }

    /// Takes editor files left by a byteclub that ended while the editor ran (`kill -9`) into
    /// their drafts, so the next start shows what was written in the editor. A file whose text
    /// is the draft's (or whose draft is gone, or that is not UTF-8) is left alone or removed,
    /// never lost: only a file whose text the draft now holds is removed.
    @discardableResult
    public func adoptEditorFiles(now: Date = Date()) -> Int {
        guard let names = try? FileManager.default.contentsOfDirectory(atPath: directory.path) else { return 0 }
        var adopted = 0
        for name in names where name.contains(".editing.") && !name.hasPrefix(".") {
            let id = String(name[..<name.range(of: ".editing.")!.lowerBound])
            let file = directory.appendingPathComponent(name)
            guard var draft = load(id), let data = try? Data(contentsOf: file),
                  var text = String(validating: data, as: UTF8.self) else { continue }
            if !draft.body.hasSuffix("\n"), text.hasSuffix("\n") { text.removeLast() }
            if text != draft.body {
                draft.body = text
                draft.updated = now
                guard (try? save(draft)) != nil else { continue }
                adopted += 1
            }
            try? DurableFile.remove(file)
        }
        return adopted
    }
}
