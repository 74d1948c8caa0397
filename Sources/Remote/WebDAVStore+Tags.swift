import DropboxWire
import Foundation
#if canImport(FoundationXML)
import FoundationXML
#endif
import Transfer

// Tags over WebDAV: a dead property, `<bc:tags xmlns:bc="urn:x-byteclub:">trip pinned</bc:tags>`
// (the tags separated by spaces), set with PROPPATCH and read with PROPFIND. Servers that keep
// dead properties (Apache mod_dav, Nextcloud, nginx-dav-ext with a store) keep tags; servers that
// do not answer PROPPATCH with a 403 (or 409, 405, 501) for the property: `rclone serve webdav`
// answers `207` holding `403 Forbidden`. That is `.notSupported`, said in words, and nothing
// else is touched. A change reads the property, then sets the new list: two members tagging
// one file at the same moment can lose one tag (WebDAV has no add-to-a-list).

extension WebDAVStore: TaggingStore {
    static let tagsNamespace = "urn:x-byteclub:"
    static let tagsProperty = "tags"

    /// One PROPFIND `Depth: 1` per folder the paths are in, asking only for the tags.
    /// A folder's tags are read at once (a `Depth: 1` PROPFIND): a whole list in one call.
    public var tagPathsPerCall: Int? { nil }

    public func tags(of paths: [String]) async throws(RemoteError) -> [String: [String]] {
        var byFolder: [String: Set<String>] = [:]
        for path in paths { byFolder[Self.parent(of: path), default: []].insert(path.lowercased()) }
        var found: [String: [String]] = [:]
        for (folder, wanted) in byFolder {
            for (path, tags) in try await readTags(folder, depth: "1") where wanted.contains(path.lowercased()) {
                found[path.lowercased()] = tags
            }
        }
        return found
    }

    public func addTag(_ tag: String, to path: String) async throws(RemoteError) {
        let text = try DropboxStore.checked(tag)
        var tags = try await currentTags(path)
        guard !tags.contains(text) else { return }
        guard tags.count < TagText.maximumPerItem else {
            throw .server(status: 409, detail: "\(path) already has \(TagText.maximumPerItem) tags, the most a file can have")
        }
        tags.append(text)
        try await writeTags(tags, to: path)
    }

    public func removeTag(_ tag: String, from path: String) async throws(RemoteError) {
        let text = try DropboxStore.checked(tag)
        var tags = try await currentTags(path)
        guard let index = tags.firstIndex(of: text) else { return }
        tags.remove(at: index)
        try await writeTags(tags, to: path)
    }

    private func currentTags(_ path: String) async throws(RemoteError) -> [String] {
        // A missing file is a 404 to the PROPFIND (`.notFound`); one without the property has none.
        let all = try await readTags(path, depth: "0")
        return all.first(where: { $0.key.lowercased() == path.lowercased() })?.value ?? []
    }

    /// The tags of `path` (depth 0) or of its children (depth 1), by store path; a file without
    /// the property has none. The answer is parsed as it arrives, from a spool file (as a listing
    /// is): a 100,000-note folder's answer is 20 MB, which was held whole and then copied for the
    /// parser (40 MiB of the app's peak on WebDAV, `heaptrack`, issue 56).
    private func readTags(_ path: String, depth: String) async throws(RemoteError) -> [String: [String]] {
        var found: [String: [String]] = [:]
        try await propfind(path, depth: depth, body: Self.tagsPropfindBody) { resource in
            guard let value = resource.tags, let storePath = storePath(ofHref: resource.href), !storePath.isEmpty || path.isEmpty else { return }
            // Only what a tag can be: a server's property never reaches a row unchecked.
            found[storePath] = value.split(separator: " ").compactMap { try? TagText.normalised(String($0)) }
        }
        return found
    }

    static let tagsPropfindBody = Data("""
        <?xml version="1.0" encoding="utf-8"?>
        <d:propfind xmlns:d="DAV:" xmlns:bc="\(tagsNamespace)"><d:prop><bc:\(tagsProperty)/></d:prop></d:propfind>
        """.utf8)

    private func writeTags(_ tags: [String], to path: String) async throws(RemoteError) {
        let element = "<bc:\(Self.tagsProperty)>\(tags.joined(separator: " "))</bc:\(Self.tagsProperty)>"
        let update = tags.isEmpty
            ? "<d:remove><d:prop><bc:\(Self.tagsProperty)/></d:prop></d:remove>"
            : "<d:set><d:prop>\(element)</d:prop></d:set>"
        let body = Data("""
            <?xml version="1.0" encoding="utf-8"?>
            <d:propertyupdate xmlns:d="DAV:" xmlns:bc="\(Self.tagsNamespace)">\(update)</d:propertyupdate>
            """.utf8)
        let reply = await exchange("PROPPATCH", try url(path), headers: ["Content-Type": "application/xml; charset=utf-8"], body: .data(body))
        let refused = "this WebDAV server cannot keep tags (it refused the tags property with PROPPATCH: %@)"
        switch reply.error {
        case .httpStatus(let status, _)? where [403, 405, 409, 501].contains(status):
            // A server that refuses every change refuses this one too: said as read-only.
            if status != 409, let folder = await refusedFolder(near: path) { throw .forbidden(Self.readOnlySentence(folder: folder, path: path)) }
            throw .notSupported(refused.replacingOccurrences(of: "%@", with: "HTTP \(status)"))
        case let error?:
            throw await readOnlyOr(Self.remoteError(error, response: reply.response, path: path, method: "PROPPATCH"), writing: path)
        case nil:
            break
        }
        guard reply.status == 207 else {
            if (200..<300).contains(reply.status) { return }
            throw .server(status: reply.status, detail: "PROPPATCH answered \(reply.status)")
        }
        let statuses = try WebDAVTagsReader.propertyStatuses(reply.body)
        if let bad = statuses.first(where: { !(200..<300).contains($0) }) {
            throw .notSupported(refused.replacingOccurrences(of: "%@", with: "\(bad)"))
        }
    }
}

/// Reads the statuses a PROPPATCH answered for the `bc:tags` property, with namespaces
/// processed (by URI, never by prefix) and no external entities. (A PROPFIND's tags are read by
/// the listing's parser, ``WebDAVMultistatus``.)
enum WebDAVTagsReader {
    /// The status of every propstat that holds the tags property.
    static func propertyStatuses(_ data: Data) throws(RemoteError) -> [Int] {
        let reader = Reader()
        try reader.run(data)
        return reader.statuses
    }

    private final class Reader: NSObject, XMLParserDelegate {
        var statuses: [Int] = []
        private var text = ""
        private var sawTags = false
        private var propstatStatus = 0

        func run(_ data: Data) throws(RemoteError) {
            // A stream even from memory: a whole answer handed to libxml2 at once fails past 10 MB.
            let parser = WebDAVMultistatus.streamingParser(InputStream(data: data))
            parser.delegate = self
            guard parser.parse() else { throw .server(status: 0, detail: "the WebDAV server's answer was not valid XML") }
        }

        func parser(_ parser: XMLParser, didStartElement name: String, namespaceURI: String?, qualifiedName: String?,
                    attributes: [String: String] = [:]) {
            text = ""
            switch (namespaceURI, name) {
            case ("DAV:", "propstat"):
                sawTags = false
                propstatStatus = 0
            case (WebDAVStore.tagsNamespace, WebDAVStore.tagsProperty): sawTags = true
            default: break
            }
        }

        func parser(_ parser: XMLParser, foundCharacters string: String) { text += string }

        func parser(_ parser: XMLParser, didEndElement name: String, namespaceURI: String?, qualifiedName: String?) {
            switch (namespaceURI, name) {
            case ("DAV:", "status"):
                // "HTTP/1.1 403 Forbidden"
                let parts = text.split(separator: " ")
                if parts.count >= 2, let code = Int(parts[1]) { propstatStatus = code }
            case ("DAV:", "propstat"):
                guard sawTags else { break }
                statuses.append(propstatStatus)
            default: break
            }
            text = ""
        }
    }
}
