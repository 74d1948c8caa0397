import Remote
import TerminalUI

/// Opens the full-screen viewer (`v` on a photo) and connects it to the photos controller:
/// `Enter` in the viewer is the list's download, on the photo the viewer shows.
@MainActor
final class ViewerController {
    let context: AppContext
    let photos: any PhotoTransferring
    let pictures: ViewerPictures
    private var layer: ViewerLayer?

    init(context: AppContext, photos: any PhotoTransferring) {
        self.context = context
        self.photos = photos
        pictures = ViewerPictures(store: context.store, directory: context.configuration.thumbnailsDirectory, effects: context.effects)
        pictures.onChange = { [compositor = context.compositor] in compositor.setNeedsRedraw() }
    }

    /// `v`: the selected photo, full screen.
    func open() {
        guard let entry = context.state.selectedPhoto else { return }
        open(entry)
    }

    /// `entry` full screen (a photo in a note's rendered view).
    func open(_ entry: RemoteEntry) {
        if let layer, context.compositor.contains(layer) { return }
        context.update { $0.viewer = PhotoViewer(pathLower: entry.pathLower) }
        let layer = ViewerLayer(model: context.model, pictures: pictures, graphics: context.configuration.graphics)
        layer.onDownload = { [weak photos] in photos?.downloadSelected() }
        layer.onClose = { [weak self] in self?.layer = nil }
        self.layer = layer
        context.present(layer)
    }
}
