import Foundation
import TestSupport
import XCTest

/// Named remotes in `$XDG_CONFIG_HOME/byteclub/config.toml`, through the built binary.
final class ConfigCLITests: XCTestCase {
    var base: URL!
    var cli: CLI!
    var configFile: URL { base.appendingPathComponent("home/config/byteclub/config.toml") }

    override func setUp() async throws {
        base = FileManager.default.temporaryDirectory.appendingPathComponent("config-cli-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: configFile.deletingLastPathComponent(), withIntermediateDirectories: true)
        cli = try CLI.isolated(in: base)
    }

    override func tearDown() async throws {
        try? FileManager.default.removeItem(at: base)
    }

    func writeConfig(_ text: String) throws {
        try Data(text.utf8).write(to: configFile)
    }

    /// A club folder served by `byteclub serve`, holding /byteclub/`name`.
    func serve(token: String, holding name: String, text: String) throws -> ServeProcess {
        let root = base.appendingPathComponent("served-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: root.appendingPathComponent("byteclub"), withIntermediateDirectories: true)
        try Data(text.utf8).write(to: root.appendingPathComponent("byteclub/\(name)"))
        return try ServeProcess(root: root, token: token)
    }

    func testRemotesArePickedByNameAndByDefault() throws {
        let home = try serve(token: "home-token-1", holding: "home.txt", text: "at home\n")
        let away = try serve(token: "away-token-2", holding: "away.txt", text: "away\n")
        let tokenFile = base.appendingPathComponent("home-token")
        try Data("home-token-1\n".utf8).write(to: tokenFile)
        try writeConfig("""
            default = "home"

            [remote.home]
            type = "club"
            url = "\(home.url)"
            token_command = "cat '\(tokenFile.path)'"

            [remote.away]
            type = "club"
            url = "\(away.url)"
            # The first line is the token; the rest is ignored.
            token_command = "printf 'away-token-2\\nnot this\\n'"
            """)

        let byDefault = try cli.run(["ls", "/byteclub"])
        XCTAssertEqual(byDefault.status, 0, byDefault.stderr)
        XCTAssertTrue(byDefault.stdout.contains("home.txt"), byDefault.stdout)
        let byName = try cli.run(["ls", "/byteclub", "--remote", "away"])
        XCTAssertEqual(byName.status, 0, byName.stderr)
        XCTAssertTrue(byName.stdout.contains("away.txt"), byName.stdout)
        XCTAssertFalse(byName.stdout.contains("home.txt"), byName.stdout)

        // Other commands take it too: a round trip through the named remote, byte-exact.
        let local = cli.directory.appendingPathComponent("Grüße.txt")
        try Data("über alles\n".utf8).write(to: local)
        let put = try cli.run(["put", local.path, "/byteclub/", "--remote", "away"])
        XCTAssertEqual(put.status, 0, put.stderr)
        let got = try cli.run(["get", "/byteclub/Grüße.txt", "back.txt", "--remote", "away"])
        XCTAssertEqual(got.status, 0, got.stderr)
        XCTAssertEqual(try Data(contentsOf: cli.directory.appendingPathComponent("back.txt")), Data("über alles\n".utf8))

        // An explicit backend flag wins over the default; with --remote it is ambiguous.
        let embedded = try cli.run(["ls", "/byteclub", "--data-dir", base.appendingPathComponent("embedded").path])
        XCTAssertEqual(embedded.status, 0, embedded.stderr)
        XCTAssertTrue(embedded.stdout.contains("Welcome to Byte Club.txt"), embedded.stdout)
        let both = try cli.run(["ls", "--remote", "away", "--server", home.url, "--token", "home-token-1"])
        XCTAssertEqual(both.status, 64, both.stderr)
        XCTAssertTrue(both.stderr.contains("--remote"), both.stderr)

        let unknown = try cli.run(["ls", "--remote", "nowhere"])
        XCTAssertEqual(unknown.status, 2)
        XCTAssertTrue(unknown.stderr.contains(configFile.path), unknown.stderr)
        XCTAssertTrue(unknown.stderr.contains("no remote named \"nowhere\" (it has away, home)"), unknown.stderr)
    }

    func testNoConfigMeansTheEmbeddedServer() throws {
        let plain = try cli.run(["ls", "/byteclub"])
        XCTAssertEqual(plain.status, 0, plain.stderr)
        XCTAssertTrue(plain.stdout.contains("Welcome to Byte Club.txt"), plain.stdout)
        let named = try cli.run(["ls", "--remote", "club"])
        XCTAssertEqual(named.status, 2)
        XCTAssertEqual(named.stderr, "byteclub: \(configFile.path): no such file, so no remote named \"club\" (see byteclub remotes)\n")
        let listed = try cli.run(["remotes"])
        XCTAssertEqual(listed.status, 0, listed.stderr)
        XCTAssertTrue(listed.stdout.contains("there is no config file at \(configFile.path)"), listed.stdout)
    }

    func testSecretCommandsFailClearlyAndNeverShowTheSecret() throws {
        let server = try serve(token: "right-token", holding: "a.txt", text: "a\n")
        func run(tokenCommand: String) throws -> CLI.Result {
            try writeConfig("""
                default = "club"
                [remote.club]
                type = "club"
                url = "\(server.url)"
                token_command = "\(tokenCommand)"
                """)
            return try cli.run(["ls", "/byteclub"])
        }
        let failing = try run(tokenCommand: "echo SECRET-ON-STDOUT; exit 3")
        XCTAssertEqual(failing.status, 2)
        XCTAssertEqual(failing.stderr, "byteclub: \(configFile.path):5: the token_command of remote \"club\" failed (exit status 3)\n")
        let silent = try run(tokenCommand: "true")
        XCTAssertEqual(silent.status, 2)
        XCTAssertEqual(silent.stderr, "byteclub: \(configFile.path):5: the token_command of remote \"club\" printed nothing on its first line\n")
        let blankFirst = try run(tokenCommand: "printf '\\\\nright-token\\\\n'")
        XCTAssertEqual(blankFirst.status, 2, "only the first line counts")
        let wrong = try run(tokenCommand: "echo WRONG-SECRET-TOKEN")
        XCTAssertEqual(wrong.status, 5)
        XCTAssertFalse(wrong.stderr.contains("WRONG-SECRET-TOKEN"), wrong.stderr)
        let right = try run(tokenCommand: "echo right-token")
        XCTAssertEqual(right.status, 0, right.stderr)
        XCTAssertTrue(right.stdout.contains("a.txt"), right.stdout)

        // A token in the file itself; --token on the command line wins over it.
        try writeConfig("""
            default = "club"
            [remote.club]
            type = "club"
            url = "\(server.url)"
            token = "STALE-SECRET"
            """)
        let stale = try cli.run(["ls", "/byteclub"])
        XCTAssertEqual(stale.status, 5)
        XCTAssertFalse(stale.stderr.contains("STALE-SECRET"), stale.stderr)
        let explicit = try cli.run(["ls", "/byteclub", "--token", "right-token"])
        XCTAssertEqual(explicit.status, 0, explicit.stderr)

        // No token in the remote: BYTECLUB_TOKEN, else a message naming the remote's line.
        try writeConfig("""
            default = "club"
            [remote.club]
            type = "club"
            url = "\(server.url)"
            """)
        let none = try cli.run(["ls", "/byteclub"])
        XCTAssertEqual(none.status, 2)
        XCTAssertTrue(none.stderr.hasPrefix("byteclub: \(configFile.path):2: remote \"club\" needs a token"), none.stderr)
        var environment = cli.environment
        environment["BYTECLUB_TOKEN"] = "right-token"
        let fromVariable = try CLI(environment: environment, directory: cli.directory).run(["ls", "/byteclub"])
        XCTAssertEqual(fromVariable.status, 0, fromVariable.stderr)
    }

    /// Each broken config, the line its message names, and words the message must hold.
    func testConfigErrorsNameTheFileLineAndKeyAndExit2() throws {
        let cases: [(config: String, line: Int, words: [String])] = [
            ("default = \"club\"\n[remote.club]\ntype = \"club\"\nulr = \"http://127.0.0.1:1\"\n", 4, ["unknown key \"ulr\" in [remote.club] (did you mean url?"]),
            ("[remote.club]\ntype = \"club\"\nurl = 8421\n", 3, ["url must be a string", "not a TOML integer"]),
            ("default = \"clbu\"\n[remote.club]\ntype = \"club\"\nurl = \"http://127.0.0.1:1\"\n", 1, ["default = \"clbu\" names no remote", "club"]),
            ("# my remotes\n\n[remote.club]\ntype = \"club\"\ntoken = \"t\"\n", 3, ["remote \"club\" (type club) needs a url"]),
            ("[remote.club]\ntype = \"clubb\"\n", 2, ["type must be \"club\", \"webdav\" or \"dropbox\""]),
            ("[remote.club]\ntype = \"club\"\nurl = \"http://127.0.0.1:1\"\nuser = \"ray\"\n", 4, ["user is not used by a club remote"]),
            ("defualt = \"club\"\n", 1, ["unknown key \"defualt\""]),
            ("[remote.cloud]\ntype = \"webdav\"\nurl = \"https://ray:hunter2@cloud.example.org/\"\nuser = \"ray\"\n", 3,
             ["url must not hold a user or password"]),
            ("[remote.club]\ntype = \"club\"\nurl = \"http://127.0.0.1:1\"\n\"folder\" = \"byteclub\"\n", 4, ["folder must be a path"]),
            ("[remote.club]\ntype = \"club\"\nurl = \"http://127.0.0.1:1\n", 3, ["not valid TOML"]),
        ]
        for (config, line, words) in cases {
            try writeConfig(config)
            for arguments in [["ls"], ["remotes"]] {
                let result = try cli.run(arguments)
                XCTAssertEqual(result.status, 2, "\(arguments) with\n\(config)\n\(result.stderr)")
                XCTAssertTrue(result.stderr.hasPrefix("byteclub: \(configFile.path):\(line): "), "\(config)\n\(result.stderr)")
                for word in words { XCTAssertTrue(result.stderr.contains(word), "\(word) in \(result.stderr)") }
                XCTAssertFalse(result.stderr.contains("hunter2"), result.stderr)
                XCTAssertEqual(result.stdout, "")
            }
        }
    }

    func testRemotesListsNamesNeverSecrets() throws {
        try writeConfig("""
            default = "club"

            [remote.club]
            type = "club"
            url = "http://192.168.1.20:8421"
            token_command = "pass show SECRET-PATH"

            [remote.cloud]
            type = "webdav"
            url = "https://cloud.example.org/remote.php/dav/files/ray/"
            user = "ray"
            password_command = "echo SECRET-PASSWORD"
            folder = "/clubs/byteclub/"
            download_dir = "~/Downloads/cloud"

            [remote.mine]
            type = "club"
            url = "http://127.0.0.1:8421"
            token = "SECRET-TOKEN"

            [remote.dropbox]
            type = "dropbox"
            """)
        let listed = try cli.run(["remotes"])
        XCTAssertEqual(listed.status, 0, listed.stderr)
        XCTAssertEqual(listed.stdout, """
               NAME     TYPE     URL                                                  USER  FOLDER
               cloud    webdav   https://cloud.example.org/remote.php/dav/files/ray/  ray   /clubs/byteclub
            *  club     club     http://192.168.1.20:8421                                   /byteclub
               dropbox  dropbox                                                             /byteclub
               mine     club     http://127.0.0.1:8421                                      /byteclub

            """)
        let json = try cli.run(["remotes", "--json"])
        XCTAssertEqual(json.status, 0, json.stderr)
        let remotes = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [[String: Any]])
        XCTAssertEqual(remotes.map { $0["name"] as? String }, ["cloud", "club", "dropbox", "mine"])
        XCTAssertEqual(remotes.map { $0["default"] as? Bool }, [false, true, false, false])
        XCTAssertEqual(remotes[0]["user"] as? String, "ray")
        XCTAssertEqual(remotes[0]["download_dir"] as? String, base.appendingPathComponent("home/Downloads/cloud").path)
        for output in [listed.stdout, json.stdout] {
            XCTAssertFalse(output.contains("SECRET"), output)
        }
    }
}
