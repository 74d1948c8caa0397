import Foundation

/// Metadata written as JSON text by hand, for the server's big listings.
///
/// JSONEncoder and JSONSerialization are far too slow for a 2,000-entry page on Linux. The
/// text is exactly what `DropboxJSON.encode` writes (keys sorted); DropboxWireTests decode it
/// back with the Codable types to keep the two in step.
extension Metadata {
    public var jsonText: String {
        var out = ""
        appendJSON(to: &out)
        return out
    }

    /// Appends this entry's JSON object to `out`; with `asciiOnly`, fit for a header.
    public func appendJSON(to out: inout String, asciiOnly: Bool = false) {
        func field(_ key: String, _ value: String?) {
            guard let value else { return }
            out += ",\""
            out += key
            out += "\":"
            DropboxJSON.appendQuoted(value, to: &out, asciiOnly: asciiOnly)
        }
        switch self {
        case .file(let file):
            out += "{\".tag\":\"file\",\"client_modified\":\""
            out += DropboxTimestamp.format(file.clientModified)
            out += "\""
            field("content_hash", file.contentHash)
            field("id", file.id)
            out += ",\"is_downloadable\":" + (file.isDownloadable ? "true" : "false")
            field("name", file.name)
            field("path_display", file.pathDisplay)
            field("path_lower", file.pathLower)
            field("rev", file.rev)
            out += ",\"server_modified\":\""
            out += DropboxTimestamp.format(file.serverModified)
            out += "\""
            if let sharing = file.sharingInfo {
                // Keys sorted, as everywhere: "sharing_info" falls between "server_modified" and "size".
                out += ",\"sharing_info\":{"
                if let modifiedBy = sharing.modifiedBy {
                    out += "\"modified_by\":"
                    DropboxJSON.appendQuoted(modifiedBy, to: &out, asciiOnly: asciiOnly)
                    out += ","
                }
                out += "\"parent_shared_folder_id\":"
                DropboxJSON.appendQuoted(sharing.parentSharedFolderID, to: &out, asciiOnly: asciiOnly)
                out += ",\"read_only\":" + (sharing.readOnly ? "true" : "false") + "}"
            }
            out += ",\"size\":"
            out += String(file.size)
            out += "}"
        case .folder(let folder):
            out += "{\".tag\":\"folder\""
            field("id", folder.id)
            field("name", folder.name)
            field("path_display", folder.pathDisplay)
            field("path_lower", folder.pathLower)
            out += "}"
        case .deleted(let deleted):
            out += "{\".tag\":\"deleted\""
            field("name", deleted.name)
            field("path_display", deleted.pathDisplay)
            field("path_lower", deleted.pathLower)
            out += "}"
        }
    }
}
