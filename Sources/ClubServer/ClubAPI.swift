import DropboxWire
import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdCore
import HummingbirdTLS
import Imaging
import Logging
import NIOCore
import NIOHTTP1
import ServiceLifecycle
import Synchronization

/// The Dropbox v2 subset, as Hummingbird routes over a `FolderStore`.
package struct ClubAPI: Sendable {
    let configuration: ClubServerConfiguration
    let store: FolderStore
    let chaos: ChaosMonkey?
    let counters: Counters
    /// Share links (ClubAPI+Sharing).
    let sharedLinks: SharedLinks
    /// Open connections, in all and per client address (ConnectionLimits).
    let admission: ConnectionAdmission
    /// Past this many open sockets (served or being refused), the server stops accepting.
    let acceptCap: Int
    /// Who each token speaks for, and the requests in flight of each (to cut them on removal).
    let authenticator: Authenticator
    /// `search_v2` over note contents (`filename_only: false`); its index opens on first use.
    let contentSearch: ContentSearch
    /// The live channel's rooms (ClubAPI+Live).
    let liveHub: LiveHub

    package init(_ configuration: ClubServerConfiguration) throws {
        self.configuration = configuration
        let registry = configuration.keepsMembers ? MemberRegistry(root: configuration.root) : nil
        let authenticator = Authenticator(sharedToken: configuration.token, members: configuration.members, registry: registry,
                                          logger: configuration.logger, failuresAllowed: configuration.failedAuthenticationsPerMinute)
        self.authenticator = authenticator
        self.store = try FolderStore(root: configuration.root, logger: configuration.logger, sessionExpiry: configuration.sessionExpiry,
                                     showsAuthors: authenticator.hasMembers, journalLimit: configuration.journalLimit,
                                     historyDays: configuration.historyDays)
        self.chaos = configuration.chaos.map { ChaosMonkey(spec: $0, seed: configuration.chaosSeed) }
        self.counters = Counters()
        self.sharedLinks = SharedLinks(metaDirectory: store.metaDirectory, tempDirectory: store.tempDirectory)
        (self.admission, self.acceptCap) = Self.admission(for: configuration)
        self.contentSearch = ContentSearch(metaDirectory: store.metaDirectory)
        let liveHub = LiveHub(directory: store.metaDirectory + "/live", limits: configuration.live, logger: configuration.logger,
                              writers: store.liveWriters,
                              files: configuration.live.serverWrites ? Self.liveNoteFiles(store, logger: configuration.logger) : nil)
        self.liveHub = liveHub
        // A revision of a note written live compacts its room's log, in a plain club: an
        // encrypted club's updates are sealed, and the server cannot read them.
        let folderStore = self.store
        folderStore.liveWriters.whenRevised { room in
            Task {
                guard let path = await folderStore.path(forID: "id:" + room), !Self.inEncryptedClub(path, root: folderStore.root) else { return }
                await liveHub.compact(room: room)
            }
        }
        // A revision of a note its room writes: a change made outside the live note is merged in.
        folderStore.liveWriters.whenCommitted { room in
            Task { await liveHub.committed(room: room) }
        }
    }

    package func application(onBound: @escaping @Sendable (Int) -> Void) throws -> some ApplicationProtocol {
        let router = Router(context: ClubRequestContext.self)
        router.middlewares.add(AccessLog(logger: configuration.logger))
        router.middlewares.add(BodyLimit(contentCap: configuration.maxRequestBodyBytes, contentPaths: [
            Endpoint.upload.route, Endpoint.sessionStart.route, Endpoint.sessionAppend.route, Endpoint.sessionFinish.route,
            Endpoint.clubUploadBatch.route,
        ]))
        // Longpolls need no token, as on Dropbox's notify host (ClubAPI+Changes), but one sent
        // there ties the longpoll to its member. Joining needs only the invite's secret.
        router.middlewares.add(BearerAuth(authenticator: authenticator, exempt: [Self.joinPath], exemptPrefixes: ["/s/"],
                                          optional: [Endpoint.longpoll.route], servedRoot: store.root))
        let api = self
        // RPC endpoints: JSON in, JSON out.
        for (path, handler) in rpcEndpoints() {
            router.post(RouterPath(path)) { request, _ in
                await api.respond { fault in
                    let body = try await api.jsonBody(request)
                    let object = try JSON.object(Data(buffer: body), what: path)
                    let result = try await handler(Arguments(object: object, what: path))
                    return api.jsonResponse(result, fault: fault)
                }
            }
        }
        router.post(RouterPath(Endpoint.download.route)) { request, _ in await api.respond { _ in try await api.download(request) } }
        router.post(RouterPath(Endpoint.upload.route)) { request, _ in await api.respond { fault in try await api.upload(request, fault: fault) } }
        router.post(RouterPath(Endpoint.sessionStart.route)) { request, _ in await api.respond { fault in try await api.sessionStart(request, fault: fault) } }
        router.post(RouterPath(Endpoint.sessionAppend.route)) { request, _ in await api.respond { fault in try await api.sessionAppend(request, fault: fault) } }
        router.post(RouterPath(Endpoint.sessionFinish.route)) { request, _ in await api.respond { fault in try await api.sessionFinish(request, fault: fault) } }
        router.post(RouterPath(Endpoint.sessionFinishBatch.route)) { request, _ in await api.respond { _ in try await api.finishBatch(request) } }
        router.post(RouterPath(Endpoint.thumbnail.route)) { request, _ in await api.respond { _ in try await api.thumbnail(request) } }
        router.post(RouterPath(Endpoint.currentAccount.route)) { request, _ in await api.respond { _ in try await api.currentAccount(request) } }
        router.post(RouterPath(Endpoint.downloadBatch.route)) { request, _ in await api.respond { _ in try await api.downloadBatch(request) } }
        router.post(RouterPath(Endpoint.clubUploadBatch.route)) { request, _ in await api.respond { _ in try await api.uploadBatch(request) } }
        addSharingRoutes(to: router)
        addMemberRoutes(to: router)

        var services: [any Service] = [
            SessionSweeper(store: store, expiry: configuration.sessionExpiry),
            ChangeWatcher(store: store, interval: configuration.rescanInterval),
            ContentIndexer(contentSearch: contentSearch, store: store),
            HistoryPruner(store: store, days: configuration.historyDays, interval: configuration.historyPruneInterval),
        ]
        // A service that returns ends the whole group: the watcher runs only with a registry to watch.
        if authenticator.registry != nil {
            services.append(MemberWatcher(authenticator: authenticator, store: store, interval: configuration.memberPollInterval))
        }
        let plain = ClubChildChannel.builder(limits: configuration.limits, live: configuration.live, admission: admission,
                                             logger: configuration.logger, liveUpgrade: { request, address in await api.liveUpgrade(request, address: address) },
                                             serveLive: { session, inbound, outbound, channel in
                                                 await api.serveLive(session, inbound: inbound, outbound: outbound, channel: channel)
                                             })
        return Application(
            router: router,
            server: try configuration.tls.map { try .tls(plain, tlsConfiguration: $0.tlsConfiguration()) } ?? plain,
            configuration: .init(address: .hostname(configuration.host, port: configuration.port), serverName: nil,
                                 availableConnectionsDelegate: MaximumAvailableConnections(acceptCap, logger: configuration.logger)),
            services: services,
            onServerRunning: { channel in onBound(channel.localAddress?.port ?? 0) },
            logger: configuration.logger
        )
    }

    // MARK: - Plumbing

    /// Runs a handler, applying chaos first and turning `APIError`s into Dropbox-shaped answers.
    func respond(_ body: (Fault) async throws -> Response) async -> Response {
        let fault = chaos?.roll() ?? .none
        switch fault {
        case .rateLimit: return Self.response(for: .rateLimited(retryAfter: 1))
        case .serverError(let code):
            return Response(status: .init(code: code), headers: [.contentType: "text/plain"], body: .init(byteBuffer: ByteBuffer(string: "chaos: server error \(code)")))
        case .stall:
            // Not a byte, until the client gives up (its connection closing cancels this task).
            try? await Task.sleep(for: .seconds(300))
            return Response(status: .serviceUnavailable, headers: [.contentType: "text/plain"], body: .init(byteBuffer: ByteBuffer(string: "chaos: stalled")))
        default: break
        }
        do {
            return try await body(fault)
        } catch let error as APIError {
            return Self.response(for: error)
        } catch let error as HTTPParserError {
            // A body that breaks HTTP (bad chunking, cut short): the client's fault, not ours.
            return Self.response(for: ConnectionAnswer.malformedRequest("the request is not valid HTTP/1.1 (\(error))").apiError)
        } catch is ChaosDrop {
            // Closing the connection is the point: a body that fails makes Hummingbird drop it.
            return Response(status: .ok, headers: [.contentType: "application/json"], body: ResponseBody(contentLength: 2) { _ in throw ChaosDrop() })
        } catch {
            configuration.logger.error("request failed: \(error)")
            return Self.response(for: APIError(status: .internalServerError, contentType: "text/plain", body: Data("Internal error".utf8)))
        }
    }

    static func response(for error: APIError) -> Response {
        var headers: HTTPFields = [.contentType: error.contentType]
        if let retryAfter = error.retryAfter { headers[.retryAfter] = String(retryAfter) }
        return Response(status: error.status, headers: headers, body: .init(byteBuffer: ByteBuffer(bytes: error.body)))
    }

    private func jsonResponse(_ object: Any, fault: Fault) -> Response {
        let data = (object as? RawJSON).map { Data($0.text.utf8) } ?? JSON.data(object)
        return shaped(data, contentType: "application/json", fault: fault)
    }

    /// Applies response-side chaos to a complete body.
    private func shaped(_ data: Data, contentType: String, extraHeaders: HTTPFields = [:], fault: Fault) -> Response {
        var headers: HTTPFields = [.contentType: contentType]
        headers.append(contentsOf: extraHeaders)
        switch fault {
        case .truncate:
            let cut = data.prefix(data.count / 2)
            return Response(status: .ok, headers: headers, body: .init(byteBuffer: ByteBuffer(bytes: cut)))
        case .drop(let fraction):
            // Promise the whole body, send part of it, then close: a connection lost mid-body.
            let cut = Int(Double(data.count) * fraction)
            return Response(status: .ok, headers: headers, body: ResponseBody(contentLength: data.count) { writer in
                try await writer.write(ByteBuffer(bytes: data.prefix(cut)))
                throw ChaosDrop()
            })
        case .slow:
            return Response(status: .ok, headers: headers, body: ResponseBody(contentLength: data.count) { writer in
                let step = max(1, data.count / 20)
                var offset = 0
                while offset < data.count {
                    try await writer.write(ByteBuffer(bytes: data[offset..<min(data.count, offset + step)]))
                    offset += step
                    try await Task.sleep(for: .milliseconds(50))
                }
                try await writer.finish(nil)
            })
        default:
            return Response(status: .ok, headers: headers, body: .init(byteBuffer: ByteBuffer(bytes: data)))
        }
    }

    /// The JSON argument of a content endpoint, from `Dropbox-API-Arg` (or the `arg` query).
    func argument(_ request: Request, what: String) throws(APIError) -> Arguments { try Self.argument(request, what: what) }

    /// ``argument(_:what:)`` where no API is at hand (the authentication, before the handler).
    static func argument(_ request: Request, what: String) throws(APIError) -> Arguments {
        let headerName = HTTPField.Name("Dropbox-API-Arg")!
        guard let text = request.headers[headerName] ?? request.uri.queryParameters.get("arg") else {
            throw .badRequest("\(what): missing the Dropbox-API-Arg header")
        }
        return try Arguments(headerText: text, what: what)
    }

    private func path(_ arguments: Arguments, _ key: String = "path") throws(APIError) -> DropboxPath {
        try DropboxPath.checked(try arguments.string(key))
    }

    // MARK: - RPC endpoints

    private typealias Handler = @Sendable (Arguments) async throws -> Any

    private func rpcEndpoints() -> [(String, Handler)] {
        [
            (Endpoint.listFolder.route, listFolder),
            (Endpoint.listFolderContinue.route, listFolderContinue),
            (Endpoint.getLatestCursor.route, getLatestCursor),
            (Endpoint.longpoll.route, longpoll),
            (Endpoint.getMetadata.route, getMetadata),
            (Endpoint.delete.route, delete),
            (Endpoint.move.route, move),
            (Endpoint.createFolder.route, createFolder),
        ] + searchEndpoints() + revisionEndpoints() + accountEndpoints()
            + tagEndpoints()
    }

    private func getMetadata(_ arguments: Arguments) async throws -> Any {
        let target = try path(arguments)
        guard !target.isRoot else { throw APIError.badRequest("get_metadata: the root folder is unsupported") }
        return RawJSON(text: try await store.metadata(target).jsonText)
    }

    /// The furthest a search cursor may page: far beyond any folder's hits, far below overflow.
    static let maxSearchOffset = 1 << 40

    struct SearchCursor: Codable {
        var query: String
        var path: String
        var extensions: [String]
        var offset: Int
        var limit: Int
        var categories: [FileCategory]? = nil
        var deleted: Bool? = nil
        var newestFirst: Bool? = nil
        /// Contents searched too (`filename_only: false` given): ClubAPI+ContentSearch.
        var contents: Bool? = nil
        /// The first page was read from the files, the index not being built: later pages are
        /// too, so that they follow the first's order (a scan's is the walk's, not a ranking).
        var scanned: Bool? = nil
    }

    /// `search_v2` and its continuation on Dropbox's routes, and on the club's own, whose content
    /// matches also carry `byteclub_line`.
    private func searchEndpoints() -> [(String, @Sendable (Arguments) async throws -> Any)] {
        [
            (Endpoint.search.route, { arguments in try await self.search(arguments, lines: false) }),
            (Endpoint.searchContinue.route, { arguments in try await self.searchContinue(arguments, lines: false) }),
            (Endpoint.clubSearch.route, { arguments in try await self.search(arguments, lines: true) }),
            (Endpoint.clubSearchContinue.route, { arguments in try await self.searchContinue(arguments, lines: true) }),
        ]
    }

    /// `lines`: each match of a content search carries `byteclub_line` (the club's own route).
    private func search(_ arguments: Arguments, lines: Bool) async throws -> Any {
        let query = try arguments.string("query")
        // Options hold unions (file_status, order_by, file_categories): decoded as wire types.
        let options = try arguments.decode(SearchOptions.self, "options") ?? SearchOptions()
        let scope = try DropboxPath.checked(options.path ?? "")
        let limit = options.maxResults ?? 100
        guard (1...1000).contains(limit) else { throw APIError.badRequest("search_v2: 'max_results' must be between 1 and 1000") }
        let extensions = options.fileExtensions ?? []
        let categories = options.fileCategories ?? []
        guard !query.isEmpty || !extensions.isEmpty || !categories.isEmpty else { throw APIError.badRequest("search_v2: 'query' must not be empty") }
        return try await searchPage(SearchCursor(
            query: query, path: scope.display, extensions: extensions, offset: 0, limit: limit,
            categories: categories.isEmpty ? nil : categories, deleted: options.fileStatus == .deleted ? true : nil,
            newestFirst: options.orderBy == .lastModifiedTime ? true : nil,
            // Only an explicit false: callers that leave it out keep today's name search.
            contents: options.filenameOnly == false ? true : nil), lines: lines)
    }

    private func searchContinue(_ arguments: Arguments, lines: Bool) async throws -> Any {
        let cursor = try Self.decodeCursor(SearchCursor.self, try arguments.string("cursor"), what: "search/continue_v2")
        // The cursor is the client's to forge: a negative offset trapped `dropFirst`, and offset
        // plus limit could overflow. Within these bounds every sum on them fits an Int.
        guard (0...Self.maxSearchOffset).contains(cursor.offset), (1...1000).contains(cursor.limit) else {
            throw APIError.badRequest("search/continue_v2: invalid cursor")
        }
        return try await searchPage(cursor, lines: lines)
    }

    private func searchPage(_ cursor: SearchCursor, lines: Bool) async throws -> Any {
        if cursor.contents == true { return try await contentSearchPage(cursor, lines: lines) }
        let scope = try DropboxPath.checked(cursor.path)
        // Nothing here is ever deleted-but-remembered, so a search of deleted files finds nothing.
        let found = cursor.deleted == true ? [] : try await store.search(
            scope: scope, query: cursor.query, extensions: cursor.extensions, categories: cursor.categories ?? [],
            newestFirst: cursor.newestFirst ?? false)
        let page = found.dropFirst(cursor.offset).prefix(cursor.limit)
        var next = cursor
        next.offset = cursor.offset + page.count
        let hasMore = next.offset < found.count
        // Written by hand like listings; keys sorted, as Dropbox and our encoder write them.
        var text = "{"
        if hasMore {
            text += "\"cursor\":"
            DropboxJSON.appendQuoted(Self.encodeCursor(next), to: &text)
            text += ","
        }
        text += "\"has_more\":" + (hasMore ? "true" : "false") + ",\"matches\":["
        for (index, entry) in page.enumerated() {
            text += index > 0 ? ",{" : "{"
            text += "\"match_type\":{\".tag\":\"filename\"},\"metadata\":{\".tag\":\"metadata\",\"metadata\":"
            entry.appendJSON(to: &text)
            text += "}}"
        }
        return RawJSON(text: text + "]}")
    }

    private func delete(_ arguments: Arguments) async throws -> Any {
        let text = try arguments.string("path")
        let target: DropboxPath
        do { target = try DropboxPath.checked(text) } catch { throw APIError.endpoint([.pathLookup, .malformedPath]) }
        // A file later made at this path may take up a deleted file's id: its links end now.
        let deleted = await store.identifiers(under: target)
        let result = JSON.metadataResult(try await store.delete(target))
        await sharedLinks.forget(fileIDs: deleted)
        return result
    }

    private func move(_ arguments: Arguments) async throws -> Any {
        let (from, to, autorename) = try relocation(arguments)
        return JSON.metadataResult(try await store.move(from: from, to: to, autorename: autorename))
    }

    /// `move_v2`'s and `copy_v2`'s arguments, with their errors for a malformed path.
    func relocation(_ arguments: Arguments) throws -> (from: DropboxPath, to: DropboxPath, autorename: Bool) {
        let fromText = try arguments.string("from_path")
        let toText = try arguments.string("to_path")
        let from: DropboxPath
        let to: DropboxPath
        do { from = try DropboxPath.checked(fromText) } catch { throw APIError.endpoint([.fromLookup, .malformedPath]) }
        do { to = try DropboxPath.checked(toText) } catch { throw APIError.endpoint([.to, .malformedPath]) }
        return (from, to, try arguments.bool("autorename", default: false))
    }

    private func createFolder(_ arguments: Arguments) async throws -> Any {
        let target = try path(arguments)
        let autorename = try arguments.bool("autorename", default: false)
        return JSON.metadataResult(try await store.createFolder(target, autorename: autorename))
    }

    static func encodeCursor<T: Encodable>(_ value: T) -> String {
        let data = (try? JSONEncoder().encode(value)) ?? Data()
        return data.base64EncodedString().replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
    }

    private static func decodeCursor<T: Decodable>(_ type: T.Type, _ text: String, what: String) throws(APIError) -> T {
        let base64 = text.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        guard let data = Data(base64Encoded: base64), let value = try? JSONDecoder().decode(type, from: data) else {
            throw .badRequest("\(what): invalid cursor")
        }
        return value
    }
}

/// What the server has seen, for tests and benchmarks.
final class Counters: Sendable {
    let bodyBytesReceived = Atomic<Int64>(0)
    let uploadRequests = Atomic<Int>(0)
}

/// Thrown from a response body to cut the connection (chaos `drop`).
struct ChaosDrop: Error {}

/// One line per request: method, path, status, milliseconds, and the `Range` asked for (a
/// resumed download shows as `range=bytes=N-`). Never other headers (tokens live there).
struct AccessLog: RouterMiddleware {
    typealias Context = ClubRequestContext
    let logger: Logger

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        let start = ContinuousClock.now
        let range = request.headers[.range].map { " range=\($0)" } ?? ""
        let path = ClubAPI.loggedPath(request.uri.path)
        do {
            let response = try await next(request, context)
            let elapsed = ContinuousClock.now - start
            logger.info("\(request.method) \(path) \(response.status.code) \(elapsed.components.seconds * 1000 + elapsed.components.attoseconds / 1_000_000_000_000_000)ms\(range)")
            return response
        } catch {
            logger.info("\(request.method) \(path) failed: \(error)")
            throw error
        }
    }
}
