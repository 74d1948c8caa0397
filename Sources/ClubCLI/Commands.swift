import ArgumentParser

/// The command line's shell, a library as the app's is: every command but the app's own
/// (`open`, started by the executable), in the order `byteclub help` lists them.
public enum ClubCLI {
    /// byteclub's version (`byteclub --version`, the user agent, the agent's handshake).
    public static let version = "0.1.0"

    public static var commands: [any ParsableCommand.Type] {
        [Serve.self, Ls.self, Get.self, Put.self, Rm.self, Mv.self, Cp.self, Log.self, Restore.self, Watch.self, OutboxCommand.self, Tag.self,
         Export.self, Import.self, Search.self, Links.self, Cat.self, New.self, Edit.self, Today.self,
         Login.self, Logout.self, Remotes.self, Share.self, Unshare.self,
         TransfersCommand.self, AgentCommand.self, MembersCommand.self, Join.self, Init.self, Rekey.self]
    }
}
