import Foundation
import Remote
import TerminalUI

/// `s` on either list: a public link to the selected note or photo, for someone outside the
/// club. The link is shown in a dialog and copied to the clipboard (OSC 52, through
/// ``AppConfiguration/clipboard``); the status bar says `Link copied`. A file with a link
/// already gets that one back, as Dropbox answers.
@MainActor
final class ShareController {
    let context: AppContext
    /// The link dialog on screen (``AppDialog/id``): a newer link replaces it.
    private var shownID: Int?

    init(context: AppContext) {
        self.context = context
    }

    func shareSelected(_ tab: Tab) {
        let entry: RemoteEntry?
        switch tab {
        case .notes:
            switch context.state.selectedNoteItem(in: context.model.noteListing) {
            // A note, or a file beside the notes (a vault's PDF): each has its link.
            case .note(let note, _)?, .file(let note)?: entry = note
            default: entry = nil
            }
        case .photos:
            entry = context.state.selectedPhoto
        }
        guard let entry else {
            context.say(StatusMessage(tab == .notes ? "Select a saved note to share" : "Select a photo to share"))
            return
        }
        let name = TerminalSafe.escape(tab == .notes ? ClubLayout.title(of: entry.name) : entry.name)
        let decryptedCopies: Bool
        do {
            decryptedCopies = try ShareLinks.sharesDecryptedCopies(context.store)
        } catch {
            context.say(.error("Cannot share \"\(name)\": \(error.message)"))
            return
        }
        guard decryptedCopies else { return makeLink(entry.path, name: name) }
        // An encrypted club's server cannot read the file: the link is to a copy it can.
        let modal = Modal(title: "Share a decrypted copy of \"\(name)\"?",
                          body: ["This club is encrypted. A link publishes a decrypted copy of \"\(name)\"",
                                 "on the server, readable by the server and by anyone with the link,",
                                 "until `byteclub unshare URL` ends it."],
                          buttons: ["Share a decrypted copy", "Cancel"], width: 76)
        // Cancel is the default: Enter must not publish by reflex.
        context.ask { DialogLayer(modal, selected: 1) { [weak self] choice in
            if choice == 0 { self?.makeLink(entry.path, name: name) }
        } }
    }

    private func makeLink(_ path: String, name: String) {
        context.say(StatusMessage("Making a link to \"\(name)\"…"))
        let writes = context.writes
        context.perform({ () async throws(RemoteError) in try await writes.share(path, expires: nil) }) { [weak self] result in
            guard let self else { return }
            switch result {
            case .success(let made): self.show(made.link, name: name, existed: made.existed)
            case .failure(let error): self.context.say(.error("Could not share \"\(name)\": \(error.message)"))
            }
        }
    }

    private func show(_ link: RemoteSharedLink, name: String, existed: Bool) {
        var copied = false
        if let copy = context.configuration.clipboard {
            copy(link.url)
            copied = true
        }
        let url = TerminalSafe.escape(link.url)
        let expiry = link.expires.map { " until " + context.configuration.format.day($0) } ?? ""
        var body = ["Anyone with this link can download \"\(name)\"\(expiry):", "", url, ""]
        body.append((existed ? "It had this link already. " : "") + (copied ? "Copied to the clipboard." : "Copy it from here."))
        if context.state.backend == "embedded" {
            // The embedded club is served on a port of its own only while this app runs.
            body.append("It works while byteclub runs: for a lasting link, share the club with `byteclub serve`.")
        }
        body.append("`byteclub unshare URL` ends it.")
        let modal = Modal(title: "Share link", body: body, buttons: ["OK"], width: max(44, TextWidth.of(url) + 4))
        let previous = shownID
        context.update { $0.dialogs.removeAll { $0.id == previous } }
        shownID = context.ask { DialogLayer(modal) { _ in } }
        context.say(copied ? StatusMessage("Link copied", kind: .success) : StatusMessage("Link made"))
    }
}
