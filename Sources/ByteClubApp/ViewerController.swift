import Remote
import TerminalUI

/// Opens the full-screen viewer (`v` on a photo): the viewer (``ViewerLayer``) is on screen
/// while the state holds it, and `Enter` there is the list's download, on the photo it shows.
@MainActor
final class ViewerController {
    let context: AppContext
    let pictures: ViewerPictures

    init(context: AppContext) {
        self.context = context
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
        guard context.state.viewer == nil else { return }
        context.update { $0.viewer = PhotoViewer(pathLower: entry.pathLower) }
    }
}
