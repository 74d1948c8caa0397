import Foundation
import LiveText

/// A live note's update from a peer (Yjs update v1), applied to a document with a history of
/// two members: refused with the document unchanged, or applied, and then the document still
/// writes a state that a new document reads back to the same length and state vector. The same
/// bytes read as a state vector must encode a diff or be refused.
enum LiveTextUpdateTarget {
    /// Built once: the same starting document for every input.
    static let base: LiveDocument = {
        var ann = LiveDocument(clientID: 1)
        var bob = LiveDocument(clientID: 2)
        try! bob.apply(update: ann.insert("minutes: 😀 agenda", at: 0))
        try! ann.apply(update: bob.insert("bob ", at: 9))
        try! bob.apply(update: ann.delete(2..<6))
        try! ann.apply(update: bob.insert("é中", at: 3))
        _ = ann.undo()
        return ann
    }()

    static func run(_ data: Data) {
        var document = base
        let before = document.encodeStateAsUpdate()
        do {
            try document.apply(update: data)
        } catch {
            FuzzCheck.expect(document.encodeStateAsUpdate() == before, "a refused update changed the document: \(error)")
            FuzzCheck.expect(document.text == base.text, "a refused update changed the text")
        }
        FuzzCheck.expect(document.text.utf16.count == document.utf16Count, "the text's length and utf16Count differ")
        var copy = LiveDocument(clientID: 9)
        do {
            try copy.apply(update: document.encodeStateAsUpdate())
        } catch {
            FuzzCheck.expect(false, "the document's own state was refused: \(error)")
        }
        FuzzCheck.expect(copy.state == document.state, "a state read back has another state vector")
        FuzzCheck.expect(copy.utf16Count == document.utf16Count, "a state read back has another length")
        if let diff = try? base.encodeStateAsUpdate(since: data) {
            var peer = LiveDocument(clientID: 8)
            FuzzCheck.expect((try? peer.apply(update: diff)) != nil, "a diff the document wrote was refused")
        }
    }
}
