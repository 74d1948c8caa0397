import ArgumentParser
import ByteClubConfig
import ClubKit
import Foundation
import Logging
import Remote

/// Named remotes on every command: `--remote NAME`, or the config's `default` when no backend
/// flag is given.
extension BackendOptions {
    /// Whether a flag already names the folder, so the config's `default` does not apply.
    var namesBackend: Bool { server != nil || dropbox || webdav != nil || dataDir != nil }

    /// `--remote` with another backend flag is ambiguous: say so instead of picking one.
    func validateRemote() throws {
        guard let remote else { return }
        if remote.isEmpty { throw ValidationError("--remote needs a name (see byteclub remotes)") }
        if namesBackend { throw ValidationError("use either --remote or --server, --webdav, --dropbox or --data-dir, not both") }
    }

    /// The remote this command uses from the config, or nil: `--remote NAME`, else the config's
    /// `default` when no backend flag is given. No config file means the flags as given (the
    /// embedded server by default), and the config is not read at all when a flag names the
    /// backend.
    func resolveRemote(configFile: URL = Paths.config) throws(ConfigError) -> (ClubConfig, RemoteConfig)? {
        if remote == nil && namesBackend { return nil }
        guard let config = try ClubConfig.load(from: configFile) else {
            guard let remote else { return nil }
            throw ConfigError(file: configFile, line: nil, key: nil, message: "no such file, so no remote named \"\(remote)\" (see byteclub remotes)")
        }
        if let remote { return (config, try config.remote(named: remote)) }
        guard let name = config.defaultName else { return nil }
        return (config, try config.remote(named: name, key: "default"))
    }

    /// Connects to the configured remote, or nil when there is none (then the flags as given).
    ///
    /// A club or Dropbox remote becomes the flags it stands for (`--server` and its token, or
    /// `--dropbox`), so it connects exactly as those flags do.
    func connectConfigured(serverLogLevel: Logger.Level, retry: RetryPolicy, offlineStart: Bool = false) async throws -> Backend? {
        let resolved: (ClubConfig, RemoteConfig)?
        do {
            resolved = try resolveRemote()
        } catch {
            throw Remotes.exit(error)
        }
        guard let (config, remote) = resolved else { return nil }
        var options = self
        options.remote = nil
        switch remote.kind {
        case .club:
            options.server = remote.url?.absoluteString
            options.pin = remote.pin
            if remote.pin == nil, let url = remote.url, url.scheme?.lowercased() == "https" {
                options.pin = try await FirstUse.pin(for: url, remote: remote, config: config)
            }
            // An explicit --token wins; then the remote's own; then BYTECLUB_TOKEN (connect's fallback).
            if options.token == nil {
                do {
                    options.token = try config.token(for: remote)
                } catch {
                    throw Remotes.exit(error)
                }
            }
            if options.token == nil, (Paths.environment["BYTECLUB_TOKEN"] ?? "").isEmpty {
                let line = ConfigLines.line(of: ["remote", remote.name], in: config.text)
                throw Remotes.exit(ConfigError(file: config.file, line: line, key: "remote.\(remote.name)",
                                               message: "remote \"\(remote.name)\" needs a token: token_command = \"…\" (or --token, or BYTECLUB_TOKEN)"))
            }
        case .dropbox:
            options.dropbox = true
        case .webdav:
            // The config's check makes both present for a webdav remote.
            guard let url = remote.url, let user = remote.user else { throw ValidationError("remote \"\(remote.name)\" needs a url and a user") }
            // BYTECLUB_WEBDAV_PASSWORD, then password_command, then the prompt.
            let password: String
            do {
                password = try config.password(for: remote) ?? WebDAVPassword.obtain(user: user, url: url)
            } catch let error as ConfigError {
                throw Remotes.exit(error)
            }
            var backend = try await Backend.connectWebDAV(url: url, user: user, password: password, connection: connection, retry: retry,
                                                          limits: limits, offlineStart: offlineStart)
            backend.folder = remote.folder
            backend.downloadDirectory = remote.downloadDirectory
            backend.label = remote.name
            return backend
        }
        var backend = try await options.connectPlain(serverLogLevel: serverLogLevel, retry: retry)
        backend.folder = remote.folder
        backend.downloadDirectory = remote.downloadDirectory
        backend.label = remote.name
        return backend
    }

    /// Names what a download's resume data belongs to: the same file from another backend must
    /// never resume from it.
    var resumeIdentity: String {
        if let (_, remote) = (try? resolveRemote()) ?? nil {
            return "remote:" + remote.name + "\n" + (remote.url?.absoluteString ?? remote.kind.rawValue)
        }
        return webdav.map { "webdav:" + $0 } ?? server ?? (dropbox ? "dropbox" : "embedded:" + (dataDir ?? ""))
    }
}
