import Agent
import ArgumentParser
import ClubKit
import Foundation
import ByteClubConfig
import Remote

/// Between the command line and the background agent: which club the flags name, as the
/// agent's ``AgentRemote`` (the agent's stores are ClubKit's ``AgentStores``).
extension BackendOptions {
    /// The club as the agent needs it, with its secret resolved here (flags, BYTECLUB_TOKEN,
    /// BYTECLUB_WEBDAV_PASSWORD or the prompt), so the agent never asks anyone anything.
    /// A named remote from config.toml is resolved to its kind, URL and secret the same way.
    public func agentRemote() throws -> AgentRemote {
        var options = self
        if let (config, remote) = try resolveRemote() {
            options.remote = nil
            var made = try options.agentRemote(resolved: config, remote)
            made.folder = remote.folder
            return made
        }
        return try options.agentRemote(webdavPassword: nil)
    }

    /// A named remote's kind, URL and secret, as flags would give them.
    private func agentRemote(resolved config: ClubConfig, _ remote: RemoteConfig) throws -> AgentRemote {
        var options = self
        switch remote.kind {
        case .club:
            options.server = remote.url?.absoluteString
            options.pin = remote.pin
            if options.token == nil { options.token = try config.token(for: remote) }
        case .dropbox:
            options.dropbox = true
        case .webdav:
            options.webdav = remote.url?.absoluteString
            options.user = remote.user
            if let password = try config.password(for: remote) {
                return try options.agentRemote(webdavPassword: password)
            }
        }
        return try options.agentRemote(webdavPassword: nil)
    }

    private func agentRemote(webdavPassword: String?) throws -> AgentRemote {
        let limit = bandwidthLimit
        if let webdav, let url = URL(string: webdav) {
            let password = try webdavPassword ?? WebDAVPassword.obtain(user: user ?? "", url: url)
            return AgentRemote(kind: .webdav, key: "webdav:" + (user ?? "") + "@" + webdav, url: webdav, secret: password, user: user,
                               bandwidthLimit: limit, idleTimeout: timeout)
        }
        if dropbox {
            return AgentRemote(kind: .dropbox, key: "dropbox:" + (dropboxApi ?? "") + Paths.tokens.path, url: dropboxApi,
                               bandwidthLimit: limit, idleTimeout: timeout)
        }
        if let server {
            guard let secret = token ?? Paths.variable("BYTECLUB_TOKEN"), !secret.isEmpty else {
                throw ValidationError("--server needs --token (or BYTECLUB_TOKEN)")
            }
            return AgentRemote(kind: .club, key: "club:" + server, url: server, secret: secret, bandwidthLimit: limit, idleTimeout: timeout, pin: pin)
        }
        let root = (dataDir.map { URL(fileURLWithPath: $0) } ?? Paths.defaultClub).standardizedFileURL.path
        return AgentRemote(kind: .embedded, key: "embedded:" + root, dataDir: root, bandwidthLimit: limit, idleTimeout: timeout)
    }

    /// `--bwlimit` in bytes a second, for a transfer handed to the agent (which keeps it).
    var bandwidthLimit: Int64? { bwlimit.flatMap(Self.parseRate) }

    /// The agent's place for the club these flags name.
    public static func agentPlace(_ remote: AgentRemote) throws -> AgentPlace {
        try AgentPlace(key: remote.key, stateFolder: Paths.state)
    }
}
