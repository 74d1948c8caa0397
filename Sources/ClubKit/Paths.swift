import Durable
import Foundation

/// Where byteclub keeps things on this machine (XDG base directories).
public enum Paths {
    public static var environment: [String: String] { ProcessInfo.processInfo.environment }
    /// One variable of the environment, read where it is: ``environment`` builds a dictionary of
    /// every variable each time it is asked, which the paths of a start asked for a dozen times
    /// (5% of a `byteclub cat`'s CPU).
    public static func variable(_ name: String) -> String? { getenv(name).map { String(cString: $0) } }
    public static var home: URL { URL(fileURLWithPath: variable("HOME") ?? NSHomeDirectory()) }

    private static func xdg(_ name: String, _ fallback: String) -> URL {
        if let value = variable(name), value.hasPrefix("/") { return URL(fileURLWithPath: value) }
        return home.appendingPathComponent(fallback)
    }

    public static var dataHome: URL { xdg("XDG_DATA_HOME", ".local/share") }
    public static var stateHome: URL { xdg("XDG_STATE_HOME", ".local/state") }
    public static var configHome: URL { xdg("XDG_CONFIG_HOME", ".config") }
    public static var cacheHome: URL { xdg("XDG_CACHE_HOME", ".cache") }

    /// Named remotes and the default one (`byteclub remotes`).
    public static var config: URL { configHome.appendingPathComponent("byteclub/config.toml") }
    /// The embedded club folder (the served root).
    public static var defaultClub: URL { dataHome.appendingPathComponent("byteclub/club") }

    /// byteclub's own folders under the XDG folders, each 0700 (``PrivateFiles``).
    public static var ownFolders: [URL] {
        [configHome, stateHome, cacheHome, dataHome].map { $0.appendingPathComponent("byteclub") }
    }

    /// Sets byteclub's own folders that are there (``ownFolders``) to 0700 where an older
    /// byteclub made them under the umask, so nothing it kept in them then is open to others;
    /// makes none. Every process does it first (a few `lstat`s).
    public static func protectOwnFolders() {
        for folder in ownFolders { PrivateFiles.protect(folder.path) }
    }

    /// Makes `$XDG_DATA_HOME/byteclub` private (0700) before the embedded club's folder is made
    /// in it, when `root` is there (``defaultClub``): byteclub's own folder. The club's folder
    /// and its notes keep the umask, as a served club's do; any other `--data-dir` is the user's.
    public static func makeDataFolder(for root: URL) throws {
        let folder = dataHome.appendingPathComponent("byteclub")
        guard root.standardizedFileURL.deletingLastPathComponent().path == folder.standardizedFileURL.path else { return }
        try PrivateFiles.folder(folder)
    }
    public static var state: URL { stateHome.appendingPathComponent("byteclub") }
    public static var tokens: URL { state.appendingPathComponent("tokens.json") }
    public static var resumeData: URL { state.appendingPathComponent("resume") }
    /// Where every club's drafts folder is (``drafts(_:)``). Drafts written by a byteclub from
    /// before drafts were kept per club are the `.json` files directly in it: each goes to the
    /// one club it is known to be from (``Backend/adoptOlderDrafts()``), and the rest stay here,
    /// kept aside, shown in no club and sent to none (`byteclub outbox` lists them).
    public static var olderDrafts: URL { state.appendingPathComponent("drafts") }
    /// The drafts of the club `key` names (``Backend/key``): a draft is one club's, never shown in
    /// or saved to another (`$XDG_STATE_HOME/byteclub/drafts/KEY`).
    public static func drafts(_ key: String) -> URL { olderDrafts.appendingPathComponent(key) }
    public static var thumbnails: URL { cacheHome.appendingPathComponent("byteclub/thumbnails") }
    public static var log: URL { state.appendingPathComponent("byteclub.log") }
    public static var downloads: URL { home.appendingPathComponent("Downloads/byteclub") }
    /// What waits to be sent to the club `key` names (``Backend/key``).
    public static func outbox(_ key: String) -> URL { state.appendingPathComponent("outbox").appendingPathComponent(key) }
    /// The club `key` names, cached for offline starts: listings and opened notes.
    public static func cache(_ key: String) -> URL { cacheHome.appendingPathComponent("byteclub").appendingPathComponent(key) }

    /// A folder name for a club: its URL (or `embedded`, `dropbox`) as a ``StorageName``, so two
    /// clubs never share a folder (drafts, outbox, cache, index). The embedded club adds its
    /// folder, since each `--data-dir` is a club, and Dropbox its `account` id, since every login
    /// is another Dropbox behind the same URL (`dropbox-dbid_3aAAH4f…`: ids are kept as they
    /// are, case and all).
    public static func key(displayName: String, embeddedRoot: URL? = nil, folder: String = "/byteclub", account: String? = nil) -> String {
        var name = displayName.lowercased()
        if let account { name += "-" + account }
        // Another app folder on the same server is another club (a named remote's `folder`).
        if folder.lowercased() != "/byteclub" { name += "-" + folder.lowercased() }
        if let embeddedRoot { name += "-" + String(UInt64(bitPattern: Int64(embeddedRoot.standardizedFileURL.path.hashValueStable)), radix: 16) }
        return StorageName.make(name)
    }
}
