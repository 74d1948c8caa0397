import ClubServer
import DropboxWire
import Foundation
import Transfer
import XCTest

/// A club server on a random loopback port over a temp folder, and a plain HTTP client for it.
final class ServerFixture: @unchecked Sendable {
    // @unchecked Sendable: every property is a `let` of a Sendable type or set once in init.
    let root: URL
    let outside: URL
    let server: ClubServer
    let token: String
    let session = Session(configuration: .ephemeral)
    /// What the server was started with, for `restart()`.
    let configuration: ClubServerConfiguration

    /// - Parameter configure: changes to the server's settings (root and token are set).
    /// - Parameter seed: writes into the folder before the server's first start (a vault copied in).
    init(chaos: ChaosSpec? = nil, configure: (inout ClubServerConfiguration) -> Void = { _ in }, seed: (URL) throws -> Void = { _ in }) async throws {
        let base = FileManager.default.temporaryDirectory.appendingPathComponent("club-tests-\(UUID().uuidString)")
        root = base.appendingPathComponent("club")
        outside = base
        token = "test-token-\(UUID().uuidString)"
        try FileManager.default.createDirectory(at: root, withIntermediateDirectories: true)
        try seed(root)
        var configuration = ClubServerConfiguration(root: root.path, token: token)
        configuration.chaos = chaos
        configuration.logger.logLevel = .warning
        configure(&configuration)
        self.configuration = configuration
        server = try await ClubServer.start(configuration)
    }

    private init(restarting previous: ServerFixture) async throws {
        root = previous.root
        outside = previous.outside
        token = previous.token
        configuration = previous.configuration
        server = try await ClubServer.start(configuration)
    }

    /// Stops this server, keeping its folder, and starts a new one on it with the same settings
    /// (on a new port). Tear down the one returned.
    func restart() async throws -> ServerFixture {
        await stop()
        return try await started()
    }

    /// A second server over this one's folder, running beside it with the same settings (as a
    /// command's embedded server runs beside the app's). Stop it with ``stop()``: the folder is
    /// this one's to remove.
    func beside() async throws -> ServerFixture {
        try await ServerFixture(restarting: self)
    }

    /// Stops this server, keeping its folder, to change the folder while no server runs.
    func stop() async {
        session.invalidateAndCancel()
        await server.stop()
    }

    /// A new server on this stopped one's folder, with the same settings. Tear down the one returned.
    func started() async throws -> ServerFixture {
        try await ServerFixture(restarting: self)
    }

    func tearDown() async {
        session.invalidateAndCancel()
        await server.stop()
        try? FileManager.default.removeItem(at: outside)
    }

    struct Reply {
        var status: Int
        var body: Data
        var headers: HTTPResponse?
        var json: [String: Any] { (try? JSONSerialization.jsonObject(with: body) as? [String: Any]) ?? [:] }
        /// A body that is a JSON list (`get_account_batch`), or nil.
        var jsonArray: [[String: Any]]? { (try? JSONSerialization.jsonObject(with: body)) as? [[String: Any]] }
        var text: String { String(decoding: body, as: UTF8.self) }
        /// `error_summary`'s tags, e.g. "path/not_found".
        var summary: String {
            let value = json["error_summary"] as? String ?? ""
            return value.hasSuffix("/..") ? String(value.dropLast(3)) : value
        }
        func result() -> [String: Any] {
            guard let text = headers?.value(forHeader: "Dropbox-API-Result"), let data = text.data(using: .utf8) else { return [:] }
            return (try? JSONSerialization.jsonObject(with: data) as? [String: Any]) ?? [:]
        }
    }

    /// POSTs to an endpoint and returns whatever came back, errors included.
    func post(_ endpoint: String, body: Data?, headers: [String: String] = [:], token: String? = nil) async throws -> Reply {
        var allHeaders = headers
        if let token = token ?? Optional(self.token), !token.isEmpty { allHeaders["Authorization"] = "Bearer \(token)" }
        let request = Request(url: server.baseURL.appendingPathComponent(endpoint), method: "POST", headers: allHeaders, body: body ?? Data())
        do {
            let (data, response) = try await session.data(for: request)
            return Reply(status: response.statusCode, body: data, headers: response)
        } catch let error {
            if case .httpStatus(let code, let body) = error { return Reply(status: code, body: body, headers: nil) }
            throw error
        }
    }

    /// An RPC call with a JSON argument.
    func rpc(_ endpoint: String, _ argument: Any, token: String? = nil) async throws -> Reply {
        let body = try JSONSerialization.data(withJSONObject: argument)
        return try await post(endpoint, body: body, headers: ["Content-Type": "application/json"], token: token)
    }

    /// A content call: the argument in `Dropbox-API-Arg`, bytes in the body.
    func content(_ endpoint: String, _ argument: Any, body: Data = Data(), extraHeaders: [String: String] = [:]) async throws -> Reply {
        let text = String(decoding: try JSONSerialization.data(withJSONObject: argument), as: UTF8.self)
        var headers = extraHeaders
        headers["Dropbox-API-Arg"] = DropboxJSON.asciiEscaped(text)
        headers["Content-Type"] = "application/octet-stream"
        return try await post(endpoint, body: body, headers: headers)
    }

    @discardableResult
    func upload(_ path: String, _ data: Data, mode: Any = "add", autorename: Bool = false) async throws -> Reply {
        try await content("2/files/upload", ["path": path, "mode": mode, "autorename": autorename], body: data)
    }

    func write(_ relative: String, _ text: String) throws {
        let url = root.appendingPathComponent(relative)
        try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
        try Data(text.utf8).write(to: url)
    }

    func read(_ relative: String) -> String? {
        FileManager.default.contents(atPath: root.appendingPathComponent(relative).path).map { String(decoding: $0, as: UTF8.self) }
    }
}
