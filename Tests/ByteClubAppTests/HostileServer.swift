import Foundation
import TestSupport
import HTTPTypes
import Hummingbird
import Logging
import Remote
import Synchronization

/// A Dropbox-v2 server that lies, on loopback: hostile names (`../../evil.jpg`, escape
/// sequences, C1 controls), paths outside the folder asked for, error bodies that try to drive
/// the terminal, and listings that never end. Only what the client asks during a listing, a
/// search and a download is answered.
///
/// What it answers depends on the folder asked for:
/// - `/byteclub`: files named with escapes (``terminalNames``);
/// - `/byteclub/photos` (search): ``photos``, or endless pages with ``endlessPhotos``; any
///   path downloads, and the download's `Dropbox-API-Result` names the file ``resultName``
///   when set;
/// - `/endless`: pages of 100 entries, each promising more, with a new cursor every time;
///   `/endless-wide` the same with pages of 2,000 (the most `list_folder` gives);
/// - `/same-cursor`: a page promising more with the cursor it was asked with;
/// - `/empty-pages`: empty pages promising more;
/// - `/outside`: an entry at `/etc/x.jpg`;
/// - `/error-body`: a 409 whose summary is escape sequences;
/// - anything else: `path/not_found`.
final class HostileServer: Sendable {
    /// A photo search_v2 answers: its name and its path (which may disagree).
    struct Photo: Sendable {
        var name: String
        var path: String
    }

    struct Counters: Sendable {
        var listPages = 0
        var searchPages = 0
        var downloads = 0
    }

    /// Names of the files in `/byteclub`: a title change, a screen clear, a clipboard write
    /// (OSC 52), C1 controls (CSI as U+009B, NEL), DEL and a newline.
    static let terminalNames = [
        "\u{1B}]0;PWNED\u{07}.txt",
        "\u{1B}[2J\u{1B}[Hcleared.txt",
        "\u{1B}]52;c;cHduZWQ=\u{07}clip.txt",
        "c1\u{9B}31mred\u{85}\u{9D}0;x\u{9C}.txt",
        "del\u{7F}and\nnewline.txt",
    ]

    static let photoBytes = Data([0xFF, 0xD8, 0xFF, 0xE0]) + Data("not really a photo".utf8)

    /// The counters, shared with the routes.
    final class Tally: Sendable {
        let mutex = Mutex(Counters())
        func count(_ body: (inout Counters) -> Void) { mutex.withLock { body(&$0) } }
    }

    let photos: [Photo]
    let resultName: String?
    let endlessPhotos: Bool
    let baseURL: URL
    private let tally: Tally
    private let task: GracefulServer

    /// Requests answered so far.
    var counts: Counters { tally.mutex.withLock { $0 } }

    init(photos: [Photo] = [], resultName: String? = nil, endlessPhotos: Bool = false) async throws {
        self.photos = photos
        self.resultName = resultName
        self.endlessPhotos = endlessPhotos
        let router = Router()
        let port = Mutex<Int?>(nil)
        let ready = DispatchSemaphore(value: 0)
        // Routes are added before `self` is complete, so they capture what they need, not self.
        let counters = Tally()
        tally = counters
        router.post("/2/files/list_folder") { request, _ -> Response in
            counters.count { $0.listPages += 1 }
            let argument = try await Self.body(request)
            return Self.listing(folder: argument["path"] as? String ?? "", page: 0)
        }
        router.post("/2/files/list_folder/continue") { request, _ -> Response in
            counters.count { $0.listPages += 1 }
            let cursor = try await Self.body(request)["cursor"] as? String ?? ""
            let parts = cursor.split(separator: "#")
            return Self.listing(folder: parts.first.map(String.init) ?? "", page: parts.count > 1 ? Int(parts[1]) ?? 0 : 0, cursor: cursor)
        }
        router.post("/2/files/search_v2") { request, _ -> Response in
            counters.count { $0.searchPages += 1 }
            let options = try await Self.body(request)["options"] as? [String: Any] ?? [:]
            let folder = options["path"] as? String ?? ""
            if folder == "/endless" || (endlessPhotos && folder == "/byteclub/photos") { return Self.endlessSearch(folder: folder, page: 0) }
            guard folder.lowercased() == "/byteclub/photos" else { return Self.notFound() }
            let matches = photos.enumerated().map { index, photo in
                ["metadata": [".tag": "metadata", "metadata": Self.file(name: photo.name, path: photo.path, index: index)],
                 "match_type": [".tag": "filename"]]
            }
            return Self.json(["matches": matches, "has_more": false])
        }
        router.post("/2/files/search/continue_v2") { request, _ -> Response in
            counters.count { $0.searchPages += 1 }
            let cursor = try await Self.body(request)["cursor"] as? String ?? ""
            let parts = cursor.split(separator: "#")
            return Self.endlessSearch(folder: parts.first.map(String.init) ?? "", page: parts.count > 1 ? Int(parts[1]) ?? 0 : 0)
        }
        router.post("/2/files/download") { request, _ -> Response in
            counters.count { $0.downloads += 1 }
            let argument = request.headers[HTTPField.Name("Dropbox-API-Arg")!] ?? "{}"
            let path = (try? JSONSerialization.jsonObject(with: Data(argument.utf8)) as? [String: Any])?["path"] as? String ?? ""
            // Any path downloads (the CLI asks for what it is told); the name in the result is
            // the photo's, or `resultName`, never checked by the server.
            let index = photos.firstIndex(where: { $0.path.lowercased() == path.lowercased() })
            let name = resultName ?? index.map { photos[$0].name } ?? String(path.split(separator: "/").last ?? "")
            var metadata = Self.file(name: name, path: path, index: index ?? 0)
            metadata.removeValue(forKey: ".tag")
            let result = DropboxJSON.asciiEscaped(String(decoding: try JSONSerialization.data(withJSONObject: metadata), as: UTF8.self))
            return Response(status: .ok, headers: [.contentType: "application/octet-stream", HTTPField.Name("Dropbox-API-Result")!: result],
                            body: .init(byteBuffer: ByteBuffer(bytes: Self.photoBytes)))
        }
        router.post("/2/files/get_thumbnail_v2") { _, _ -> Response in Self.notFound() }
        // Quiet: a stopped server logs errors that say nothing here.
        var logger = Logger(label: "hostile-server")
        logger.logLevel = .critical
        let app = Application(router: router, configuration: .init(address: .hostname("127.0.0.1", port: 0)),
                              onServerRunning: { channel in port.withLock { $0 = channel.localAddress?.port }; ready.signal() }, logger: logger)
        task = GracefulServer(app)
        await withCheckedContinuation { continuation in
            DispatchQueue.global().async {
                _ = ready.wait(timeout: .now() + 20)
                continuation.resume()
            }
        }
        baseURL = URL(string: "http://127.0.0.1:\(port.withLock { $0 } ?? 0)")!
    }

    func stop() {
        task.stop()
    }

    /// A store on this server that gives up quickly and stops listings at `maxEntries`.
    func store(maxEntries: Int = 1_000_000) -> DropboxStore {
        var retry = RetryPolicy()
        retry.maxAttempts = 2
        retry.baseDelay = 0.01
        return DropboxStore(displayName: "hostile", endpoints: .club(baseURL), tokens: StaticToken("t"),
                            connection: ConnectionOptions(idleTimeout: 5), retry: retry, listingLimits: ListingLimits(maxEntries: maxEntries))
    }

    // MARK: Answers

    private static func listing(folder: String, page: Int, cursor: String? = nil) -> Response {
        switch folder {
        case "/byteclub":
            let entries = terminalNames.enumerated().map { file(name: $1, path: "/byteclub/" + $1, index: $0) }
            return json(["entries": entries, "cursor": "/byteclub#1", "has_more": false])
        case "/endless", "/endless-wide":
            let entries = (0..<(folder == "/endless" ? 100 : 2000)).map {
                file(name: "f\(page)-\($0).txt", path: "\(folder)/f\(page)-\($0).txt", index: $0)
            }
            return json(["entries": entries, "cursor": "\(folder)#\(page + 1)", "has_more": true])
        case "/same-cursor":
            let name = "again-\(page).txt"
            return json(["entries": [file(name: name, path: "/same-cursor/" + name, index: 0)], "cursor": cursor ?? "/same-cursor#1", "has_more": true])
        case "/empty-pages":
            return json(["entries": [], "cursor": "/empty-pages#\(page + 1)", "has_more": true])
        case "/outside":
            return json(["entries": [file(name: "x.jpg", path: "/etc/x.jpg", index: 0)], "cursor": "/outside#1", "has_more": false])
        case "/error-body":
            return json(["error_summary": "\u{1B}]0;PWNED\u{07}\u{1B}[2J\u{9B}31m/..", "error": [".tag": "other"]], status: .conflict)
        default:
            return notFound()
        }
    }

    private static func endlessSearch(folder: String, page: Int) -> Response {
        let matches = (0..<100).map { index in
            ["metadata": [".tag": "metadata", "metadata": file(name: "p\(page)-\(index).jpg", path: "\(folder)/p\(page)-\(index).jpg", index: index)],
             "match_type": [".tag": "filename"]]
        }
        return json(["matches": matches, "has_more": true, "cursor": "\(folder)#\(page + 1)"])
    }

    static func file(name: String, path: String, index: Int) -> [String: Any] {
        [".tag": "file", "name": name, "id": "id:\(index)", "path_lower": path.lowercased(), "path_display": path,
         "client_modified": "2026-11-20T10:00:00Z", "server_modified": "2026-11-20T10:00:0\(index % 10)Z",
         "rev": String(format: "%09x", 0x1000 + index), "size": photoBytes.count, "is_downloadable": true]
    }

    private static func notFound() -> Response {
        json(["error_summary": "path/not_found/..", "error": [".tag": "path", "path": [".tag": "not_found"]]], status: .conflict)
    }

    private static func json(_ object: [String: Any], status: HTTPResponse.Status = .ok) -> Response {
        let data = (try? JSONSerialization.data(withJSONObject: object)) ?? Data("{}".utf8)
        return Response(status: status, headers: [.contentType: "application/json"], body: .init(byteBuffer: ByteBuffer(bytes: data)))
    }

    private static func body(_ request: Request) async throws -> [String: Any] {
        var request = request
        let buffer = try await request.collectBody(upTo: 1 << 20)
        return (try? JSONSerialization.jsonObject(with: Data(buffer.readableBytesView)) as? [String: Any]) ?? [:]
    }
}
