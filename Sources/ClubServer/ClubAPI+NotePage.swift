import Crypto
import DropboxWire
import Foundation
import HTTPTypes
import Hummingbird
import Markdown
import NIOCore

/// A shared `.md` note as a web page, and the club photos it references, under its one link.
///
/// A browser (`Accept: text/html`) opening `/s/<token>/<name>.md` gets the note rendered by
/// ``NoteHTML``; anything else, and `?dl=1`, keeps getting the raw file. The page's pictures are
/// `/s/<token>/<name>.md?photo=<club path>`, answered only for a photo the note's current text
/// references, so a link reaches the note and what it shows, nothing more; any other path gets
/// the same bare 404 as a wrong token.
extension ClubAPI {
    /// Larger notes are served raw: a page is built in memory per request.
    static let notePageLimit: Int64 = 4 << 20

    /// No script, no plugin, no form, no frame, no base: only the page's own pictures and its one
    /// inline style sheet (by hash, so even injected markup could add no style). `sandbox`
    /// gives the page an opaque origin besides, as the raw files have.
    static let notePagePolicy: String = {
        let hash = Data(SHA256.hash(data: Data(NoteHTML.style.utf8))).base64EncodedString()
        return "default-src 'none'; img-src 'self'; style-src 'sha256-\(hash)'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'; sandbox"
    }()

    /// What a share link of `file` answers instead of its raw bytes, or nil for the raw file.
    func notePageAnswer(_ request: Request, file: FileMetadata, path: DropboxPath, handle: FileHandleBox) async -> Response? {
        guard Self.isNote(file.name) else { return nil }
        if let photo = request.uri.queryParameters["photo"] {
            return await notePhoto(request, path: String(photo), note: file, notePath: path, handle: handle)
        }
        guard Self.wantsPage(request), file.size <= Self.notePageLimit, let text = Self.noteText(handle, size: file.size) else { return nil }
        let folder = path.parent.display
        let referenced = NoteHTML.photoPaths(in: text, folder: folder)
        var shown = Set<String>()
        for photo in referenced {
            if let photoPath = try? DropboxPath.checked(photo), (try? await store.metadata(photoPath)) != nil { shown.insert(photo) }
        }
        // Relative to the page's own URL: the link's name, then the photo's club path.
        let base = Self.percentEncoded(file.name) + "?photo="
        let html = NoteHTML.page(of: text, title: NoteLinks.title(ofPath: file.name), folder: folder) { photo in
            shown.contains(photo.lowercased()) ? base + Self.percentEncoded(photo) : nil
        }
        let headers: HTTPFields = [
            .contentType: "text/html; charset=utf-8",
            .cacheControl: "private, no-cache",
            .vary: "Accept",
            HTTPField.Name("X-Content-Type-Options")!: "nosniff",
            HTTPField.Name("Referrer-Policy")!: "no-referrer",
            HTTPField.Name("Content-Security-Policy")!: Self.notePagePolicy,
        ]
        return Response(status: .ok, headers: headers, body: .init(byteBuffer: ByteBuffer(string: html)))
    }

    /// One photo of a shared note's page, if the note references it now.
    private func notePhoto(_ request: Request, path: String, note: FileMetadata, notePath: DropboxPath, handle: FileHandleBox) async -> Response {
        guard note.size <= Self.notePageLimit, let text = Self.noteText(handle, size: note.size),
              NoteHTML.photoPaths(in: text, folder: notePath.parent.display).contains(path.lowercased()),
              let photoPath = try? DropboxPath.checked(path), let opened = try? await store.openForReading(photoPath) else { return Self.linkNotFound }
        let photo = opened.file
        let etag = "\"\(photo.rev)\""
        let headers: HTTPFields = [
            .contentType: Self.contentType(of: photo.name),
            .eTag: etag,
            .acceptRanges: "bytes",
            .lastModified: Self.httpDate(photo.serverModified),
            .cacheControl: "private, no-cache",
            HTTPField.Name("X-Content-Type-Options")!: "nosniff",
            HTTPField.Name("Referrer-Policy")!: "no-referrer",
            HTTPField.Name("Content-Security-Policy")!: "sandbox",
        ]
        if let match = request.headers[.ifNoneMatch], Self.matches(match, etag: etag) {
            return Response(status: .notModified, headers: headers, body: .init())
        }
        return Self.fileResponse(request, headers: headers, etag: etag, size: photo.size, handle: opened.handle)
    }

    static func isNote(_ name: String) -> Bool { (name as NSString).pathExtension.lowercased() == "md" }

    /// A browser asking for a page: `text/html` in `Accept` with a non-zero `q`, and no `dl=1`.
    static func wantsPage(_ request: Request) -> Bool {
        guard request.uri.queryParameters["dl"] != "1", let accept = request.headers[.accept] else { return false }
        return accept.split(separator: ",").contains { item in
            let parts = item.split(separator: ";").map { $0.trimmingCharacters(in: .whitespaces).lowercased() }
            guard parts.first == "text/html" else { return false }
            return !parts.dropFirst().contains { $0.hasPrefix("q=") && (Double($0.dropFirst(2)) ?? 1) <= 0 }
        }
    }

    /// The note's text, read through the handle already open (the version whose metadata was
    /// taken); nil if it is not UTF-8, which is then served raw.
    private static func noteText(_ handle: FileHandleBox, size: Int64) -> String? {
        guard size > 0 else { return "" }
        guard let data = try? read(handle, count: Int(size)) else { return nil }
        return String(data: data, encoding: .utf8)
    }
}
