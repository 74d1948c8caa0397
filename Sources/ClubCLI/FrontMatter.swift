import ClubKit
import Foundation
import Remote

/// The command line's side of ``FrontMatterNotes``: what adopting a note's front matter tags
/// left out, said a line each.
extension FrontMatterNotes {
    /// False when the store keeps no tags (said once): the note is in the club all the same.
    @discardableResult
    static func adopt(_ text: String, at path: String, store: any RemoteStore) async throws(RemoteError) -> Bool {
        let adoption = try await adoption(of: text, at: path, store: store)
        for line in adoption.lines { say(line) }
        return adoption.kept
    }

    /// ``adopt(_:at:store:)`` for many notes at once (`put -r`'s): false when the store keeps no tags (said once).
    static func adopt(_ notes: [(text: String, path: String)], store: any RemoteStore) async throws(RemoteError) -> Bool {
        guard !notes.isEmpty else { return true }
        let adoption = try await adoption(of: notes, store: store)
        for line in adoption.lines { say(line) }
        return adoption.kept
    }
}
