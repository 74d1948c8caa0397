import Crypto
import DropboxWire
import Durable
import Foundation
import Transfer

/// Dropbox's OAuth2 endpoints; configurable so tests can use a fake token server.
public struct OAuthEndpoints: Sendable, Equatable {
    public var authorize: URL
    public var token: URL
    public var revoke: URL

    public init(authorize: URL, token: URL, revoke: URL) {
        self.authorize = authorize
        self.token = token
        self.revoke = revoke
    }

    public static let dropbox = OAuthEndpoints(
        authorize: URL(string: "https://www.dropbox.com/oauth2/authorize")!,
        token: URL(string: "https://api.dropboxapi.com/oauth2/token")!,
        revoke: URL(string: "https://api.dropboxapi.com")!.appendingPathComponent(Endpoint.revokeToken.relativePath))
}

/// A PKCE verifier and its S256 challenge (RFC 7636).
public struct PKCE: Sendable {
    public let verifier: String
    public let challenge: String

    public init(verifier: String) {
        self.verifier = verifier
        self.challenge = Self.base64URL(Data(SHA256.hash(data: Data(verifier.utf8))))
    }

    /// 64 random characters from the unreserved set.
    public static func generate() -> PKCE {
        let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~")
        var generator = SystemRandomNumberGenerator()
        return PKCE(verifier: String((0..<64).map { _ in alphabet[Int.random(in: 0..<alphabet.count, using: &generator)] }))
    }

    static func base64URL(_ data: Data) -> String {
        data.base64EncodedString().replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_").replacingOccurrences(of: "=", with: "")
    }
}

/// What `byteclub login dropbox` keeps on disk.
public struct StoredTokens: Codable, Sendable, Equatable {
    public var accessToken: String
    public var refreshToken: String
    public var expiresAt: Date
    public var appKey: String
    /// Whose tokens these are (`account_id` from the token endpoint, or asked with
    /// `users/get_current_account` for a file written before it was kept): the app keeps each
    /// account's outbox and cache apart by it. Nil in older files.
    public var accountID: String?

    public init(accessToken: String, refreshToken: String, expiresAt: Date, appKey: String, accountID: String? = nil) {
        self.accessToken = accessToken
        self.refreshToken = refreshToken
        self.expiresAt = expiresAt
        self.appKey = appKey
        self.accountID = accountID
    }

    enum CodingKeys: String, CodingKey {
        case accessToken = "access_token", refreshToken = "refresh_token", expiresAt = "expires_at", appKey = "app_key", accountID = "account_id"
    }
}

/// `tokens.json`, written atomically with mode 0600.
public struct TokenFile: Sendable {
    public let url: URL

    public init(url: URL) { self.url = url }

    public func load() throws(RemoteError) -> StoredTokens {
        guard let data = FileManager.default.contents(atPath: url.path) else {
            throw .local("Not logged in to Dropbox: run `byteclub login dropbox` first")
        }
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .secondsSince1970
        guard let tokens = try? decoder.decode(StoredTokens.self, from: data) else {
            throw .local("\(url.path) is damaged: run `byteclub login dropbox` again")
        }
        return tokens
    }

    public func save(_ tokens: StoredTokens) throws(RemoteError) {
        let encoder = JSONEncoder()
        encoder.dateEncodingStrategy = .secondsSince1970
        encoder.outputFormatting = [.sortedKeys, .prettyPrinted]
        guard let data = try? encoder.encode(tokens) else { throw .local("cannot encode the tokens") }
        // 0600 from the first byte (DurableFile), so the secret is never readable by others.
        do {
            try DurableFile.write(data, to: url)
        } catch {
            throw .local(error.description)
        }
    }

    public func delete() {
        unlink(url.path)
    }
}

/// The OAuth2 PKCE "no redirect" flow: the user opens a URL, approves, and pastes the code.
public struct OAuthClient: Sendable {
    public let endpoints: OAuthEndpoints
    public let appKey: String
    let session: Session

    public init(appKey: String, endpoints: OAuthEndpoints = .dropbox, configuration: SessionConfiguration = .ephemeral) {
        self.appKey = appKey
        self.endpoints = endpoints
        self.session = Session(configuration: configuration)
    }

    public func authorizeURL(_ pkce: PKCE) -> URL {
        var components = URLComponents(url: endpoints.authorize, resolvingAgainstBaseURL: false)!
        components.queryItems = [
            URLQueryItem(name: "client_id", value: appKey),
            URLQueryItem(name: "response_type", value: "code"),
            URLQueryItem(name: "token_access_type", value: "offline"),
            URLQueryItem(name: "code_challenge", value: pkce.challenge),
            URLQueryItem(name: "code_challenge_method", value: "S256"),
        ]
        return components.url!
    }

    /// Trades the pasted code for tokens.
    public func exchange(code: String, pkce: PKCE, now: Date = Date()) async throws(RemoteError) -> StoredTokens {
        let trimmed = code.trimmingCharacters(in: .whitespacesAndNewlines)
        guard !trimmed.isEmpty else { throw .local("No code was entered") }
        let reply = try await post(["grant_type": "authorization_code", "code": trimmed, "client_id": appKey, "code_verifier": pkce.verifier])
        guard let access = reply["access_token"] as? String, let refresh = reply["refresh_token"] as? String else {
            throw .server(status: 0, detail: "the token endpoint answered without tokens")
        }
        let expiresIn = reply["expires_in"] as? Double ?? 14_400
        return StoredTokens(accessToken: access, refreshToken: refresh, expiresAt: Self.wholeSeconds(now.addingTimeInterval(expiresIn)), appKey: appKey,
                            accountID: reply["account_id"] as? String)
    }

    /// A fresh access token from the refresh token.
    public func refresh(_ tokens: StoredTokens, now: Date = Date()) async throws(RemoteError) -> StoredTokens {
        let reply = try await post(["grant_type": "refresh_token", "refresh_token": tokens.refreshToken, "client_id": tokens.appKey])
        guard let access = reply["access_token"] as? String else { throw .server(status: 0, detail: "the token endpoint answered without a token") }
        var updated = tokens
        updated.accessToken = access
        updated.expiresAt = Self.wholeSeconds(now.addingTimeInterval(reply["expires_in"] as? Double ?? 14_400))
        if let rotated = reply["refresh_token"] as? String { updated.refreshToken = rotated }
        return updated
    }

    /// Expiry times are kept to the second, so they survive the token file's JSON unchanged.
    static func wholeSeconds(_ date: Date) -> Date {
        Date(timeIntervalSince1970: date.timeIntervalSince1970.rounded(.down))
    }

    public func revoke(_ tokens: StoredTokens) async throws(RemoteError) {
        let request = Request(url: endpoints.revoke, method: "POST", headers: ["Authorization": "Bearer \(tokens.accessToken)"], body: Data())
        do {
            _ = try await session.data(for: request)
        } catch {
            // An already invalid token is as good as revoked.
            if case .httpStatus(401, _) = error { return }
            throw DropboxStore.remoteError(error, response: nil, path: "", credential: .dropboxLogin)
        }
    }

    private func post(_ form: [String: String]) async throws(RemoteError) -> [String: Any] {
        var allowed = CharacterSet.alphanumerics
        allowed.insert(charactersIn: "-._~")
        let body = form.sorted { $0.key < $1.key }
            .map { "\($0.key)=\($0.value.addingPercentEncoding(withAllowedCharacters: allowed) ?? "")" }
            .joined(separator: "&")
        let request = Request(url: endpoints.token, method: "POST", headers: ["Content-Type": "application/x-www-form-urlencoded"], body: Data(body.utf8))
        do {
            let (data, _) = try await session.data(for: request)
            return try DropboxStore.object(data)
        } catch let error as RemoteError {
            throw error
        } catch let error as TransferError {
            if case .httpStatus(400, let body) = error {
                // OAuth errors: {"error":"invalid_grant","error_description":"…"}. No secrets in them.
                let object = (try? JSONSerialization.jsonObject(with: body)) as? [String: Any]
                let text = object?["error_description"] as? String ?? object?["error"] as? String ?? "the code was refused"
                throw .local("Dropbox refused the login: \(text)")
            }
            throw DropboxStore.remoteError(error, response: nil, path: "", credential: .dropboxLogin)
        } catch {
            throw .network("\(error)")
        }
    }
}

/// Access tokens for real Dropbox, refreshed five minutes before they expire and whenever the
/// server says one expired. Refreshed tokens are written back to the token file.
public actor OAuthTokens: AccessTokenProvider {
    private var tokens: StoredTokens
    private let file: TokenFile
    private let client: OAuthClient
    private let clock: @Sendable () -> Date

    /// Dropbox's tokens: a refused one takes logging in again.
    public nonisolated var credential: RemoteError.Credential { .dropboxLogin }

    public init(file: TokenFile, client: OAuthClient, clock: @escaping @Sendable () -> Date = { Date() }) throws(RemoteError) {
        self.file = file
        self.client = client
        self.clock = clock
        self.tokens = try file.load()
    }

    public func accessToken() async throws(RemoteError) -> String {
        if tokens.expiresAt.timeIntervalSince(clock()) < 300 {
            try await refresh()
        }
        return tokens.accessToken
    }

    public func refreshAfterExpiry() async -> Bool {
        do {
            try await refresh()
            return true
        } catch {
            return false
        }
    }

    private func refresh() async throws(RemoteError) {
        var fresh = try await client.refresh(tokens, now: clock())
        // The account id may have been written into the file after it was read here (asked of
        // Dropbox once for an older file): keep it, or this save would take it out again.
        if fresh.accountID == nil, let kept = try? file.load(), kept.refreshToken == tokens.refreshToken {
            fresh.accountID = kept.accountID
        }
        tokens = fresh
        try file.save(tokens)
    }
}
