import Foundation
import Remote
import TerminalUI

/// "Insert a photo" (`Alt-I` in the editor): the club's photos as a list to choose from, as the
/// PanoPhotos tab lists them; Enter hands the chosen one back, Esc closes. `/` filters.
@MainActor
final class PhotoChooserLayer: Layer {
    private let photos: [RemoteEntry]
    private var list = ListState()
    private let onChoice: @MainActor (RemoteEntry?) -> Void

    static let bindings = KeyBindings<ListState.Action>(group: "Insert a photo", [
        .init([.enter], .activate, "Insert the photo's reference"),
        .init([.escape], .clearFilter, "Close (or clear the filter)"),
    ])

    init(photos: [RemoteEntry], onChoice: @escaping @MainActor (RemoteEntry?) -> Void) {
        self.photos = photos
        self.onChoice = onChoice
    }

    private var rows: [ListRow] { photos.map { ListRow([$0.name, ByteFormat.size($0.size)]) } }

    func render(into canvas: any Canvas, area: Rect) {
        let box = area.centered(width: min(area.width - 4, 60), height: min(area.height - 4, max(8, photos.count + 5)))
        guard box.width >= 10, box.height >= 5 else { return }
        canvas.fill(box, style: canvas.theme.panel)
        canvas.drawBox(box, style: canvas.theme.border, title: "Insert a photo", titleStyle: canvas.theme.title)
        let inner = box.inset(top: 1, left: 1, bottom: 1, right: 1)
        let (listArea, hint) = inner.splitBottom(1)
        ListView(columns: [ListColumn("Photo"), ListColumn("Size", width: .fixed(10), alignment: .right, isSecondary: true)],
                 rows: rows, emptyHint: "No photos in the club yet (Alt-U uploads one)").render(into: canvas, area: listArea, state: &list)
        canvas.put("Enter insert · / filter · Esc close", in: hint, alignment: .left, style: canvas.theme.muted)
    }

    func handle(_ key: Key, context: LayerContext) -> EventResult {
        switch key {
        case .f(1), .ctrl("l"), .resize: return .ignored
        default: break
        }
        let wasFiltering = list.isFiltering
        let outcome = list.handle(key, rows: rows)
        switch outcome {
        case .activated(let row):
            context.dismiss()
            onChoice(photos.indices.contains(row) ? photos[row] : nil)
        case .ignored where key == .escape && !wasFiltering, .ignored where key == .char("q"):
            context.dismiss()
            onChoice(nil)
        default:
            break
        }
        context.setNeedsRedraw()
        return .consumed
    }

    func claimsTyping() -> Bool { list.isEditingFilter }

    func commands() -> [Command] { Self.bindings.commands + MainScreen.listBindings(group: "Insert a photo").commands }
}

extension NoteViewController {
    /// `Alt-I`: a club photo chosen from the list, its reference typed at the cursor.
    func choosePhotoToInsert() {
        let photos = context.state.photos.entries
        context.choose { PhotoChooserLayer(photos: photos) { [weak self] entry in
            guard let self, let entry else { return }
            self.edits.insert(Self.reference(to: entry.name))
        } }
    }

    /// `Alt-U`: a local JPEG uploaded to the club's photos, then its reference (with the name
    /// the server gave it, renamed if the name was taken) typed at the cursor.
    func uploadPhotoToInsert() {
        let home = URL(fileURLWithPath: ProcessInfo.processInfo.environment["HOME"] ?? NSHomeDirectory())
        let chooser = FileChooserState(directory: context.configuration.uploadStartDirectory, extensions: ClubLayout.photoExtensions,
                                       homeDirectory: home)
        context.choose { FileChooser(title: "Upload a photo and insert it", state: chooser) { [weak self] result in
            guard let self, case .chosen(let file) = result else { return }
            guard self.transfers.upload(file) else { return }
            self.transfers.afterUpload[file.path] = { [weak self] entry in self?.edits.insert(Self.reference(to: entry.name)) }
        } }
    }

    /// `![desk](photos/desk.jpg)` for a photo named "desk.jpg", the name percent-encoded where
    /// Markdown would cut it (spaces, brackets) and the alt text without brackets.
    nonisolated static func reference(to name: String) -> String {
        let alt = (name as NSString).deletingPathExtension.filter { $0 != "[" && $0 != "]" }
        var path = ""
        for scalar in name.unicodeScalars {
            switch scalar {
            case " ": path += "%20"
            case "(": path += "%28"
            case ")": path += "%29"
            case "<": path += "%3C"
            case ">": path += "%3E"
            case "%": path += "%25"
            default: path.unicodeScalars.append(scalar)
            }
        }
        return "![\(alt)](photos/\(path))"
    }
}
