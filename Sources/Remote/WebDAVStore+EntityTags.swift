import Foundation

/// Entity tags read for what they name, not for how a server wrote them.
///
/// RFC 9110 writes an entity tag `"opaque"`, and a weak one `W/"opaque"`; PROPFIND's
/// `getetag` holds the same thing. Servers are not all that careful: one common server answers
/// `"5f3a…"` in GET's `ETag` header and `5f3a…` (no quotes) in PROPFIND's `getetag` for the
/// same unchanged file. byteclub opens a note with GET and checks it with PROPFIND before a
/// save, so comparing the strings made every save of an unchanged note a conflict. Quotes and
/// `W/` are form; the opaque value is the content, and that is what is compared.
///
/// A WebDAV file's `rev` is its entity tag in one canonical form, `"opaque"`, whichever
/// answer it came from, so that the app's own comparisons of revs (a note's base rev against
/// the listing, a remote change against the open note) agree as well.
public enum WebDAVEntityTag {
    /// `"abc"`, `W/"abc"`, `abc` and ` "abc" ` all → `abc`.
    public static func opaque(_ tag: String) -> String {
        var text = Substring(tag.trimmingCharacters(in: .whitespacesAndNewlines))
        if text.hasPrefix("W/") || text.hasPrefix("w/") { text = text.dropFirst(2) }
        if text.count >= 2, text.hasPrefix("\""), text.hasSuffix("\"") { text = text.dropFirst().dropLast() }
        return String(text)
    }

    /// The rev byteclub keeps: the opaque value, quoted; nil for a missing or empty tag.
    public static func canonical(_ tag: String?) -> String? {
        guard let tag else { return nil }
        let value = opaque(tag)
        return value.isEmpty ? nil : "\"\(value)\""
    }

    /// Whether two tags name the same version (by opaque value); two missing tags never do.
    public static func same(_ a: String?, _ b: String?) -> Bool {
        guard let a, let b else { return false }
        let left = opaque(a)
        return !left.isEmpty && left == opaque(b)
    }
}

extension RemoteEntry {
    /// The rev as people and scripts are shown it (`--json`): a WebDAV file's entity tag without
    /// the quotes, which are HTTP's syntax and not the tag (``WebDAVEntityTag/opaque(_:)``); a
    /// club's or Dropbox's rev as it is. The store keeps ``rev`` in the form it sends back.
    public var shownRev: String? { rev.map(WebDAVEntityTag.opaque) }
}
