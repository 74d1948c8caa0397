import Foundation

/// The club server's bulk download, `/2/byteclub/files/download_batch`: many small files in one
/// answer, each with its own metadata, for the first sync of a big club and for catching up.
///
/// Not a Dropbox endpoint. Dropbox's `files/download_zip` takes one folder and answers a zip
/// with no revisions in it: a client that gets one cannot tell which revision of each note it
/// holds, cannot ask again for only the notes it is missing after a kill, and the zip of a
/// 100,000-note folder is one answer that is lost whole when the connection drops.
///
/// The request is JSON: `{"entries": [{"path": "/byteclub/a.md"}, …]}`, at most ``maxEntries``.
/// The answer (`Content-Type: application/x-byteclub-batch`) holds one part per entry, in the
/// request's order:
///
/// ```
/// {".tag":"file","name":"a.md",…,"rev":"…","size":12}\n
/// <exactly size bytes>
/// {".tag":"failure","path":"/byteclub/gone.md","error_summary":"path/not_found/"}\n
/// ```
///
/// A file's line is its metadata as `files/download` gives it in `Dropbox-API-Result` (ASCII
/// only, so it never holds a newline); a failure's line names the path and the error the single
/// download would have answered. The bytes follow a file's line with nothing between.
public enum BatchDownload {
    /// The most entries one request may name.
    public static let maxEntries = 1000
    public static let contentType = "application/x-byteclub-batch"

    /// One part of an answer.
    public enum Part: Sendable, Equatable {
        case file(FileMetadata, Data)
        case failure(path: String, errorSummary: String)
    }

    /// The request's body for `paths`.
    public static func requestBody(paths: [String]) -> Data {
        var text = "{\"entries\":["
        for (index, path) in paths.enumerated() {
            if index > 0 { text += "," }
            text += "{\"path\":"
            DropboxJSON.appendQuoted(path, to: &text, asciiOnly: true)
            text += "}"
        }
        text += "]}"
        return Data(text.utf8)
    }

    /// A failure's line (the file's line is its metadata's JSON, written by the server).
    public static func failureLine(path: String, errorSummary: String) -> String {
        var text = "{\".tag\":\"failure\",\"path\":"
        DropboxJSON.appendQuoted(path, to: &text, asciiOnly: true)
        text += ",\"error_summary\":"
        DropboxJSON.appendQuoted(errorSummary, to: &text, asciiOnly: true)
        return text + "}\n"
    }

    /// What is wrong with an answer, in words for the log.
    public struct Malformed: Error, Sendable, Equatable, CustomStringConvertible {
        public let description: String
        init(_ description: String) { self.description = description }
    }

    /// The parts of a whole answer, in order. Anything that does not follow the format (a line
    /// that is not a part, a file cut short, bytes after the last part) is ``Malformed``.
    public static func parse(_ data: Data) throws(Malformed) -> [Part] {
        var parts: [Part] = []
        var offset = data.startIndex
        let decoder = JSONDecoder()
        while offset < data.endIndex {
            guard let newline = data[offset...].firstIndex(of: UInt8(ascii: "\n")) else {
                throw Malformed("part \(parts.count + 1): its line has no end")
            }
            let line = data[offset..<newline]
            offset = newline + 1
            // One decode a line: the tag and the file's metadata from one container (with two
            // decodes a line, the parse was a quarter of the app's samples in its first sync).
            let tagged: PartLine
            do { tagged = try decoder.decode(PartLine.self, from: line) } catch {
                throw Malformed("part \(parts.count + 1): " + (error is PartLine.NotAFile ? "a file's metadata that does not decode" : "its line is not a part's JSON"))
            }
            switch tagged {
            case .failure(let path?, let summary?):
                parts.append(.failure(path: path, errorSummary: summary))
            case .failure:
                throw Malformed("part \(parts.count + 1): a failure without its path or error")
            case .file(let file):
                guard file.size >= 0, Int64(data.endIndex - offset) >= file.size else {
                    throw Malformed("part \(parts.count + 1): \(TerminalSafe.escape(file.name)) is cut short")
                }
                let end = offset + Int(file.size)
                parts.append(.file(file, Data(data[offset..<end])))
                offset = end
            case .unknown(let tag):
                throw Malformed("part \(parts.count + 1): an unknown part \"\(TerminalSafe.escape(String(tag.prefix(40))))\"")
            }
        }
        return parts
    }

    /// A part's line, told apart by its tag: a file's metadata, or a failure's path and error,
    /// read from one container.
    private enum PartLine: Decodable {
        case file(FileMetadata)
        case failure(path: String?, errorSummary: String?)
        case unknown(String)

        /// A line tagged `file` whose metadata does not decode.
        struct NotAFile: Error {}

        init(from decoder: any Decoder) throws {
            let object = try decoder.container(keyedBy: WireKey.self)
            switch try object.decode(String.self, forKey: .tag) {
            case "file":
                do { self = .file(try FileMetadata(object: object)) } catch { throw NotAFile() }
            case "failure":
                self = .failure(path: try object.decodeIfPresent(String.self, forKey: WireKey("path")),
                                errorSummary: try object.decodeIfPresent(String.self, forKey: WireKey("error_summary")))
            case let tag:
                self = .unknown(tag)
            }
        }
    }
}
