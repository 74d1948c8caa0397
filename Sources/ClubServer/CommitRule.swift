import DropboxWire
import Foundation

/// What a commit does at its target, by Dropbox's write modes: the decision as a value, made
/// from what the target holds; the ``FolderStore`` actor looks and carries it out
/// (FolderStore+Writes).
package enum CommitRule: Equatable {
    /// Write the file there (replacing what is there, if anything).
    case place
    /// The same content is there already: answer its metadata and write nothing (Dropbox
    /// treats re-adding identical content as a no-op, not a conflict).
    case unchanged
    /// Write the file at a free name beside the target (autorename), with this suffix first.
    case placeBeside(suffix: String?)
    /// Refuse: `path/conflict/<file|folder>`.
    case conflict(ErrorTag)

    /// What the target holds.
    package enum Target: Equatable {
        case nothing
        case folder
        case file(rev: String, contentHash: String?)
        /// Something no listing shows (a FIFO, a socket): never replaced.
        case other
    }

    package static func decide(_ target: Target, mode: WriteMode, autorename: Bool, contentHash: String) -> CommitRule {
        switch (target, mode) {
        case (.nothing, .update):
            // Updating a rev of a file that is gone is a conflict in Dropbox's model too.
            return autorename ? .place : .conflict(.file)
        case (.nothing, _), (.file, .overwrite):
            return .place
        case (.folder, _):
            return autorename ? .placeBeside(suffix: nil) : .conflict(.folder)
        case (.other, _):
            return .conflict(.file)
        case (.file(_, let hash), .add):
            if hash == contentHash { return .unchanged }
            return autorename ? .placeBeside(suffix: nil) : .conflict(.file)
        case (.file(let rev, let hash), .update(let wanted)):
            guard wanted != rev else { return .place }
            if hash == contentHash { return .unchanged }
            return autorename ? .placeBeside(suffix: "conflicted copy") : .conflict(.file)
        }
    }

    /// The names autorename tries beside `name`, in order: "name (1).txt", "name (2).txt", … or
    /// "name (conflicted copy).txt", then "name (conflicted copy 1).txt", ….
    package static func freeNames(near name: String, suffix: String?, count: Int = 10_000) -> [String] {
        let ext = (name as NSString).pathExtension
        let base = ext.isEmpty ? name : String(name.dropLast(ext.count + 1))
        let dotExt = ext.isEmpty ? "" : "." + ext
        var candidates: [String] = []
        if let suffix { candidates.append("\(base) (\(suffix))\(dotExt)") }
        for number in 1...count {
            candidates.append(suffix.map { "\(base) (\($0) \(number))\(dotExt)" } ?? "\(base) (\(number))\(dotExt)")
        }
        return candidates
    }
}
