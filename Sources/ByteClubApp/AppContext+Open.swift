import Durable
import Foundation
import Remote
import TerminalUI

/// "Open with the system": a file of the club that is not a note (a vault's PDF, a canvas,
/// audio), or a note, fetched to a folder of its own under the temporary folder (so nothing of
/// the user's is ever written over) and handed to ``SystemOpener``. The Notes list's `o` and
/// `Enter` on a file's row, and a link followed to such a file, all come here.
extension NotesController {
    /// `o`.
    func openSelectedWithSystem() {
        switch selectedItem {
        case .file(let entry)?, .note(let entry, _)?: context.openWithSystem(entry)
        default: context.say(StatusMessage("Open with the system: choose a file or a note"))
        }
    }
}

extension AppContext {
    func openWithSystem(_ entry: RemoteEntry) {
        let shown = TerminalSafe.escape(entry.name)
        let store = self.store
        let path = entry.path
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("byteclub-opened").appendingPathComponent(UUID().uuidString)
        let local = folder.appendingPathComponent(SafeName.sanitized(entry.name))
        say(StatusMessage("Fetching \"\(shown)\" to open it…"))
        _ = perform({ () async throws(RemoteError) in try await store.read(path).data }) { result in
            switch result {
            case .failure(let error):
                self.say(.error("Could not fetch \"\(shown)\": \(TerminalSafe.escape(error.message))"))
            case .success(let data):
                do {
                    // Only this user's (an encrypted club's file is its plaintext here).
                    try PrivateFiles.folder(folder)
                    try DurableFile.write(data, to: local, flush: false)
                } catch {
                    return self.say(.error("Could not write \(TerminalSafe.escape(local.path)): \(error.localizedDescription)"))
                }
                switch SystemOpener.open(local.path) {
                case .opened(let program):
                    self.say(StatusMessage("Opened \"\(shown)\" with \(TerminalSafe.escape(program))"))
                case .noOpener:
                    self.say(.error("No xdg-open here (or set BYTECLUB_OPEN); \"\(shown)\" is at \(TerminalSafe.escape(local.path))"))
                case .failed(let why):
                    self.say(.error("Could not open \"\(shown)\": \(TerminalSafe.escape(why))"))
                }
            }
        }
    }
}
