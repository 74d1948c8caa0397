/// A stack of ``Layer``s: renders bottom-up, offers keys top-down, and owns the global keys.
///
/// Keys that no layer consumes fall through to ``globalBindings``: help (`?`, `F1`), redraw
/// (`Ctrl-L`) and interrupt (`Ctrl-C`, which the raw terminal delivers as a key). The owner,
/// usually ``Terminal``, connects the callbacks; in tests the compositor runs on its own.
@MainActor
public final class Compositor {
    /// What the global keys do.
    public enum GlobalAction: Hashable, Sendable {
        case help, redraw, interrupt
    }

    /// The layers shown, bottom first: the ``source``'s (derived from the app's state each time
    /// they are needed), then the ones pushed here (help).
    public var layers: [any Layer] { (source?.layers() ?? []) + pushed }
    /// Layers pushed on the compositor itself, above the derived ones.
    private var pushed: [any Layer] = []
    /// Where the layers under the pushed ones come from: an app whose screen is a function of its
    /// state derives them from it (ratatui's way), so no controller keeps a layer; nil: none.
    public weak var source: (any LayerSource)?
    /// Below this size the screen shows ``TooSmall`` instead of the layers.
    public var minimumSize = TooSmall.minimum
    /// Keys handled when no layer consumes them; listed in help under "General".
    public var globalBindings = KeyBindings<GlobalAction>(group: "General", [
        .init([.char("?"), .f(1)], .help, "Show this help"),
        .init([.ctrl("l")], .redraw, "Redraw the screen"),
        .init([.ctrl("c")], .interrupt, "Quit at once"),
    ])
    /// Whether the last frame showed the too-small notice: the app is unseen, so keys that
    /// would type into it are better dropped.
    public private(set) var isTooSmall = false
    /// The animation counter, for spinners; ``Terminal`` advances it while animating.
    public var tick = 0

    /// Called when a frame is wanted; the owner coalesces calls into one frame.
    public var onNeedsRedraw: (() -> Void)?
    /// Called for Ctrl-L: repaint the whole terminal, not only what changed.
    public var onForceRedraw: (() -> Void)?
    /// Called for an unconsumed Ctrl-C.
    public var onInterrupt: (() -> Void)?

    public init() {}

    /// The topmost layer.
    public var top: (any Layer)? { layers.last }

    public func push(_ layer: any Layer) {
        pushed.append(layer)
        setNeedsRedraw()
    }

    /// Removes and returns the top layer.
    @discardableResult
    public func pop() -> (any Layer)? {
        guard let layer = pushed.popLast() else { return nil }
        setNeedsRedraw()
        return layer
    }

    /// Removes `layer` wherever it is in the stack; a derived layer is the source's to remove
    /// (the state it was derived from changes).
    public func remove(_ layer: any Layer) {
        if pushed.contains(where: { $0 === layer }) {
            pushed.removeAll { $0 === layer }
        } else {
            source?.dismissed(layer)
        }
        setNeedsRedraw()
    }

    public func contains(_ layer: any Layer) -> Bool { layers.contains { $0 === layer } }

    public func setNeedsRedraw() { onNeedsRedraw?() }

    /// Draws every layer, bottom first, or the too-small notice when the canvas is too small.
    public func render(into canvas: any Canvas) {
        canvas.cursor = nil
        isTooSmall = !canvas.size.covers(minimumSize)
        guard !isTooSmall else {
            TooSmall(minimum: minimumSize).render(into: canvas, area: canvas.bounds)
            return
        }
        for layer in layers { layer.render(into: canvas, area: canvas.bounds) }
    }

    /// Offers `key` to each layer from the top until one consumes it, then to the global keys.
    @discardableResult
    public func handle(_ key: Key) -> EventResult {
        // A layer a key closes (or one the state no longer derives) is offered nothing more.
        for layer in layers.reversed() where contains(layer) {
            if layer.handle(key, context: LayerContext(compositor: self, layer: layer)) == .consumed {
                setNeedsRedraw()
                return .consumed
            }
        }
        guard let action = globalBindings.action(for: key) else { return .ignored }
        switch action {
        case .help: showHelp()
        case .redraw: onForceRedraw?()
        case .interrupt: onInterrupt?()
        }
        setNeedsRedraw()
        return .consumed
    }

    /// Every command of the layers on the stack, top layer first, then the global ones: each
    /// key listed once, with what it does here.
    ///
    /// A key goes to the nearest layer that takes it, so help gives it the nearest row that
    /// binds it: a row of a farther layer (or a later row of the same layer, which lists its
    /// nearest keys first) loses the keys a nearer row claimed, and is dropped when none is
    /// left (in the editor Shift-Tab outdents, so the tabs' "Previous tab" row goes). Keys a
    /// layer keeps from the layers below (``Layer/letsThrough(_:)``) drop those layers' rows
    /// for them too. A global key that a layer types (`?` in the editor) is left out as well.
    public func commands() -> [Command] {
        var claimed = Set<Key>()
        var seen = Set<Command>()
        var result: [Command] = []
        /// Adds what is left of `command` once `reaches` filtered its keys.
        func add(_ command: Command, reaches: (Key?) -> Bool) {
            // A row of no keys (a mouse gesture) is listed where its layer gets the mouse.
            if command.keys.isEmpty {
                if reaches(nil), seen.insert(command).inserted { result.append(command) }
                return
            }
            // `reaches` is called directly, never inside another closure (`filter`, the right
            // side of `&&`): a release build's region check refuses that as a send.
            var keys: [Key] = []
            for key in command.keys where !claimed.contains(key) {
                if reaches(key) { keys.append(key) }
            }
            guard !keys.isEmpty else { return }
            claimed.formUnion(keys)
            let shown = keys.count == command.keys.count ? command : Command(keys: keys, description: command.description, group: command.group)
            if seen.insert(shown).inserted { result.append(shown) }
        }
        var above: [any Layer] = []
        for layer in layers.reversed() {
            let over = above
            for command in layer.commands() {
                add(command) { key in over.allSatisfy { $0.letsThrough(key) } }
            }
            above.append(layer)
        }
        let typing = layers.contains { $0.claimsTyping() }
        for command in globalBindings.commands {
            add(command) { key in
                if typing, case .char? = key { return false }
                return above.allSatisfy { $0.letsThrough(key) }
            }
        }
        return result
    }

    /// Pushes a ``HelpOverlay`` listing ``commands()``; does nothing if help is already open.
    public func showHelp() {
        guard !(top is HelpOverlay) else { return }
        push(HelpOverlay(commands: commands()))
    }
}
