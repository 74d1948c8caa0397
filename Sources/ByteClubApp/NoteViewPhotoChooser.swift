import Foundation
import Markdown
import Remote
import TerminalUI

extension NoteViewController {
    /// `Alt-I`: a club photo chosen from the list, its reference typed at the cursor.
    func choosePhotoToInsert() {
        let photos = Array(context.state.photos.entries)
        context.choose { Self.photoChooser(photos) { [weak self] entry in
            guard let self, let entry else { return }
            self.edits.insert(self.reference(to: entry))
        } }
    }

    /// The reference to `photo` from the open note's folder: `photos/desk.jpg` at the top,
    /// `../photos/desk.jpg` in a folder.
    func reference(to photo: RemoteEntry) -> String {
        let folder = NoteLinks.relativePath(from: self.folder, to: NotesFolder.parent(of: photo.path) + "/x").dropLast(1)
        return Self.reference(to: photo.name, in: String(folder))
    }

    /// The "Insert a photo" list (its keys are on the help page too).
    static func photoChooser(_ photos: [RemoteEntry], onChoice: @escaping @MainActor (RemoteEntry?) -> Void) -> ChoiceListLayer<RemoteEntry> {
        ChoiceListLayer(
            title: "Insert a photo", items: photos, columns: [ListColumn("Photo"), ListColumn("Size", width: .fixed(10), alignment: .right, isSecondary: true)],
            row: { ListRow([$0.name, ByteFormat.size($0.size)]) }, enterDoes: "Insert the photo's reference", hint: "Enter insert · / filter · Esc close",
            emptyHint: "No photos in the club yet (Alt-U uploads one)", onChoice: onChoice)
    }

    /// `Alt-U`: a local picture uploaded to the club's photos, then its reference (with the name
    /// the server gave it, renamed if the name was taken) typed at the cursor.
    func uploadPhotoToInsert() {
        let home = URL(fileURLWithPath: ProcessInfo.processInfo.environment["HOME"] ?? NSHomeDirectory())
        let chooser = FileChooserState(directory: context.configuration.uploadStartDirectory, extensions: ClubLayout.photoExtensions,
                                       homeDirectory: home)
        context.choose { FileChooser(title: "Upload a photo and insert it", state: chooser) { [weak self] result in
            guard let self, case .chosen(let file) = result else { return }
            guard self.transfers.upload(file) else { return }
            self.transfers.afterUpload[file.path] = { [weak self] entry in
                guard let self else { return }
                self.edits.insert(self.reference(to: entry))
            }
        } }
    }

    /// `![desk](photos/desk.jpg)` for a photo named "desk.jpg", the name percent-encoded where
    /// Markdown would cut it (spaces, brackets) and the alt text without brackets.
    nonisolated static func reference(to name: String, in folder: String = "photos/") -> String {
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
        let prefix = folder.replacingOccurrences(of: " ", with: "%20")
        return "![\(alt)](\(prefix)\(path))"
    }
}
