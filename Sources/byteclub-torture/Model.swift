import ClubKit
import Foundation

/// What the user was told, and what may be true since: per note, the versions its text may be
/// now; per photo, whether its upload was confirmed or accepted by the agent.
final class NoteModel {
    let id: Int
    /// Every version's line, as typed. A version's text is the text the editor showed (the
    /// server's, or its cache's when offline) and this line after it: known by its last line.
    var lines: [Int: String] = [:]
    var nextVersion = 1
    /// The note's file name as the user was last told (nil: never told of the note).
    var toldName: String?
    /// Names it may have now: the told one and any rename begun since.
    var names: Set<String> = []
    /// The version the user was told about (saved, queued or restored) and the step that told.
    var told: (version: Int, step: Int, how: String)?
    /// Versions its text may be now: the told one and every one begun since.
    var candidates: Set<Int> = []

    init(id: Int) { self.id = id }

    var title: String { NoteText.title(id) }

    /// A save or restore of `version` was begun: it may land, told or not.
    func begin(_ version: Int) { candidates.insert(version) }

    /// The user was told `version` is saved (or queued, or restored).
    func tell(_ version: Int, step: Int, how: String) {
        told = (version, step, how)
        candidates = [version]
    }

    func beginRename(_ name: String) { names.insert(name) }

    func tellRename(_ name: String) {
        toldName = name
        names = [name]
    }
}

final class PhotoModel {
    let id: Int
    let data: Data
    let byAgent: Bool
    /// The put exited 0: the photo is on the server, whole.
    var told: Int?
    /// The step whose `put --agent` the agent accepted (its journal holds it).
    var accepted: Int?
    /// The agent's put was still following it at the end of its step.
    var follower: Spawned?

    init(id: Int, data: Data, byAgent: Bool) {
        self.id = id
        self.data = data
        self.byAgent = byAgent
    }

    var name: String { PhotoBytes.name(id) }
}

/// Everything the run has made and been told.
final class Model {
    var notes: [Int: NoteModel] = [:]
    var photos: [Int: PhotoModel] = [:]
    private var nextNote = 1
    private var nextPhoto = 1

    func newNote() -> NoteModel {
        let note = NoteModel(id: nextNote)
        nextNote += 1
        notes[note.id] = note
        return note
    }

    func newPhoto(size: Int, seed: UInt64, byAgent: Bool) -> PhotoModel {
        let photo = PhotoModel(id: nextPhoto, data: PhotoBytes.make(id: nextPhoto, size: size, seed: seed), byAgent: byAgent)
        nextPhoto += 1
        photos[photo.id] = photo
        return photo
    }

    /// The version a text is (its last line's), if it is whole and every line is one typed
    /// for this note.
    func version(of text: String, note: NoteModel) -> Int? {
        guard case .valid(let id, let version) = NoteText.check(text), id == note.id else { return nil }
        for line in text.split(separator: "\n") {
            guard let tag = line.split(separator: " ").first, let dot = tag.firstIndex(of: "."), let typed = Int(tag[tag.index(after: dot)...]),
                  note.lines[typed] == String(line) else { return nil }
        }
        return version
    }
}

/// Where the app keeps what is not yet on the server: drafts and outbox items, read from disk.
struct Kept {
    /// Draft bodies and outbox texts.
    var texts: [String] = []
    /// New paths of renames waiting in the outbox.
    var renames: [String] = []
    /// Paths any waiting outbox item or draft touches (lowercased), for choosing quiet notes.
    var busy: Set<String> = []
    /// Note ids with any draft or outbox item.
    var busyIDs: Set<Int> = []

    static func read(_ club: Club) -> Kept {
        var kept = Kept()
        // Each club's drafts folder (drafts/KEY/), and drafts an older byteclub left in drafts/ itself.
        let folders = [club.drafts] + ((try? FileManager.default.contentsOfDirectory(atPath: club.drafts.path)) ?? [])
            .filter { !$0.hasSuffix(".json") && !$0.hasPrefix(".") }.map { club.drafts.appendingPathComponent($0) }
        // Read as byteclub reads them: a draft whose text is its note's journal keeps none in its file.
        for folder in folders {
            for draft in DraftStore(directory: folder).all() {
                kept.add(text: draft.body)
                if let path = draft.path { kept.touch(path) }
                if let id = NoteText.id(fromName: draft.title) { kept.busyIDs.insert(id) }
            }
        }
        let clubs = (try? FileManager.default.contentsOfDirectory(atPath: club.outbox.path)) ?? []
        for folder in clubs {
            let items = (try? FileManager.default.contentsOfDirectory(atPath: club.outbox.appendingPathComponent(folder).path)) ?? []
            for name in items where name.hasSuffix(".json") {
                guard let object = Self.json(club.outbox.appendingPathComponent(folder).appendingPathComponent(name)) else { continue }
                if let text = object["text"] as? String { kept.add(text: text) }
                if let path = object["path"] as? String { kept.touch(path) }
                if let path = object["newPath"] as? String {
                    kept.touch(path)
                    kept.renames.append(path)
                }
            }
        }
        return kept
    }

    private mutating func add(text: String) {
        texts.append(text)
        if let id = NoteText.id(fromName: "tt" + text.dropFirst(1).prefix(5) + "x") { busyIDs.insert(id) }
    }

    private mutating func touch(_ path: String) {
        busy.insert(path.lowercased())
        if let id = NoteText.id(fromName: (path as NSString).lastPathComponent) { busyIDs.insert(id) }
    }

    static func json(_ url: URL) -> [String: Any]? {
        (try? Data(contentsOf: url)).flatMap { try? JSONSerialization.jsonObject(with: $0) } as? [String: Any]
    }
}
