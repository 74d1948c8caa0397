import Foundation
import Remote

/// Whether the server can be reached, and what waits in the outbox for it.
public struct OfflineState: Equatable, Sendable {
    /// The last request could not reach the server (refused, reset, stalled); a probe is watching
    /// for its return.
    public var isOffline = false
    /// Items in the outbox.
    public var waiting = 0
    /// Lowercased paths of notes an outbox item changes (a rename: both names): their rows are marked ⇡.
    public var pendingPaths: Set<String> = []
    /// Drafts whose text waits in the outbox (new notes created offline): their rows are marked ⇡ too.
    public var pendingDrafts: Set<String> = []

    public init() {}

    /// The status bar's figure: `offline · 3 waiting`, `offline`, or while the outbox drains
    /// after the server came back, `sending 3…`; nil when there is nothing to say.
    public var figure: String? {
        if isOffline { return waiting > 0 ? "offline · \(waiting) waiting" : "offline" }
        return waiting > 0 ? "sending \(waiting)…" : nil
    }

    /// Takes the outbox's items as they are on disk.
    public mutating func take(_ items: [OutboxItem]) {
        waiting = items.count
        pendingPaths = Set(items.filter { $0.kind != .upload }.flatMap { [$0.path.lowercased()] + ($0.newPath.map { [$0.lowercased()] } ?? []) })
        pendingDrafts = Set(items.compactMap(\.draftID))
    }

    /// Whether a note's row is marked as waiting.
    public func isPending(_ entry: RemoteEntry) -> Bool { pendingPaths.contains(entry.pathLower) }

    /// `entries` (a list as the server last gave it, say from the cache) with the renames and
    /// deletes still waiting in `items` applied in their order, so a start without the server
    /// shows what the user did offline: a note renamed then deleted stays gone.
    public static func applying(_ items: [OutboxItem], to entries: [RemoteEntry]) -> [RemoteEntry] {
        var entries = entries
        for item in items.sorted(by: { $0.seq < $1.seq }) {
            let lower = item.path.lowercased()
            switch item.kind {
            case .rename:
                guard let newPath = item.newPath, let index = entries.firstIndex(where: { $0.pathLower == lower }) else { continue }
                entries[index].path = newPath
                entries[index].pathLower = newPath.lowercased()
                entries[index].name = (newPath as NSString).lastPathComponent
            case .delete:
                entries.removeAll { $0.pathLower == lower }
            case .save, .create, .upload:
                continue
            }
        }
        return entries
    }
}
