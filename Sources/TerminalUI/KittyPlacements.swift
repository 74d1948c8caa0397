/// What a kitty terminal holds of ours, and the least it must be told to show the next frame.
///
/// kitty keeps transmitted images by id and draws placements of them, each named by the image
/// id and a placement id; placing again under the same pair moves the placement, and a
/// placement may show only a source rectangle of its image. So an image is transmitted once
/// per session (its key names its pixels: a thumbnail of one revision at one size, the
/// viewer's panorama at one scale) and every later frame only moves, adds or removes
/// placements: a pan step or a scroll costs a few dozen bytes a picture, not the picture.
///
/// A value-type state machine, as the app's other policies: ``TerminalGraphics`` hands it each
/// frame's requests, carries out the returned commands (it alone makes pixels and bytes) and
/// reports back how large each transmitted image was, or that it could not be made.
struct KittyPlacements: Sendable {
    /// One picture a frame asks for: which image (its key), where in cells, and which part of
    /// it in the image's pixels (nil: all of it).
    struct Request: Equatable, Sendable {
        var image: String
        var rect: Rect
        var source: Rect?
    }

    enum Command: Equatable, Sendable {
        /// Delete the image and its placements and free its data (`a=d,d=I`).
        case free(id: UInt32)
        /// Delete one placement, keeping the image for later (`a=d,d=i,p=`).
        case remove(id: UInt32, placement: UInt32)
        /// Delete every placement on the screen, keeping the images (`a=d,d=a`).
        case removeAll
        /// Transmit the image `key` under `id` (`a=t`), without showing it.
        case transmit(key: String, id: UInt32)
        /// Show (or move) placement `placement` of image `id` at `rect` (`a=p`).
        case place(id: UInt32, placement: UInt32, rect: Rect, source: Rect?)
    }

    private struct Image: Sendable {
        var id: UInt32
        /// The raw pixel bytes the terminal keeps for it (0 until reported).
        var bytes: Int
        /// The last frame that placed it (the least recently placed is freed first).
        var lastPlaced: Int
    }

    private struct Slot: Hashable, Sendable {
        var id: UInt32
        var placement: UInt32
    }

    /// How many raw bytes of images no longer on the screen are kept on the terminal, in case
    /// they come back (a thumbnail scrolled back to, the viewer under the help overlay). kitty
    /// keeps a few hundred megabytes per window before it evicts on its own; we stay well under.
    var unplacedBudget = 64 << 20

    private var images: [String: Image] = [:]
    private var shown: [Slot: Request] = [:]
    /// Ids asked to be freed between frames (``release(_:)``).
    private var releases: [UInt32] = []
    private var placementsUnknown = false
    private var frameNumber = 0
    /// Ids start well away from 31, which the start-up query uses.
    private var nextID: UInt32 = 1000

    /// Whether the terminal holds any image of ours.
    var holdsImages: Bool { !images.isEmpty || !releases.isEmpty }
    /// The keys of the images on the terminal (tests and the benchmark read them).
    var imageKeys: Set<String> { Set(images.keys) }

    /// The commands that bring the terminal from the last frame to `requests`: frees and
    /// removals first, then each new image's transmission just before its first placement.
    mutating func frame(_ requests: [Request]) -> [Command] {
        frameNumber += 1
        var commands = releases.map { Command.free(id: $0) }
        releases = []
        if placementsUnknown {
            placementsUnknown = false
            if !shown.isEmpty { commands.append(.removeAll) }
            shown = [:]
        }
        var wanted: [Slot: Request] = [:]
        var order: [(slot: Slot, transmit: String?)] = []
        var counts: [String: UInt32] = [:]
        for request in requests {
            var transmit: String?
            if images[request.image] == nil {
                images[request.image] = Image(id: newID(), bytes: 0, lastPlaced: frameNumber)
                transmit = request.image
            }
            images[request.image]?.lastPlaced = frameNumber
            guard let id = images[request.image]?.id else { continue }
            // The same image twice in one frame gets a placement each.
            let placement = (counts[request.image] ?? 0) + 1
            counts[request.image] = placement
            let slot = Slot(id: id, placement: placement)
            wanted[slot] = request
            order.append((slot, transmit))
        }
        let gone = shown.keys.filter { wanted[$0] == nil }.sorted { ($0.id, $0.placement) < ($1.id, $1.placement) }
        commands += gone.map { .remove(id: $0.id, placement: $0.placement) }
        commands += evictions()
        for (slot, transmit) in order {
            if let transmit { commands.append(.transmit(key: transmit, id: slot.id)) }
            guard let request = wanted[slot], shown[slot] != request else { continue }
            commands.append(.place(id: slot.id, placement: slot.placement, rect: request.rect, source: request.source))
        }
        shown = wanted
        return commands
    }

    /// Frees the least recently placed images off the screen while they exceed the budget.
    private mutating func evictions() -> [Command] {
        let unplaced = images.filter { $0.value.lastPlaced < frameNumber }.sorted { $0.value.lastPlaced < $1.value.lastPlaced }
        var total = unplaced.reduce(0) { $0 + $1.value.bytes }
        var commands: [Command] = []
        for (key, image) in unplaced where total > unplacedBudget {
            total -= image.bytes
            images[key] = nil
            commands.append(.free(id: image.id))
        }
        return commands
    }

    private mutating func newID() -> UInt32 {
        defer { nextID = nextID == UInt32.max ? 1000 : nextID + 1 }
        return nextID
    }

    /// The image `key` went out and the terminal keeps `bytes` of it.
    mutating func transmitted(_ key: String, bytes: Int) {
        images[key]?.bytes = bytes
    }

    /// The image `key` could not be made: nothing of it is on the terminal, and its placements
    /// were not sent; the next frame that asks tries again.
    mutating func transmitFailed(_ key: String) {
        guard let image = images.removeValue(forKey: key) else { return }
        shown = shown.filter { $0.key.id != image.id }
    }

    /// The owner will not show `key` again soon (the viewer closed or moved to another photo):
    /// it is freed at the next frame.
    mutating func release(_ key: String) {
        guard let image = images.removeValue(forKey: key) else { return }
        shown = shown.filter { $0.key.id != image.id }
        releases.append(image.id)
    }

    /// The screen changed under the placements (a resize): every placement is made again, the
    /// images stay.
    mutating func placementsLost() { placementsUnknown = true }

    /// The terminal may have lost everything (`Ctrl-L`, a tmux reattach): everything we sent
    /// is freed and sent again.
    mutating func imagesLost() {
        releases += images.values.map(\.id).sorted()
        images = [:]
        shown = [:]
        placementsUnknown = false
    }

    /// On the way out: free every image.
    mutating func exit() -> [Command] {
        imagesLost()
        defer { releases = [] }
        return releases.map { .free(id: $0) }
    }
}
