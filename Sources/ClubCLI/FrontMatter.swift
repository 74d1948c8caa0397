import ClubKit
import Foundation
import Remote

/// The command line's side of ``FrontMatterNotes``: what adopting a note's front matter tags
/// left out, said a line each.
extension FrontMatterNotes {
    /// False when the store keeps no tags (said once): the note is in the club all the same.
    @discardableResult
    static func adopt(_ text: String, at path: String, on backend: Backend) async throws(RemoteError) -> Bool {
        let adoption = try await backend.adoptFrontMatter(text, at: path)
        for line in adoption.lines { say(line) }
        return adoption.kept
    }
}
