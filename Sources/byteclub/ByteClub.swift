import ArgumentParser
import Foundation

/// The byteclub command line.
@main
struct ByteClub: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "byteclub",
        abstract: "A terminal client for a club's shared folder of notes and photos.",
        discussion: "Run with no arguments for the terminal UI on an embedded club server. `byteclub serve` shares a folder with your club over the Dropbox v2 API subset. ls, get, put, rm, mv and cp script a club folder, log and restore reach its earlier revisions, and watch prints its changes as they happen: the embedded one (--data-dir), a club server (--server, --token), a WebDAV folder (--webdav, --user) or your Dropbox (--dropbox, after `byteclub login dropbox`), or one named in $XDG_CONFIG_HOME/byteclub/config.toml (--remote NAME; its `default` when no other is given; `byteclub remotes` lists them).",
        version: "0.1.0",
        subcommands: [Open.self, Serve.self, Ls.self, Get.self, Put.self, Rm.self, Mv.self, Cp.self, Log.self, Restore.self, Watch.self, OutboxCommand.self, Tag.self,
                      Search.self,
                      Login.self, Logout.self, Remotes.self, Share.self, Unshare.self,
                      TransfersCommand.self, AgentCommand.self],
        defaultSubcommand: Open.self
    )
}

