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

    /// The remote this command uses from the config, or nil (``ClubConnector/resolveRemote(_:configFile:)``).
    public func resolveRemote(configFile: URL = Paths.config) throws(ConfigError) -> (ClubConfig, RemoteConfig)? {
        try ClubConnector.resolveRemote(target, configFile: configFile)
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
