/// What a layer did with a key.
public enum EventResult: Sendable, Equatable {
    /// The key was used; no layer below sees it.
    case consumed
    /// The key goes on to the layer below.
    case ignored
}

/// One level of the screen: the main view at the bottom, dialogs and overlays above it.
///
/// Rendering goes bottom-up, so an upper layer draws over the ones below; keys go top-down
/// until a layer consumes one, so a dialog has first claim on keys simply by being on top.
@MainActor
public protocol Layer: AnyObject {
    /// Draws the layer; `area` is the whole screen, and a layer draws only where it wants to.
    func render(into canvas: any Canvas, area: Rect)

    /// Offers a key to the layer.
    func handle(_ key: Key, context: LayerContext) -> EventResult

    /// The layer's key bindings, for help. Layers built on ``KeyBindings`` return its `commands`.
    func commands() -> [Command]

    /// Whether printable keys are text here now (an editor, a field being typed in): help
    /// then leaves out global keys such as `?` that would be typed instead.
    func claimsTyping() -> Bool

    /// Whether `key`, when this layer does not use it, reaches the layers below (nil: clicks
    /// and the wheel). Help lists a lower layer's row only for keys that reach it; a layer
    /// that keeps every key (a view over the editor, a dialog) says which ones it lets by.
    func letsThrough(_ key: Key?) -> Bool
}

extension Layer {
    public func commands() -> [Command] { [] }
    public func claimsTyping() -> Bool { false }
    public func letsThrough(_ key: Key?) -> Bool { true }
}

/// Where a ``Compositor``'s layers come from when an app derives its screen from its state: the
/// layers are asked for each frame and each key, so showing or closing one is a change of state.
@MainActor
public protocol LayerSource: AnyObject {
    /// The layers to show now, bottom first. The same layer object comes back while it is shown,
    /// so what it keeps between frames (a dialog's selected button, a typed answer) stays.
    func layers() -> [any Layer]

    /// `layer` closed itself (``LayerContext/dismiss()``): the state it was derived from changes.
    func dismissed(_ layer: any Layer)
}

/// What a layer can do to the screen while it handles a key.
@MainActor
public struct LayerContext {
    public let compositor: Compositor
    /// The layer the key is being offered to.
    public let layer: any Layer

    /// Puts `layer` on top of the stack.
    public func push(_ newLayer: any Layer) { compositor.push(newLayer) }

    /// Removes the layer handling the key (a dialog closing itself).
    public func dismiss() { compositor.remove(layer) }

    /// Asks for a new frame; several requests in one turn of the queue make one frame.
    public func setNeedsRedraw() { compositor.setNeedsRedraw() }

    /// Opens help listing the bindings of every layer on the stack.
    public func showHelp() { compositor.showHelp() }

    /// The animation counter, advanced while the terminal animates (spinners).
    public var tick: Int { compositor.tick }
}
