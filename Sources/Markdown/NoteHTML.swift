import CCmarkGFM
import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// A note as a web page: the same parse as the editor's highlights and the rendered view, then
/// cmark-gfm's HTML renderer.
///
/// Safe by construction, whatever the note holds: the renderer runs without
/// `CMARK_OPT_UNSAFE`, and before it runs every raw HTML node in the tree is turned into text,
/// so a `<script>` in a note is shown as the characters `<script>`, never passed through (cmark
/// alone would drop it silently; a reader should see what the writer wrote). Links are rewritten
/// from ``NoteLinkTarget``: `http(s)` addresses stay links; a club photo becomes the address
/// `photoSource` gives (the page's own link, for photos the note references) or its alt text;
/// anything else (another note, `javascript:`, `data:`, `file:`, another host's picture) keeps
/// its text and loses its address. The page's scripts are forbidden again by its
/// Content-Security-Policy: two locks, either enough.
public enum NoteHTML {
    /// The page's one style sheet, inline (a share link serves one file, not a site). The
    /// server allows exactly this text in its Content-Security-Policy by its hash.
    public static let style = """
        body{margin:0;background:#fdfdfc;color:#1f2328;font:16px/1.6 system-ui,-apple-system,"Segoe UI",sans-serif}\
        main{max-width:46em;margin:0 auto;padding:1.5em 1em 4em}\
        h1,h2,h3{line-height:1.25}h1{border-bottom:1px solid #d8dee4;padding-bottom:.3em}\
        img{max-width:100%;height:auto}\
        pre{background:#f3f4f6;padding:.8em 1em;overflow:auto;border-radius:6px}\
        code{font:.9em ui-monospace,"SFMono-Regular",Menlo,monospace;background:#f3f4f6;padding:.1em .3em;border-radius:4px}\
        pre code{background:none;padding:0}\
        blockquote{margin:0;padding:0 1em;color:#59636e;border-left:.25em solid #d1d9e0}\
        table{border-collapse:collapse;display:block;overflow:auto}th,td{border:1px solid #d1d9e0;padding:.3em .8em}\
        li:has(>input[type=checkbox]){list-style:none}hr{border:0;border-top:1px solid #d1d9e0}
        """

    /// A whole HTML document for the note `text` named `title`, in the club folder `folder`
    /// ("/byteclub"). `photoSource` gives the address of a club photo by its resolved club path
    /// ("/byteclub/photos/desk.jpg"), or nil where the page must not show it.
    public static func page(of text: String, title: String, folder: String, photoSource: @escaping (String) -> String?) -> String {
        let body = fragment(of: text, title: title, folder: folder, photoSource: photoSource)
        return """
            <!DOCTYPE html>
            <html><head><meta charset="utf-8">
            <meta name="viewport" content="width=device-width, initial-scale=1">
            <meta name="referrer" content="no-referrer">
            <title>\(escaped(title))</title>
            <style>\(style)</style>
            </head><body><main>
            \(body)</main></body></html>

            """
    }

    /// The note's body as HTML, with an `<h1>` of `title` first unless the note opens with a
    /// level-one heading of its own.
    public static func fragment(of text: String, title: String, folder: String, photoSource: @escaping (String) -> String?) -> String {
        var text = text
        var html = ""
        text.withUTF8 { bytes in
            MarkdownParser.withDocument(ofUTF8: bytes, options: BC_CMARK_OPT_FOOTNOTES | BC_CMARK_OPT_VALIDATE_UTF8) { document in
                var rewriter = HTMLRewriter(folder: folder, photoSource: photoSource)
                rewriter.rewrite(document)
                addTitle(title, to: document)
                guard let rendered = cmark_render_html(document, BC_CMARK_OPT_FOOTNOTES, nil) else { return }
                html = String(cString: rendered)
                free(rendered)
            }
        }
        guard let matter = frontMatter(of: text) else { return html }
        // Under the title, as the rendered view shows it above the text.
        guard html.hasPrefix("<h1"), let end = html.range(of: "</h1>\n") else { return matter + html }
        return String(html[..<end.upperBound]) + matter + String(html[end.upperBound...])
    }

    /// The note's front matter as the page shows it: its properties on one line, or, for YAML that
    /// does not parse, the warning and the block as written. Nil when there is nothing to show.
    static func frontMatter(of text: String) -> String? {
        guard let matter = NoteFrontMatter(text) else { return nil }
        if let error = matter.error {
            let raw = String(decoding: text.utf8.prefix(matter.bodyOffset), as: UTF8.self)
            return "<p><em>" + escaped(NoteFrontMatter.warning + error) + "</em></p>\n<pre><code>" + escaped(raw) + "</code></pre>\n"
        }
        guard !matter.properties.isEmpty else { return nil }
        return "<p><small>" + matter.properties.map { escaped($0.key) + ": " + escaped($0.value) }.joined(separator: " · ") + "</small></p>\n"
    }

    /// The club paths of the photos `text` references (images and links to photo files), lower
    /// cased as the server compares paths: all a note's page may serve besides the note.
    public static func photoPaths(in text: String, folder: String) -> Set<String> {
        var paths = Set<String>()
        for link in NoteLinks.scan(text) {
            if case .photo(let path) = link.target(inFolder: folder), isPhotoFile(path) { paths.insert(path.lowercased()) }
        }
        return paths
    }

    /// A file a page may show as a picture: one of ``NoteLinkTarget/photoExtensions`` but
    /// `.svg`, which can hold script (nor a note an image happens to point at).
    public static func isPhotoFile(_ path: String) -> Bool {
        let ext = (path as NSString).pathExtension.lowercased()
        return ext != "svg" && NoteLinkTarget.photoExtensions.contains(ext)
    }

    /// `text` safe inside HTML text and attribute values.
    public static func escaped(_ text: String) -> String {
        var out = ""
        out.reserveCapacity(text.utf8.count)
        for character in text.unicodeScalars {
            switch character {
            case "&": out += "&amp;"
            case "<": out += "&lt;"
            case ">": out += "&gt;"
            case "\"": out += "&quot;"
            case "'": out += "&#39;"
            default: out.unicodeScalars.append(character)
            }
        }
        return out
    }

    private static func addTitle(_ title: String, to document: OpaquePointer) {
        if let first = cmark_node_first_child(document), cmark_node_get_type(first) == BC_CMARK_NODE_HEADING,
           cmark_node_get_heading_level(first) == 1 { return }
        guard let heading = cmark_node_new(BC_CMARK_NODE_HEADING), let words = textNode(title) else { return }
        cmark_node_set_heading_level(heading, 1)
        cmark_node_append_child(heading, words)
        cmark_node_prepend_child(document, heading)
    }

    static func textNode(_ literal: String) -> OpaquePointer? {
        guard let node = cmark_node_new(BC_CMARK_NODE_TEXT) else { return nil }
        cmark_node_set_literal(node, literal)
        return node
    }
}

/// Rewrites a parsed note's tree for the web page, in place: raw HTML made text, wiki links
/// made links or text, every link's address decided from its ``NoteLinkTarget``.
///
/// The tree is read whole first and changed after: cmark's iterator must not see nodes it has
/// already been handed freed or moved.
struct HTMLRewriter {
    let folder: String
    let photoSource: (String) -> String?

    mutating func rewrite(_ document: OpaquePointer) {
        var html: [OpaquePointer] = [], links: [OpaquePointer] = [], textRuns: [OpaquePointer] = []
        guard let iterator = cmark_iter_new(document) else { return }
        while true {
            let event = cmark_iter_next(iterator)
            if event == BC_CMARK_EVENT_DONE { break }
            guard event == BC_CMARK_EVENT_ENTER, let node = cmark_iter_get_node(iterator) else { continue }
            switch cmark_node_get_type(node) {
            case BC_CMARK_NODE_HTML_BLOCK, BC_CMARK_NODE_HTML_INLINE: html.append(node)
            case BC_CMARK_NODE_LINK, BC_CMARK_NODE_IMAGE: links.append(node)
            case BC_CMARK_NODE_TEXT:
                // cmark leaves "[[a]]" as several text nodes ("[", "[a", "]", "]"): a run of
                // sibling text nodes is read as one, from its first node.
                let startsRun = cmark_node_previous(node).map { cmark_node_get_type($0) != BC_CMARK_NODE_TEXT } ?? true
                if startsRun, !insideLink(node) { textRuns.append(node) }
            default: break
            }
        }
        cmark_iter_free(iterator)
        for node in html { makeText(node) }
        for node in textRuns { wikiLinks(from: node) }
        for node in links { resolve(node) }
    }

    private func insideLink(_ node: OpaquePointer) -> Bool {
        var parent = cmark_node_parent(node)
        while let current = parent {
            let type = cmark_node_get_type(current)
            if type == BC_CMARK_NODE_LINK || type == BC_CMARK_NODE_IMAGE { return true }
            parent = cmark_node_parent(current)
        }
        return false
    }

    /// Raw HTML as the text it is: a block becomes a paragraph of its lines, inline HTML a text
    /// node, and the renderer escapes both.
    private func makeText(_ node: OpaquePointer) {
        let literal = cmark_node_get_literal(node).map { String(cString: $0) } ?? ""
        if cmark_node_get_type(node) == BC_CMARK_NODE_HTML_INLINE {
            if let text = NoteHTML.textNode(literal) { cmark_node_insert_before(node, text) }
        } else if let paragraph = cmark_node_new(BC_CMARK_NODE_PARAGRAPH) {
            let lines = literal.trimmingCharacters(in: .newlines).split(separator: "\n", omittingEmptySubsequences: false)
            for (index, line) in lines.enumerated() {
                if index > 0, let lineBreak = cmark_node_new(BC_CMARK_NODE_LINEBREAK) { cmark_node_append_child(paragraph, lineBreak) }
                if let text = NoteHTML.textNode(String(line)) { cmark_node_append_child(paragraph, text) }
            }
            cmark_node_insert_before(node, paragraph)
        }
        cmark_node_free(node)
    }

    /// Splits a run of text nodes at its `[[…]]` and `![[…]]`, found as ``NoteLinks`` finds
    /// them in the editor, into text and the nodes each link becomes.
    private func wikiLinks(from first: OpaquePointer) {
        var run: [OpaquePointer] = []
        var next: OpaquePointer? = first
        while let current = next, cmark_node_get_type(current) == BC_CMARK_NODE_TEXT {
            run.append(current)
            next = cmark_node_next(current)
        }
        var text = run.map { cmark_node_get_literal($0).map { String(cString: $0) } ?? "" }.joined()
        let found = text.withUTF8 { NoteLinks.wikiLinks(in: $0, line: 0, excluding: []) }
        guard !found.isEmpty else { return }
        let bytes = Array(text.utf8)
        var at = 0
        let insert = { (new: OpaquePointer?) in if let new { cmark_node_insert_before(first, new) } }
        for link in found {
            if link.bytes.lowerBound > at { insert(NoteHTML.textNode(String(decoding: bytes[at..<link.bytes.lowerBound], as: UTF8.self))) }
            insert(node(for: link))
            at = link.bytes.upperBound
        }
        if at < bytes.count { insert(NoteHTML.textNode(String(decoding: bytes[at...], as: UTF8.self))) }
        for old in run { cmark_node_free(old) }
    }

    /// A wiki link as the page shows it: a club photo as a picture, anything else as its text
    /// (another note is not reachable through this note's link).
    private func node(for link: NoteLink) -> OpaquePointer? {
        if link.isImage, case .photo(let path) = link.target(inFolder: folder), NoteHTML.isPhotoFile(path),
           let source = photoSource(path), let image = cmark_node_new(BC_CMARK_NODE_IMAGE) {
            cmark_node_set_url(image, source)
            if let alt = NoteHTML.textNode(link.text) { cmark_node_append_child(image, alt) }
            return image
        }
        return NoteHTML.textNode(link.text)
    }

    /// A Markdown link or image, kept, pointed at the page's copy of a club photo, or reduced
    /// to its text.
    private func resolve(_ node: OpaquePointer) {
        let url = cmark_node_get_url(node).map { String(cString: $0) } ?? ""
        let isImage = cmark_node_get_type(node) == BC_CMARK_NODE_IMAGE
        let link = NoteLink(destination: url, text: "", isImage: isImage, syntax: .markdown, line: 0, bytes: 0..<0)
        switch link.target(inFolder: folder) {
        case .web where !isImage:
            return
        case .photo(let path) where NoteHTML.isPhotoFile(path):
            if let source = photoSource(path) {
                cmark_node_set_url(node, source)
                return
            }
        default:
            break
        }
        // What is left is text: a link's children (its words), an image's alt text.
        while let child = cmark_node_first_child(node) { cmark_node_insert_before(node, child) }
        cmark_node_free(node)
    }
}
