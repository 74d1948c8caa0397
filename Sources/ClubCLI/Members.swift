import ArgumentParser
import ByteClubConfig
import ClubKit
import ClubServer
import DropboxWire
import Foundation
import Durable
import Remote

/// `byteclub members add|list|role|remove`: who is in the club and what each may do.
struct MembersCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "members",
        abstract: "Invite members, list them, change their roles, remove them.",
        discussion: """
        On the server's machine, --root DIR (the served folder, as for `serve`) works on the \
        club's member list directly, whether the server runs or not; a running server sees the \
        change at once. An admin elsewhere uses --remote NAME (a club remote they joined), or, \
        with neither, config.toml's default remote.

        Roles: reader (lists, downloads, searches; every write refused), editor (reads and \
        writes), admin (an editor who also manages members). Removing a member or changing a \
        role ends their open requests at once. Every change is a line in ROOT/.byteclub/audit.log. \
        In an encrypted club, removing a member also takes them out of its keys, as `members \
        revoke` does: a new club key for everything written from then on.
        """,
        subcommands: [Add.self, List.self, Role.self, Remove.self, Admit.self, Revoke.self, Keys.self]
    )

    /// Where the member list is: this machine's served folder, or a remote an admin joined
    /// (named, or config.toml's default, as every other command takes it).
    struct Place: ParsableArguments {
        @Option(help: "The served folder on this machine (as for `serve`).") var root: String?
        @Option(help: "A club remote in config.toml, for an admin on another machine (default: config.toml's default remote).") var remote: String?

        func validate() throws {
            guard root == nil || remote == nil else { throw ValidationError("give --root DIR (on the server's machine) or --remote NAME, not both") }
        }

        /// Whether the member list is this machine's served folder (`--root`) rather than a
        /// club remote's.
        var isLocal: Bool { root != nil }

        /// The options that connect to the club remote: `--remote NAME`, or none (the default).
        func backendOptions() throws -> BackendOptions {
            try BackendOptions.parse(remote.map { ["--remote", $0] } ?? [])
        }

        var registry: MemberRegistry? {
            root.map { MemberRegistry(root: URL(fileURLWithPath: $0).standardizedFileURL.path) }
        }

        /// The audit log's actor for a change made here: the local user.
        var actor: String { "local:" + (Paths.variable("USER") ?? "\(getuid())") }

        /// A call to the remote's members endpoints, with its URL, pin and token.
        func call() throws -> ClubCall {
            let options = try backendOptions()
            let resolved: (ClubConfig, RemoteConfig)?
            do { resolved = try options.resolveRemote() } catch { throw Remotes.exit(error) }
            guard let (config, remote) = resolved else {
                throw ValidationError("give --root DIR (on the server's machine) or --remote NAME: config.toml names no default remote")
            }
            guard remote.kind == .club, let url = remote.url else {
                throw ValidationError("remote \"\(remote.name)\" is not a club server: members are a club server's (see byteclub remotes; in an encrypted club, `byteclub members revoke NAME` takes a member out of its keys)")
            }
            let token: String?
            do { token = try config.token(for: remote) } catch { throw Remotes.exit(error) }
            guard let token else { throw ValidationError("remote \"\(remote.name)\" has no token") }
            return ClubCall(server: url, pin: remote.pin, token: token)
        }

        /// Runs a registry change, its refusals as one line and exit status 1.
        func local<T>(_ change: (MemberRegistry) throws -> T) throws -> T {
            guard let registry else { throw ValidationError("no --root") }
            do {
                return try change(registry)
            } catch let error as MemberError {
                say(error.description)
                throw ExitCode(1)
            }
        }
    }

    struct Add: AsyncParsableCommand {
        static let configuration = CommandConfiguration(commandName: "add", abstract: "Invite a member: prints a one-line invite for `byteclub join`.")
        @Argument(help: "The member's name (what revisions are recorded under).") var name: String
        @Option(help: "reader, editor or admin.") var role: String = MemberRole.editor.rawValue
        @Option(help: "Hours until the invite stops working.") var expires: Double = MemberRegistry.defaultInviteHours
        @Option(help: "The server's address in the invite (default: where the server last listened).") var url: String?
        @OptionGroup var place: Place

        func run() async throws {
            let role: MemberRole
            do { role = try MemberRole(parsing: self.role) } catch { throw ValidationError(error.description) }
            if !place.isLocal {
                let answer = try await place.call().ask(.addMember, ["name": name, "role": role.rawValue, "hours": expires])
                print(answer["invite"] as? String ?? "")
                return
            }
            let root = URL(fileURLWithPath: place.root ?? ".").standardizedFileURL.path
            let address: ServerAddress
            do { address = try ServerAddress.forInvites(root: root, url: url) } catch { throw error.exit }
            let invite = try place.local { try $0.invite(name, role: role, hours: expires, server: address.url, pin: address.pin, actor: place.actor) }
            print(invite.text)
        }
    }

    struct List: AsyncParsableCommand {
        static let configuration = CommandConfiguration(commandName: "list", abstract: "List the members and the invites still open.")
        @Flag(help: "JSON: {\"members\":[{name, role, member_id, devices, added}], \"invites\":[{name, role, expires}]}.") var json = false
        @OptionGroup var place: Place

        func run() async throws {
            let listing = !place.isLocal
                ? try await place.call().ask(.listMembers, [:])
                : try place.local { MemberRegistry.listing(try $0.current()) }
            if json {
                let data = try JSONSerialization.data(withJSONObject: listing, options: [.sortedKeys])
                print(String(decoding: data, as: UTF8.self))
                return
            }
            for member in listing["members"] as? [[String: Any]] ?? [] {
                print("\(member["name"] ?? "")\t\(member["role"] ?? "")\t\(member["member_id"] ?? "")")
            }
            for invite in listing["invites"] as? [[String: Any]] ?? [] {
                print("\(invite["name"] ?? "")\t\(invite["role"] ?? "")\tinvited, until \(invite["expires"] ?? "")")
            }
        }
    }

    struct Role: AsyncParsableCommand {
        static let configuration = CommandConfiguration(commandName: "role", abstract: "Give a member another role (at once).")
        @Argument var name: String
        @Argument(help: "reader, editor or admin.") var role: String
        @OptionGroup var place: Place

        func run() async throws {
            let role: MemberRole
            do { role = try MemberRole(parsing: self.role) } catch { throw ValidationError(error.description) }
            if !place.isLocal {
                _ = try await place.call().ask(.changeMemberRole, ["name": name, "role": role.rawValue])
            } else {
                try place.local { try $0.setRole(name, role, actor: place.actor) }
            }
            print("\(name) is now \(role.withArticle)")
        }
    }

    struct Remove: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "remove",
            abstract: "Remove a member (or an open invite): their token stops working at once; in an encrypted club, a new club key too.",
            discussion: """
                In an encrypted club, a member who holds its keys is also taken out of them, as \
                `members revoke` does (one removal, in ClubKit, both make): a new club key for \
                everything written from now on, their later writes refused. That needs a member's \
                keys, so it goes through a remote (--remote NAME or the default) as a member who is \
                an admin. With --root no member's keys are at hand: an encrypted club's member is \
                refused (exit 64) until a member has run `members revoke NAME`; then \
                --keys-revoked ends the token.
                """)
        @Argument var name: String
        @Flag(help: "With --root in an encrypted club: NAME holds none of its keys (a member ran `byteclub members revoke NAME`, or NAME was never admitted).")
        var keysRevoked = false
        @OptionGroup var place: Place

        func run() async throws {
            if let root = place.root {
                // The served folder's encrypted club: its keys are beyond --root's reach.
                if !keysRevoked, let club = ClubKeyFiles.encryptedClubs(servedFrom: URL(fileURLWithPath: root).standardizedFileURL).first {
                    say("\(club) in \(root) is an encrypted club, and removing \(name) there also takes \(name) out of its keys, which only a member can: "
                        + "an admin who is a member runs `byteclub members remove \(name)` (both at once), or a member runs `byteclub members revoke \(name)` "
                        + "and then this again with --keys-revoked")
                    throw Exit.usage.code
                }
                try place.local { try $0.remove(name, actor: place.actor) }
                print("\(name) removed")
                return
            }
            let call = try place.call()
            // May this member manage members at all? Asked first, so a refusal changes nothing.
            _ = try await call.ask(.listMembers, [:])
            // In an encrypted club, out of the keys first: a removal cut short between the two
            // steps is finished by running it again (the keys step is then skipped).
            let member = name
            let generation = Carried<Int?>(nil)
            try await runRemote(try place.backendOptions()) { backend in
                guard backend.encrypted?.holdsKeys(member) == true else { return }
                generation.set(try await EncryptedClubs.revoke(member, on: backend))
            }
            _ = try await call.ask(.removeMember, ["name": member])
            print("\(member) removed")
            if let generation = generation.value { print(EncryptedClubs.revoked(member, generation: generation)) }
        }
    }
}
