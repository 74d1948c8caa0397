import ArgumentParser
import ClubKit
import Foundation
import Remote

/// `byteclub login dropbox`: OAuth2 PKCE without a redirect. Tokens go to
/// $XDG_STATE_HOME/byteclub/tokens.json with mode 0600.
struct Login: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "login", abstract: "Log in to Dropbox (OAuth2 PKCE).")
    @Argument(help: "The service; only `dropbox`.") var service: String
    @Option(help: "Your Dropbox app key (or BYTECLUB_DROPBOX_APP_KEY).") var appKey: String?
    @Option(help: .hidden) var authorizeUrl: String?
    @Option(help: .hidden) var tokenUrl: String?

    func validate() throws {
        guard service == "dropbox" else { throw ValidationError("only `byteclub login dropbox` is supported") }
    }

    func run() async throws {
        guard let key = appKey ?? Paths.variable("BYTECLUB_DROPBOX_APP_KEY"), !key.isEmpty else {
            throw ValidationError("give your Dropbox app key with --app-key (create one at the Dropbox App Console)")
        }
        var endpoints = OAuthEndpoints.dropbox
        if let url = authorizeUrl.flatMap(URL.init(string:)) { endpoints.authorize = url }
        if let url = tokenUrl.flatMap(URL.init(string:)) { endpoints.token = url }
        let client = OAuthClient(appKey: key, endpoints: endpoints)
        let pkce = PKCE.generate()
        // Unbuffered: the prompt must show before we wait for input, even through a pipe.
        let prompt = "1. Open this page and allow byteclub:\n\n   \(client.authorizeURL(pkce).absoluteString)\n\n"
            + "2. Paste the code Dropbox shows you, then press Enter: "
        FileHandle.standardOutput.write(Data(prompt.utf8))
        guard let code = readLine(strippingNewline: true), !code.isEmpty else {
            throw fail(.local("No code was entered; nothing changed"))
        }
        do {
            let tokens = try await client.exchange(code: code, pkce: pkce)
            try TokenFile(url: Paths.tokens).save(tokens)
        } catch {
            throw fail(error)
        }
        print("Logged in. Use `byteclub --dropbox` (tokens in \(Paths.tokens.path)).")
    }
}

struct Logout: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "logout", abstract: "Revoke and forget the Dropbox login.")
    @Option(help: .hidden) var revokeUrl: String?

    func run() async throws {
        let file = TokenFile(url: Paths.tokens)
        guard let tokens = try? file.load() else {
            print("Not logged in.")
            return
        }
        var endpoints = OAuthEndpoints.dropbox
        if let url = revokeUrl.flatMap(URL.init(string:)) { endpoints.revoke = url }
        do {
            try await OAuthClient(appKey: tokens.appKey, endpoints: endpoints).revoke(tokens)
        } catch {
            say("could not revoke the token (\(error.message)); forgetting it anyway")
        }
        file.delete()
        print("Logged out.")
    }
}
