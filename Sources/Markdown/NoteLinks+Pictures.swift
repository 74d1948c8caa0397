import Foundation

/// Imports keep pictures showing: a vault keeps them anywhere (`assets/`, beside the note), the
/// club keeps them under `photos/`, where PanoPhotos looks. When pictures move, each picture
/// link to one of them is written again to point at its new place.
extension NoteLinks {
    /// `text` with every picture link whose target moved (`moves`: old club path, lower case →
    /// new club path) written again with the relative path from `folder`, the note's club
    /// folder, in its own style: `![alt](<path>)`, or `![[path|300]]` for a wiki link (its size
    /// or text kept; one whose path a wiki link cannot hold becomes a Markdown link); and how
    /// many were changed.
    ///
    /// `![alt](assets/x.jpg)` is matched by the path it resolves to from `folder`. `![[x.jpg]]`,
    /// which Obsidian finds by name anywhere in the vault, is matched by name when exactly one
    /// moved picture has that name. Links in code, to the web, and to pictures that did not move
    /// are left as written.
    public static func relocatingPictures(in text: String, folder: String, moves: [String: String]) -> (text: String, count: Int) {
        let (moved, rewrites) = relocatedPictures(in: text, folder: folder, moves: moves)
        return (moved, rewrites.count)
    }

    /// One picture link as it was and as ``relocatedPictures(in:folder:moves:)`` wrote it, in
    /// the order they stand in the note: what an export undoes to give the vault back.
    public struct PictureRewrite: Hashable, Sendable, Codable {
        public var original: String
        public var written: String

        public init(original: String, written: String) {
            self.original = original
            self.written = written
        }
    }

    /// The pictures that moved (old club path, lower case → new club path), with their new
    /// places by name, lower case (what a `![[x.jpg]]` finds): made once for a whole import,
    /// not once a note (6,500 notes and 300 pictures were 2 million names worked out, 80% of
    /// an import's planning).
    public struct PictureMoves: Sendable {
        public let moves: [String: String]
        let byName: [String: [String]]

        public init(_ moves: [String: String]) {
            self.moves = moves
            var byName: [String: [String]] = [:]
            for new in moves.values {
                let name = new.split(separator: "/", omittingEmptySubsequences: true).last.map(String.init) ?? new
                byName[name.lowercased(), default: []].append(new)
            }
            self.byName = byName
        }
    }

    /// ``relocatingPictures(in:folder:moves:)``, with each link it changed, first to last.
    public static func relocatedPictures(in text: String, folder: String, moves: [String: String]) -> (text: String, rewrites: [PictureRewrite]) {
        relocatedPictures(in: text, folder: folder, moves: PictureMoves(moves))
    }

    /// ``relocatedPictures(in:folder:moves:)`` with the moves' names worked out already.
    public static func relocatedPictures(in text: String, folder: String, moves pictureMoves: PictureMoves) -> (text: String, rewrites: [PictureRewrite]) {
        let (moves, byName) = (pictureMoves.moves, pictureMoves.byName)
        guard !moves.isEmpty else { return (text, []) }
        var changes: [(link: NoteLink, to: String)] = []
        for link in scan(text) where link.isImage && link.line >= 0 {
            if link.syntax == .wiki, !link.destination.contains("/") {
                if let found = byName[link.destination.lowercased()], found.count == 1 { changes.append((link, found[0])) }
                continue
            }
            guard case .photo(let path) = link.target(inFolder: folder), let new = moves[path.lowercased()] else { continue }
            changes.append((link, new))
        }
        guard !changes.isEmpty else { return (text, []) }
        var lines = text.utf8.split(separator: 0x0A, omittingEmptySubsequences: false).map { Array($0) }
        var rewrites: [PictureRewrite] = []
        // From the end of each line, so the byte ranges of the links before stay true.
        for (link, new) in changes.sorted(by: { ($0.link.line, $0.link.bytes.lowerBound) > ($1.link.line, $1.link.bytes.lowerBound) })
        where link.line < lines.count && link.bytes.upperBound <= lines[link.line].count {
            let original = String(decoding: lines[link.line][link.bytes], as: UTF8.self)
            let path = relative(from: folder, to: new)
            let written: String
            if link.syntax == .wiki, original.hasPrefix("![["), original.hasSuffix("]]"), !path.contains(where: { "[]|#^".contains($0) }) {
                // A wiki link stays one, its size or text kept: `![[x.png|300]]` →
                // `![[../photos/a/x.png|300]]`, a relative path Obsidian follows too.
                let inner = original.dropFirst(3).dropLast(2)
                var cut = inner.firstIndex(where: { $0 == "|" || $0 == "#" }) ?? inner.endIndex
                // A table's `\|` stays whole.
                if cut > inner.startIndex, cut < inner.endIndex, inner[cut] == "|", inner[inner.index(before: cut)] == "\\" { cut = inner.index(before: cut) }
                let rest = String(inner[cut...])
                written = "![[\(path)\(rest)]]"
            } else {
                let alt = link.text.replacingOccurrences(of: "]", with: "\\]")
                written = "![\(alt)](<\(path)>)"
            }
            lines[link.line].replaceSubrange(link.bytes, with: Array(written.utf8))
            rewrites.insert(PictureRewrite(original: original, written: written), at: 0)
        }
        return (lines.map { String(decoding: $0, as: UTF8.self) }.joined(separator: "\n"), rewrites)
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

/// A picture's size as Obsidian writes it after a `|`: `![[x.png|300]]` (a width) or
/// `![[x.png|100x145]]` (width × height), in pixels; in a Markdown image, at the end of the alt
/// text (`![desk|300](x.png)`).
public struct PictureSize: Hashable, Sendable {
    public var width: Int
    /// Nil: as the picture's aspect ratio makes it.
    public var height: Int?

    public init(width: Int, height: Int? = nil) {
        self.width = width
        self.height = height
    }
}

/// What the caller knows of a picture before the note is laid out (``RenderOptions/knownPictures``).
public enum KnownPicture: Hashable, Sendable {
    /// Its pixels' width and height (any size with its aspect ratio, a thumbnail's): a picture
    /// sized by its width alone takes the rows that ratio gives.
    case size(width: Int, height: Int)
    /// It cannot be drawn (a format the app does not draw, not in the club, a picture that
    /// failed): one row says so after its name ("2.1 MB · cannot be drawn"), never a slot.
    case undrawn(String)
}

extension NoteLinks {
    /// `300` or `100x145` (also `100X145`, blanks around) as a size; anything else nil. Sizes
    /// of 0, or over 100,000 pixels, are no size.
    public static func pictureSize(_ text: some StringProtocol) -> PictureSize? {
        let parts = text.trimmingCharacters(in: .whitespaces).lowercased().split(separator: "x", maxSplits: 1, omittingEmptySubsequences: false)
        func number(_ part: Substring) -> Int? {
            guard !part.isEmpty, part.count <= 6, part.allSatisfy({ $0.isASCII && $0.isNumber }), let value = Int(part),
                  (1...100_000).contains(value) else { return nil }
            return value
        }
        guard let width = number(parts[0]) else { return nil }
        if parts.count == 1 { return PictureSize(width: width) }
        guard let height = number(parts[1]) else { return nil }
        return PictureSize(width: width, height: height)
    }

    /// A Markdown image's alt text and the size at its end: "desk|300" → ("desk", 300 wide);
    /// "a|b" and "desk" are their own alt, no size.
    public static func pictureSize(inAlt alt: String) -> (alt: String, size: PictureSize?) {
        guard let bar = alt.lastIndex(of: "|"), let size = pictureSize(alt[alt.index(after: bar)...]) else { return (alt, nil) }
        return (String(alt[..<bar]).trimmingCharacters(in: .whitespaces), size)
    }

    /// The cells a picture's slot takes in a pane `available` cells wide: a sized picture its
    /// size in pixels over a cell's (`cell`, the size the view assumes), never wider than the
    /// pane (the height shrunk with it); a picture sized by its width alone is as tall as its
    /// aspect ratio (`known`) makes it, or `defaultRows` until that is known; an unsized one
    /// the whole width and `defaultRows`. `columns` is nil for the whole width.
    public static func pictureSlot(size: PictureSize?, known: (width: Int, height: Int)?, available: Int, defaultRows: Int,
                                   cell: (width: Int, height: Int)) -> (columns: Int?, rows: Int) {
        guard let size else { return (nil, defaultRows) }
        let cellWidth = Double(max(1, cell.width)), cellHeight = Double(max(1, cell.height))
        let wanted = Double(size.width) / cellWidth
        let columns = max(1, min(available, Int(wanted.rounded(.up))))
        // The share of the asked width the pane has room for.
        let shrink = min(1, Double(available) / max(wanted, 1))
        let rows: Int
        if let height = size.height {
            rows = Int((Double(height) * shrink / cellHeight).rounded(.up))
        } else if let known, known.width > 0, known.height > 0 {
            let pixelsHigh = Double(size.width) * shrink * Double(known.height) / Double(known.width)
            rows = Int((pixelsHigh / cellHeight).rounded(.up))
        } else {
            rows = defaultRows
        }
        return (columns, max(1, min(rows, 200)))
    }
}
