import Foundation
import Remote
import TerminalUI

/// The PanoPhotos tab's keys: uploads (`u`, the file chooser), downloads (`Enter`, resuming a
/// paused one), deletes, the preview pane and the Transfers panel. The transfers run in the
/// ``PhotoTransfers`` helper, which the viewer and the rendered view use too.
@MainActor
final class PhotosController {
    let context: AppContext
    let refresher: Refresher
    let transfers: PhotoTransfers
    /// Where deletes wait while the server cannot be reached.
    weak var outboxRunner: OutboxRunner?
    let thumbnails: Thumbnails
    /// Larger pictures for the preview pane (`p`).
    let previews: Thumbnails

    /// `thumbnails` and `previews` are the pictures the screen draws too (``Thumbnails/forPhotos(_:)``).
    init(context: AppContext, refresher: Refresher, transfers: PhotoTransfers, thumbnails: Thumbnails, previews: Thumbnails) {
        self.context = context
        self.refresher = refresher
        self.transfers = transfers
        self.thumbnails = thumbnails
        self.previews = previews
    }

    var state: AppState { context.state }
    var configuration: AppConfiguration { context.configuration }

    // MARK: Upload and download

    /// `u`: the file chooser, then the upload (of several marked files, or a folder's, too).
    func chooseUpload() {
        let start = configuration.uploadStartDirectory
        let home = URL(fileURLWithPath: ProcessInfo.processInfo.environment["HOME"] ?? NSHomeDirectory())
        let chooserState = FileChooserState(directory: start, extensions: ClubLayout.photoExtensions, homeDirectory: home)
        context.choose { FileChooser(title: "Upload a photo", state: chooserState) { [weak self] result in
            switch result {
            case .chosen(let url): self?.transfers.upload(url)
            case .chosenMany(let urls): self?.transfers.upload(urls)
            case .folder(let folder, let files): self?.offerFolder(folder, files: files)
            case .cancelled: break
            }
        } }
    }

    /// Ctrl-F in the chooser: asks, with the count, before uploading every image of `folder`.
    func offerFolder(_ folder: URL, files: [URL]) {
        let count = files.count
        let name = TerminalSafe.escape(folder.lastPathComponent.isEmpty ? folder.path : folder.lastPathComponent)
        let modal = Modal(title: "Upload a folder?",
                          body: ["Upload the \(count) photo\(count == 1 ? "" : "s") in \"\(TerminalSafe.escape(name))\"?", "\(state.transfers.limit) run at once; T shows them."],
                          buttons: ["Upload", "Cancel"], width: 56)
        context.ask { DialogLayer(modal, selected: 0) { [weak self] choice in
            if choice == 0 { self?.transfers.upload(files) }
        } }
    }

    /// `Enter` on a photo: downloads it, resuming a paused download of the same rev.
    func downloadSelected() {
        if case .album(let album)? = state.selectedPhotoItem {
            return context.update { $0.openAlbum(album.isParent ? nil : album.path) }
        }
        guard let entry = state.selectedPhoto else { return }
        transfers.download(entry)
    }

    /// `Backspace`, `←` in an album: every album again, the selection on the one left.
    func upAlbum() {
        guard state.album != nil else { return }
        context.update { $0.openAlbum(nil) }
    }

    // MARK: The panel

    /// `T` in either list: the Transfers panel.
    func showTransfersPanel() {
        if !state.showsTransfersPanel { context.update { $0.showsTransfersPanel = true } }
    }

    /// A key of the Transfers panel on the app's own rows (the agent's rows are the background
    /// controller's: ``ClubApp``'s panel routes them).
    func panelAction(_ action: TransfersPanel.Action, id: Int?) {
        switch action {
        case .close:
            context.update { $0.showsTransfersPanel = false }
        case .clear:
            transfers.apply {
                $0.clearFinished()
                return []
            }
        case .cancel, .pause, .retry:
            guard let id else {
                context.say(StatusMessage("No transfers yet"))
                return
            }
            switch action {
            case .cancel: transfers.apply { $0.cancelFromPanel(id) }
            case .pause: transfers.apply { $0.pauseOrResume(id) }
            default: transfers.apply { $0.retry(id) }
            }
        }
    }

    // MARK: Delete and preview

    /// `d` on a photo: asks, then deletes it from the club folder; offline (or while older
    /// changes wait) the delete waits in the outbox, and the row says so until it is sent.
    func deleteSelected() {
        guard let entry = state.selectedPhoto else { return }
        if state.offline.isPending(entry) {
            context.say(StatusMessage("Deleting \"\(TerminalSafe.escape(entry.name))\" waits in the outbox already"))
            return
        }
        var offline: (@MainActor () -> Void)?
        if outboxRunner != nil { offline = { [weak self] in self?.queueDelete(entry) } }
        confirmDelete(entry, kind: "photo", tab: .photos, context: context, refresher: refresher, offline: offline) {}
    }

    /// Queues the delete of a photo: the row stays, marked as waiting, until the server confirmed
    /// it (only if the photo is still at the rev shown: a newer one is kept, and that is said).
    private func queueDelete(_ entry: RemoteEntry) {
        guard let outbox = outboxRunner else { return }
        let item = OutboxItem(kind: .delete, path: entry.path, baseRev: entry.rev, title: entry.name, queued: configuration.format.now())
        let why = state.offline.isOffline ? "the server cannot be reached" : "older changes are still being sent"
        _ = outbox.queue([item], saying: "Deleting \"\(TerminalSafe.escape(entry.name))\" waits in the outbox: \(why); it is sent by itself")
    }

    /// `p`: shows or hides the preview pane.
    func togglePreview() {
        context.update { $0.showsPreview.toggle() }
    }

    /// `r` on the photos: failed pictures are tried again too.
    func retryPictures() {
        thumbnails.retryFailures()
        previews.retryFailures()
    }
}
