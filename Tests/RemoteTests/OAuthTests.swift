import Crypto
import Foundation
import TestSupport
import Hummingbird
import Remote
import Synchronization
import Transfer
import XCTest

/// A fake Dropbox: an OAuth token endpoint that checks PKCE, and an API that can say 429 or
/// "expired token" on cue.
final class FakeDropbox: Sendable {
    struct State {
        var challenge: String?
        var issued = 0
        var refreshes = 0
        var validAccessToken = "at-1"
        var listCalls = 0
        var rateLimitFirst = 0
        var plainTextRateLimit = false
        var expireFirst = false
        var requestTimes: [Date] = []
    }
    final class Shared: Sendable {
        let mutex = Mutex(State())
        func withLock<R>(_ body: (inout State) -> R) -> R { mutex.withLock { body(&$0) } }
    }
    let state = Shared()
    private let task: GracefulServer
    let baseURL: URL

    init() async throws {
        let router = Router()
        let state = self.state
        router.post("/oauth2/token") { request, _ -> Response in
            var request = request
            let body = String(buffer: try await request.collectBody(upTo: 1 << 16))
            var form: [String: String] = [:]
            for pair in body.split(separator: "&") {
                let parts = pair.split(separator: "=", maxSplits: 1).map { String($0).removingPercentEncoding ?? "" }
                if parts.count == 2 { form[parts[0]] = parts[1] }
            }
            func json(_ object: [String: Any], status: HTTPResponse.Status = .ok) -> Response {
                Response(status: status, headers: [.contentType: "application/json"],
                         body: .init(byteBuffer: ByteBuffer(bytes: try! JSONSerialization.data(withJSONObject: object))))
            }
            switch form["grant_type"] {
            case "authorization_code":
                let verifier = form["code_verifier"] ?? ""
                let digest = Data(SHA256.hash(data: Data(verifier.utf8))).base64EncodedString()
                    .replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_").replacingOccurrences(of: "=", with: "")
                guard form["code"] == "good-code", form["client_id"] == "app-key", digest == state.withLock({ $0.challenge }) else {
                    return json(["error": "invalid_grant", "error_description": "code doesn't exist or has expired"], status: .badRequest)
                }
                state.withLock { $0.issued += 1 }
                return json(["access_token": "at-1", "expires_in": 14400, "token_type": "bearer", "refresh_token": "rt-1", "account_id": "dbid:x"])
            case "refresh_token":
                guard form["refresh_token"] == "rt-1", form["client_id"] == "app-key" else {
                    return json(["error": "invalid_grant"], status: .badRequest)
                }
                let token = state.withLock { state -> String in
                    state.refreshes += 1
                    state.validAccessToken = "at-\(state.refreshes + 1)"
                    return state.validAccessToken
                }
                return json(["access_token": token, "expires_in": 14400, "token_type": "bearer"])
            default:
                return json(["error": "unsupported_grant_type"], status: .badRequest)
            }
        }
        router.post("/2/files/list_folder") { request, _ -> Response in
            let (limited, plain, expired, valid) = state.withLock { state -> (Bool, Bool, Bool, String) in
                state.listCalls += 1
                state.requestTimes.append(Date())
                let limited = state.rateLimitFirst > 0
                if limited { state.rateLimitFirst -= 1 }
                let expired = state.expireFirst
                state.expireFirst = false
                return (limited, state.plainTextRateLimit, expired, state.validAccessToken)
            }
            if limited {
                if plain {
                    return Response(status: .tooManyRequests, headers: [.contentType: "text/plain"], body: .init(byteBuffer: ByteBuffer(string: "Too many requests")))
                }
                return Response(status: .tooManyRequests, headers: [.contentType: "application/json", .retryAfter: "1"],
                                body: .init(byteBuffer: ByteBuffer(string: #"{"error_summary":"too_many_requests/..","error":{"reason":{".tag":"too_many_requests"},"retry_after":1}}"#)))
            }
            if expired || request.headers[.authorization] != "Bearer \(valid)" {
                return Response(status: .unauthorized, headers: [.contentType: "application/json"],
                                body: .init(byteBuffer: ByteBuffer(string: #"{"error_summary":"expired_access_token/..","error":{".tag":"expired_access_token"}}"#)))
            }
            return Response(status: .ok, headers: [.contentType: "application/json"],
                            body: .init(byteBuffer: ByteBuffer(string: #"{"entries":[{".tag":"file","name":"a.txt","id":"id:a","path_lower":"/a.txt","path_display":"/a.txt","client_modified":"2026-11-21T20:56:10Z","server_modified":"2026-11-21T20:56:10Z","rev":"0123456789a","size":1,"content_hash":"x","is_downloadable":true}],"cursor":"c","has_more":false}"#)))
        }
        let port = Mutex<Int?>(nil)
        let ready = DispatchSemaphore(value: 0)
        let app = Application(router: router, configuration: .init(address: .hostname("127.0.0.1", port: 0)),
                              onServerRunning: { channel in port.withLock { $0 = channel.localAddress?.port }; ready.signal() })
        task = GracefulServer(app)
        await withCheckedContinuation { continuation in
            DispatchQueue.global().async {
                _ = ready.wait(timeout: .now() + 20)
                continuation.resume()
            }
        }
        baseURL = URL(string: "http://127.0.0.1:\(port.withLock { $0 } ?? 0)")!
    }

    var oauth: OAuthEndpoints {
        OAuthEndpoints(authorize: URL(string: "https://www.dropbox.com/oauth2/authorize")!, token: baseURL.appendingPathComponent("oauth2/token"),
                       revoke: baseURL.appendingPathComponent("2/auth/token/revoke"))
    }

    func stop() {
        task.stop()
    }
}

final class OAuthTests: XCTestCase {
    var fake: FakeDropbox!
    var directory: URL!

    override func setUp() async throws {
        fake = try await FakeDropbox()
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("oauth-\(UUID().uuidString)")
    }

    override func tearDown() async throws {
        fake?.stop()
        try? FileManager.default.removeItem(at: directory)
    }

    func testPKCEChallengeIsS256OfTheVerifier() {
        // RFC 7636, appendix B.
        let pkce = PKCE(verifier: "dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk")
        XCTAssertEqual(pkce.challenge, "E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM")
        let generated = PKCE.generate()
        XCTAssertEqual(generated.verifier.count, 64)
        XCTAssertNotEqual(generated.verifier, PKCE.generate().verifier)
    }

    func testLoginExchangeStoreAndRefresh() async throws {
        let client = OAuthClient(appKey: "app-key", endpoints: fake.oauth)
        let pkce = PKCE.generate()
        let url = client.authorizeURL(pkce)
        let query = Dictionary(uniqueKeysWithValues: (URLComponents(url: url, resolvingAgainstBaseURL: false)?.queryItems ?? []).map { ($0.name, $0.value ?? "") })
        XCTAssertEqual(url.host, "www.dropbox.com")
        XCTAssertEqual(query["client_id"], "app-key")
        XCTAssertEqual(query["response_type"], "code")
        XCTAssertEqual(query["token_access_type"], "offline")
        XCTAssertEqual(query["code_challenge_method"], "S256")
        fake.state.withLock { $0.challenge = query["code_challenge"] }

        // A wrong verifier (someone else's code) is refused with the server's reason.
        await assertThrows(.local("Dropbox refused the login: code doesn't exist or has expired")) { () async throws(RemoteError) in
            try await client.exchange(code: "good-code", pkce: PKCE.generate())
        }
        let now = Date()
        let tokens = try await client.exchange(code: " good-code\n", pkce: pkce, now: now)
        XCTAssertEqual(tokens.accessToken, "at-1")
        XCTAssertEqual(tokens.refreshToken, "rt-1")
        XCTAssertEqual(tokens.expiresAt.timeIntervalSince(now), 14400, accuracy: 1)

        let file = TokenFile(url: directory.appendingPathComponent("state/byteclub/tokens.json"))
        try file.save(tokens)
        let mode = try FileManager.default.attributesOfItem(atPath: file.url.path)[.posixPermissions] as? Int
        XCTAssertEqual(mode, 0o600)
        XCTAssertEqual(try file.load(), tokens)

        // Five minutes before expiry the provider refreshes, and writes the new token back.
        let clock = Mutex(now)
        let provider = try OAuthTokens(file: file, client: client, clock: { clock.withLock { $0 } })
        XCTAssertEqual(provider.credential, .dropboxLogin, "a refused Dropbox token says to log in again")
        let first = try await provider.accessToken()
        XCTAssertEqual(first, "at-1")
        clock.withLock { $0 = now.addingTimeInterval(14400 - 200) }
        let second = try await provider.accessToken()
        XCTAssertEqual(second, "at-2")
        XCTAssertEqual(try file.load().accessToken, "at-2")
        XCTAssertEqual(fake.state.withLock { $0.refreshes }, 1)
        XCTAssertFalse(String(decoding: try Data(contentsOf: file.url), as: UTF8.self).isEmpty)
    }

    /// The account id that `byteclub` writes into an older token file after the provider read
    /// it survives the provider's next refresh, which saves the file again: losing it would name
    /// the account's outbox differently on the next offline start and strand what waits there.
    func testARefreshKeepsAnAccountIDWrittenAfterTheFileWasRead() async throws {
        let client = OAuthClient(appKey: "app-key", endpoints: fake.oauth)
        let file = TokenFile(url: directory.appendingPathComponent("tokens.json"))
        let now = Date()
        try file.save(StoredTokens(accessToken: "at-1", refreshToken: "rt-1", expiresAt: now.addingTimeInterval(3600), appKey: "app-key"))
        let clock = Mutex(now)
        let provider = try OAuthTokens(file: file, client: client, clock: { clock.withLock { $0 } })
        var learned = try file.load()
        learned.accountID = "dbid:AAH4f99T0taONIb-OurWxbNQ6ywGRopQngc"
        try file.save(learned)
        clock.withLock { $0 = now.addingTimeInterval(3600 - 200) }
        let refreshed = try await provider.accessToken()
        XCTAssertEqual(refreshed, "at-2")
        XCTAssertEqual(try file.load().accessToken, "at-2")
        XCTAssertEqual(try file.load().accountID, "dbid:AAH4f99T0taONIb-OurWxbNQ6ywGRopQngc", "the id is still in the file")
    }

    func testExpiredTokenIsRefreshedAndTheCallRetried() async throws {
        let client = OAuthClient(appKey: "app-key", endpoints: fake.oauth)
        let file = TokenFile(url: directory.appendingPathComponent("tokens.json"))
        try file.save(StoredTokens(accessToken: "at-1", refreshToken: "rt-1", expiresAt: Date().addingTimeInterval(3600), appKey: "app-key"))
        fake.state.withLock { $0.expireFirst = true }
        let store = DropboxStore(displayName: "dropbox", endpoints: .club(fake.baseURL), tokens: try OAuthTokens(file: file, client: client))
        let entries = try await store.list("")
        XCTAssertEqual(entries.map(\.name), ["a.txt"])
        XCTAssertEqual(fake.state.withLock { $0.refreshes }, 1)
        XCTAssertEqual(fake.state.withLock { $0.listCalls }, 2)
    }

    func testRateLimitThenSuccessHonoursRetryAfter() async throws {
        fake.state.withLock { $0.rateLimitFirst = 1 }
        let store = DropboxStore(displayName: "fake", endpoints: .club(fake.baseURL), tokens: StaticToken("at-1"))
        let entries = try await store.list("")
        XCTAssertEqual(entries.count, 1)
        let times = fake.state.withLock { $0.requestTimes }
        XCTAssertEqual(times.count, 2)
        XCTAssertGreaterThanOrEqual(times[1].timeIntervalSince(times[0]), 0.95, "waited for Retry-After: 1")

        // A plain-text 429 with no header still waits (a default second) and then succeeds.
        fake.state.withLock { $0.rateLimitFirst = 1; $0.plainTextRateLimit = true; $0.requestTimes = [] }
        _ = try await store.list("")
        let plain = fake.state.withLock { $0.requestTimes }
        XCTAssertEqual(plain.count, 2)
        XCTAssertGreaterThanOrEqual(plain[1].timeIntervalSince(plain[0]), 0.95)
    }
}
