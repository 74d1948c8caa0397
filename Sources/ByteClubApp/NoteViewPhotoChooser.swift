import Foundation
import Remote
import TerminalUI

/// "Insert a photo" (`Alt-I` in the editor): the club's photos as a list to choose from, as the
/// PanoPhotos tab lists them; Enter hands the chosen one back, Esc closes. `/` filters.
@MainActor
final class PhotoChooserLayer: ChooserLayer<RemoteEntry> {
    static let bindings = KeyBindings<ListState.Action>(group: "Insert a photo", [
        .init([.enter], .activate, "Insert the photo's reference"),
        .init([.escape], .clearFilter, "Close (or clear the filter)"),
    ])

    init(photos: [RemoteEntry], onChoice: @escaping @MainActor (RemoteEntry?) -> Void) {
        let look = ChooserLayer<RemoteEntry>.Look(title: "Insert a photo",
                        columns: [ListColumn("Photo"), ListColumn("Size", width: .fixed(10), alignment: .right, isSecondary: true)],
                        emptyHint: "No photos in the club yet (Alt-U uploads one)", hint: "Enter insert · / filter · Esc close",
                        width: 60, bindings: PhotoChooserLayer.bindings)
        super.init(look, items: photos, rows: photos.map { ListRow([$0.name, ByteFormat.size($0.size)]) }, onChoice: onChoice)
    }
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
