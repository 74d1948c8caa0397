import DropboxWire
import ClubServer
import Foundation
import HTTPTypes
import Hummingbird
import Logging
import NIOCore
import NIOEmbedded

/// Every route of the club server, through its real router, middlewares and `FolderStore` over a
/// temporary folder (seeded with a note and a folder), without a socket.
///
/// Input: a route byte, then NUL-separated fields: the `Dropbox-API-Arg` text, `Range`,
/// `If-Range`, `If-None-Match`, and the rest is the body. An answer of 500 is a finding as well
/// as a trap: a request a client can send must get the error its route names.
enum ClubRoutesTarget {
    static let routes: [String] = [
        Endpoint.listFolder.route, Endpoint.listFolderContinue.route, Endpoint.getLatestCursor.route,
        Endpoint.longpoll.route, Endpoint.getMetadata.route, Endpoint.search.route, Endpoint.searchContinue.route,
        Endpoint.delete.route, Endpoint.move.route, Endpoint.copy.route, Endpoint.createFolder.route,
        Endpoint.listRevisions.route, Endpoint.restore.route, Endpoint.addTag.route, Endpoint.getTags.route, Endpoint.removeTag.route,
        Endpoint.account.route, Endpoint.accountBatch.route, Endpoint.currentAccount.route,
        Endpoint.download.route, Endpoint.upload.route, Endpoint.sessionStart.route, Endpoint.sessionAppend.route,
        Endpoint.sessionFinish.route, Endpoint.thumbnail.route,
        Endpoint.createSharedLink.route, Endpoint.listSharedLinks.route, Endpoint.revokeSharedLink.route,
        // GET: the field where the argument goes is the rest of the path.
        "/s/",
    ]

    static let token = "fuzz-token"

    /// Built once per process: a server's folder outlives its requests, as it does in `serve`.
    static let server: InProcessServer = FuzzCheck.wait { await makeServer() }

    /// The router's responder, with its context type (hidden behind `some ApplicationProtocol`)
    /// made here for each request, as Hummingbird does for a connection.
    struct InProcessServer: Sendable {
        let respond: @Sendable (Request) async throws -> Response

        init<App: ApplicationProtocol>(_ app: App) async throws {
            let responder = try await app.responder
            respond = { request in
                let context = App.Context(source: .init(channel: NIOAsyncTestingChannel(), logger: ClubRoutesTarget.quiet))
                return try await responder.respond(to: request, context: context)
            }
        }
    }

    static let quiet = Logger(label: "fuzz", factory: { _ in SwiftLogNoOpLogHandler() })

    private static func makeServer() async -> InProcessServer {
        let root = FuzzScratch.folder("byteclub-fuzz")
        do {
            try FileManager.default.createDirectory(at: root.appendingPathComponent("notes"), withIntermediateDirectories: true)
            try Data("hello, club\n".utf8).write(to: root.appendingPathComponent("notes/hello.txt"))
            var configuration = ClubServerConfiguration(root: root.path, token: token, logger: quiet)
            // A longpoll waits `timeout` units; a fuzzer cannot wait 30 s per input.
            configuration.longpollTimeUnit = .microseconds(10)
            let api = try ClubAPI(configuration)
            return try await InProcessServer(api.application(onBound: { _ in }))
        } catch {
            fatalError("club-routes: cannot start a server over \(root.path): \(error)")
        }
    }

    static func run(_ data: Data) {
        guard let first = data.first else { return }
        let route = routes[Int(first) % routes.count]
        let fields = data.dropFirst().split(separator: 0, maxSplits: 4, omittingEmptySubsequences: false)
        func field(_ index: Int) -> Data? { index < fields.count && !fields[index].isEmpty ? Data(fields[index]) : nil }
        var headers: HTTPFields = [.authorization: "Bearer \(token)"]
        let isGet = route == "/s/"
        if !isGet, let arg = field(0) { headers.append(HTTPField(name: HTTPField.Name("Dropbox-API-Arg")!, lenientValue: arg)) }
        if let range = field(1) { headers.append(HTTPField(name: .range, lenientValue: range)) }
        if let ifRange = field(2) { headers.append(HTTPField(name: .ifRange, lenientValue: ifRange)) }
        if let ifNoneMatch = field(3) { headers.append(HTTPField(name: .ifNoneMatch, lenientValue: ifNoneMatch)) }
        let body = field(4) ?? Data()
        // A path is what the HTTP parser would hand over: the request line's bytes, lossily text.
        let path = isGet ? "/s/" + String(decoding: field(0) ?? Data(), as: UTF8.self) : route
        let request = headers
        let status = FuzzCheck.wait { await respond(method: isGet ? .get : .post, path: path, headers: request, body: body) }
        FuzzCheck.expect(status != 500, "\(route) answered 500 to a client's request")
    }

    private static func respond(method: HTTPRequest.Method, path: String, headers: HTTPFields, body: Data) async -> Int {
        var headers = headers
        headers[.contentLength] = String(body.count)
        let request = Request(head: HTTPRequest(method: method, scheme: "http", authority: "127.0.0.1", path: path, headerFields: headers),
                              body: RequestBody(buffer: ByteBuffer(bytes: body)))
        do {
            let response = try await server.respond(request)
            let body = response.body
            try await body.write(DiscardingWriter())
            return response.status.code
        } catch {
            // Hummingbird answers a thrown HTTPError with its status, anything else with 500.
            return (error as? any HTTPResponseError)?.status.code ?? 500
        }
    }
}

/// Reads a response body to its end, as a client would, and drops it.
private struct DiscardingWriter: ResponseBodyWriter {
    mutating func write(_ buffer: ByteBuffer) async throws {}
    consuming func finish(_ trailingHeaders: HTTPFields?) async throws {}
}
