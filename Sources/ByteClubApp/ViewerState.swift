import Remote
import TerminalUI

/// The full-screen photo viewer (`v`) while it is open: which photo, how far it is zoomed and
/// panned. The numbers are view state, written by ``ViewerLayer`` as keys move them and
/// clamped when it draws (the screen's size and the picture's shape decide the limits).
public struct PhotoViewer: Equatable, Sendable {
    /// The photo's lowercased path (the list's selection follows it with `↑`/`↓`).
    public var pathLower: String
    /// 1 fits the panorama's height to the screen; see ``PanoramaViewport``.
    public var zoom: Double = 1
    /// The first column of the zoomed picture on screen.
    public var offset = 0

    public init(pathLower: String) {
        self.pathLower = pathLower
    }
}

extension AppState {
    /// The photo the viewer shows, if it is open and the photo is still listed.
    public var viewerPhoto: RemoteEntry? {
        guard let viewer else { return nil }
        return photos.entries.first { $0.pathLower == viewer.pathLower }
    }
}
