import Foundation

/// Imports keep pictures showing: a vault keeps them anywhere (`assets/`, beside the note), the
/// club keeps them under `photos/`, where PanoPhotos looks. When pictures move, each picture
/// link to one of them is written again to point at its new place.
extension NoteLinks {
    /// `text` with every picture link whose target moved (`moves`: old club path, lower case →
    /// new club path) written as `![alt](<relative path>)` from `folder`, the note's club folder;
    /// and how many were changed.
    ///
    /// `![alt](assets/x.jpg)` is matched by the path it resolves to from `folder`. `![[x.jpg]]`,
    /// which Obsidian finds by name anywhere in the vault, is matched by name when exactly one
    /// moved picture has that name. Links in code, to the web, and to pictures that did not move
    /// are left as written.
    public static func relocatingPictures(in text: String, folder: String, moves: [String: String]) -> (text: String, count: Int) {
        guard !moves.isEmpty else { return (text, 0) }
        var byName: [String: [String]] = [:]
        for new in moves.values { byName[(new as NSString).lastPathComponent.lowercased(), default: []].append(new) }
        var changes: [(link: NoteLink, to: String)] = []
        for link in scan(text) where link.isImage && link.line >= 0 {
            if link.syntax == .wiki, !link.destination.contains("/") {
                if let found = byName[link.destination.lowercased()], found.count == 1 { changes.append((link, found[0])) }
                continue
            }
            guard case .photo(let path) = link.target(inFolder: folder), let new = moves[path.lowercased()] else { continue }
            changes.append((link, new))
        }
        guard !changes.isEmpty else { return (text, 0) }
        var lines = text.utf8.split(separator: 0x0A, omittingEmptySubsequences: false).map { Array($0) }
        // From the end of each line, so the byte ranges of the links before stay true.
        for (link, new) in changes.sorted(by: { ($0.link.line, $0.link.bytes.lowerBound) > ($1.link.line, $1.link.bytes.lowerBound) })
        where link.line < lines.count && link.bytes.upperBound <= lines[link.line].count {
            let alt = link.text.replacingOccurrences(of: "]", with: "\\]")
            let written = "![\(alt)](<\(relative(from: folder, to: new))>)"
            lines[link.line].replaceSubrange(link.bytes, with: Array(written.utf8))
        }
        return (lines.map { String(decoding: $0, as: UTF8.self) }.joined(separator: "\n"), changes.count)
    }

    /// The relative path from the folder `from` to the file `to`, both club paths
    /// ("/byteclub/trips", "/byteclub/photos/a.jpg" → "../photos/a.jpg").
    public static func relative(from folder: String, to path: String) -> String {
        let base = folder.split(separator: "/")
        let target = path.split(separator: "/")
        var common = 0
        while common < base.count, common < target.count - 1, base[common].lowercased() == target[common].lowercased() { common += 1 }
        let ups = Array(repeating: "..", count: base.count - common)
        return (ups + target[common...].map(String.init)).joined(separator: "/")
    }
}
