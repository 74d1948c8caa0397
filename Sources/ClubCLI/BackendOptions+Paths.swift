import ArgumentParser
import ByteClubConfig
import ClubKit
import Foundation

/// Paths as every command reads them (``ClubPath``): `NAME:PATH` picks a remote of config.toml,
/// and a relative path is inside the club's folder.
extension BackendOptions {
    /// `path` without `NAME:` when NAME is a remote of config.toml, which this command then uses.
    /// A `NAME:` that names no remote is refused (``ClubPath/init(checking:remotes:folder:)``),
    /// never taken as part of a name.
    ///
    /// Called from a command's `validate()`, so a clash is a usage error before anything runs.
    mutating func takeRemote(from path: String) throws -> String {
        let names = ((try? ClubConfig.load(from: Paths.config)) ?? nil).map { Array($0.remotes.keys) } ?? []
        let parsed: ClubPath
        let folder = clubFolder
        do throws(UnknownRemote) {
            parsed = try ClubPath(checking: path, remotes: names, folder: folder)
        } catch {
            throw ValidationError(error.description)
        }
        guard let named = parsed.remote else { return path }
        if let remote, remote != named {
            throw ValidationError("\(path) names the remote \"\(named)\" but --remote says \"\(remote)\"; give one")
        }
        if namesBackend {
            throw ValidationError("\(path) names the remote \"\(named)\"; drop --server, --webdav, --dropbox or --data-dir, or the \"\(named):\"")
        }
        remote = named
        return parsed.text
    }

    /// The club's folder on this command's remote: the named remote's `folder` (or the
    /// config's default remote's, when no flag names another), else `/byteclub`. A config that
    /// does not load leaves `/byteclub`: connecting says what is wrong with it.
    var clubFolder: String {
        ((try? resolveRemote()) ?? nil)?.1.folder ?? "/byteclub"
    }

    /// The absolute path on the store for a path the user typed (``ClubPath/resolve(_:in:)``).
    func clubPath(_ typed: String) -> String {
        ClubPath.resolve(typed, in: clubFolder)
    }
}
