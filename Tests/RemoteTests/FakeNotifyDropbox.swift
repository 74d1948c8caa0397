import Foundation
import TestSupport
import Hummingbird
import Logging
import Remote
import Synchronization

/// A fake Dropbox split as the real one is: an API host and a notify host, each its own
/// Hummingbird server on loopback.
///
/// - The notify host answers `list_folder/longpoll` and nothing else. Like a strict Dropbox, it
///   REFUSES any request that carries an Authorization header (400), so a longpoll that works
///   proves none was sent. It answers `{"changes":false,"backoff":N}` while ``Script/backoffs``
///   has entries, after ``Script/longpollDelay`` seconds of silence, and `{"changes":true}`
///   otherwise.
/// - The API host needs the token, serves `get_latest_cursor` (cursor `c0`) and
///   `list_folder/continue` for a few scripted cursors, and refuses longpolls (404): a client
///   that sends its longpoll there has the wrong host.
final class FakeNotifyDropbox: Sendable {
    struct Script: Sendable {
        /// Backoffs to hand out, one per longpoll, before the answers become `changes: true`.
        var backoffs: [Int] = []
        /// Seconds a longpoll stays silent before it answers.
        var longpollDelay: Double = 0
        /// When each longpoll arrived, and whether it carried an Authorization header.
        var longpolls: [(at: ContinuousClock.Instant, authorized: Bool)] = []
        var refusedForAuthorization = 0
    }

    static let token = "fake-token"
    /// The script and what the notify host saw, shared with the routes.
    let script: ScriptBox
    let api: URL
    let notify: URL
    private let tasks: [GracefulServer]

    init() async throws {
        let script = ScriptBox()
        self.script = script
        let notifyRouter = Router()
        notifyRouter.post("/2/files/list_folder/longpoll") { request, _ -> Response in
            var request = request
            let authorized = request.headers[.authorization] != nil
            let body = try await request.collectBody(upTo: 1 << 16)
            let (delay, backoff) = script.update { state -> (Double, Int?) in
                state.longpolls.append((ContinuousClock.now, authorized))
                if authorized { state.refusedForAuthorization += 1 }
                return (state.longpollDelay, state.backoffs.isEmpty ? nil : state.backoffs.removeFirst())
            }
            if authorized {
                return Self.text("Error in call to API function \"files/list_folder/longpoll\": unexpected Authorization header", status: .badRequest)
            }
            let argument = (try? JSONSerialization.jsonObject(with: Data(buffer: body))) as? [String: Any] ?? [:]
            guard argument["cursor"] as? String != nil, let timeout = argument["timeout"] as? Int, (30...480).contains(timeout) else {
                return Self.text("Error in call to API function \"files/list_folder/longpoll\": bad cursor or timeout", status: .badRequest)
            }
            if delay > 0 { try await Task.sleep(for: .milliseconds(Int(delay * 1000))) }
            if let backoff { return Self.json(["changes": false, "backoff": backoff]) }
            return Self.json(["changes": true])
        }
        let apiRouter = Router()
        apiRouter.post("/2/files/list_folder/get_latest_cursor") { request, _ -> Response in
            guard request.headers[.authorization] == "Bearer \(Self.token)" else { return Self.unauthorized() }
            return Self.json(["cursor": "c0"])
        }
        apiRouter.post("/2/files/list_folder/continue") { request, _ -> Response in
            var request = request
            guard request.headers[.authorization] == "Bearer \(Self.token)" else { return Self.unauthorized() }
            let body = try await request.collectBody(upTo: 1 << 16)
            let cursor = ((try? JSONSerialization.jsonObject(with: Data(buffer: body))) as? [String: Any])?["cursor"] as? String ?? ""
            return Self.page(cursor)
        }
        apiRouter.post("/2/files/list_folder/longpoll") { _, _ -> Response in
            Self.text("longpolls go to the notify host", status: .notFound)
        }
        let (notifyURL, notifyTask) = await runOnLoopback(notifyRouter, label: "fake-notify")
        let (apiURL, apiTask) = await runOnLoopback(apiRouter, label: "fake-notify")
        notify = notifyURL
        api = apiURL
        tasks = [notifyTask, apiTask]
    }

    var endpoints: DropboxEndpoints { DropboxEndpoints(rpc: api, content: api, notify: notify) }

    /// A store on this fake with a short idle timeout (longpolls must not use it) and quick retries.
    func store(idleTimeout: TimeInterval = 1, maxEntries: Int = 1_000_000) -> DropboxStore {
        var retry = RetryPolicy()
        retry.maxAttempts = 2
        retry.baseDelay = 0.01
        return DropboxStore(displayName: "fake", endpoints: endpoints, tokens: StaticToken(Self.token),
                            connection: ConnectionOptions(idleTimeout: idleTimeout), retry: retry, listingLimits: ListingLimits(maxEntries: maxEntries))
    }

    func stop() {
        for task in tasks { task.stop() }
    }

    // MARK: Pages

    /// `list_folder/continue` for the scripted cursors under `/club`:
    /// - `c0`: a new file, a changed folder, a deletion, and more to come (`c1`);
    /// - `c1`: the last page, ending at `c2`;
    /// - `outside`: a change at `/etc/passwd`, outside the folder;
    /// - `endless-N`: empty pages, each promising more;
    /// - anything else: `reset`.
    private static func page(_ cursor: String) -> Response {
        switch cursor {
        case "c0":
            return json(["entries": [file("/club/new.txt", rev: "0000000a1"), [".tag": "folder", "name": "sub", "id": "id:sub",
                                                                              "path_lower": "/club/sub", "path_display": "/club/Sub"],
                                     [".tag": "deleted", "name": "old.txt", "path_lower": "/club/old.txt", "path_display": "/club/Old.txt"]],
                         "cursor": "c1", "has_more": true])
        case "c1":
            return json(["entries": [file("/club/Sub/deep.txt", rev: "0000000b2")], "cursor": "c2", "has_more": false])
        case "outside":
            return json(["entries": [file("/etc/passwd", rev: "0000000c3")], "cursor": "c9", "has_more": false])
        case let endless where endless.hasPrefix("endless-"):
            let page = Int(endless.dropFirst("endless-".count)) ?? 0
            return json(["entries": [], "cursor": "endless-\(page + 1)", "has_more": true])
        default:
            return json(["error_summary": "reset/..", "error": [".tag": "reset"]], status: .conflict)
        }
    }

    private static func file(_ path: String, rev: String) -> [String: Any] {
        [".tag": "file", "name": String(path.split(separator: "/").last ?? ""), "id": "id:\(rev)", "path_lower": path.lowercased(),
         "path_display": path, "client_modified": "2026-11-22T10:00:00Z", "server_modified": "2026-11-22T10:00:00Z", "rev": rev, "size": 3,
         "is_downloadable": true]
    }

    // MARK: Plumbing

    /// The script, shared by the routes (built before `self` is complete) and the tests.
    final class ScriptBox: Sendable {
        private let mutex = Mutex(Script())
        func update<R>(_ body: (inout Script) -> R) -> R {
            mutex.withLock { body(&$0) }
        }
    }

    private static func json(_ object: [String: Any], status: HTTPResponse.Status = .ok) -> Response {
        let data = (try? JSONSerialization.data(withJSONObject: object)) ?? Data("{}".utf8)
        return Response(status: status, headers: [.contentType: "application/json"], body: .init(byteBuffer: ByteBuffer(bytes: data)))
    }

    private static func text(_ text: String, status: HTTPResponse.Status) -> Response {
        Response(status: status, headers: [.contentType: "text/plain"], body: .init(byteBuffer: ByteBuffer(string: text)))
    }

    private static func unauthorized() -> Response {
        json(["error_summary": "invalid_access_token/..", "error": [".tag": "invalid_access_token"]], status: .unauthorized)
    }
}
