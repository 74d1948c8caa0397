import Foundation
import TestSupport
import XCTest

/// A `type = "webdav"` remote from config.toml against a real `rclone serve webdav`: picked by
/// name and by default, its password from its own `password_command` before `BYTECLUB_WEBDAV_PASSWORD`,
/// and a command that fails, prints nothing or prints a wrong password.
final class ConfigWebDAVCLITests: XCTestCase {
    var server: RcloneWebDAV!
    var cli: CLI!
    var configFile: URL { server.base.appendingPathComponent("home/config/byteclub/config.toml") }
    var passwordFile: URL { server.base.appendingPathComponent("password") }

    override func setUpWithError() throws {
        try Requirement.tool(RcloneWebDAV.executable != nil, "rclone is not installed (make deps)")
        server = try RcloneWebDAV()
        try FileManager.default.createDirectory(at: server.file("byteclub"), withIntermediateDirectories: true)
        try Data("on the WebDAV server\n".utf8).write(to: server.file("byteclub/dav-note.txt"))
        try Data((server.password + "\n").utf8).write(to: passwordFile)
        let home = server.base.appendingPathComponent("home")
        let work = server.base.appendingPathComponent("work")
        let temp = server.base.appendingPathComponent("tmp")
        for folder in [work, temp, configFile.deletingLastPathComponent()] {
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        }
        var environment = ProcessInfo.processInfo.environment
        environment["HOME"] = home.path
        for (variable, folder) in [("XDG_DATA_HOME", "data"), ("XDG_STATE_HOME", "state"), ("XDG_CONFIG_HOME", "config"), ("XDG_CACHE_HOME", "cache")] {
            environment[variable] = home.appendingPathComponent(folder).path
        }
        environment["TMPDIR"] = temp.path
        environment["BYTECLUB_TOKEN"] = nil
        environment["BYTECLUB_WEBDAV_PASSWORD"] = nil
        cli = CLI(environment: environment, directory: work)
    }

    override func tearDown() {
        server?.remove()
    }

    func writeConfig(passwordCommand: String?, isDefault: Bool = true) throws {
        try Data("""
            \(isDefault ? "default = \"cloud\"" : "# no default")

            [remote.cloud]
            type = "webdav"
            url = "\(server.url.absoluteString)"
            user = "\(server.user)"
            \(passwordCommand.map { "password_command = \"\($0)\"" } ?? "")
            """.utf8).write(to: configFile)
    }

    func testWebDAVRemoteByNameAndByDefaultWithItsPasswordCommand() throws {
        try writeConfig(passwordCommand: "cat '\(passwordFile.path)'")
        let byDefault = try cli.run(["ls", "/byteclub"])
        XCTAssertEqual(byDefault.status, 0, byDefault.stderr)
        XCTAssertTrue(byDefault.stdout.contains("dav-note.txt"), byDefault.stdout)

        try writeConfig(passwordCommand: "cat '\(passwordFile.path)'", isDefault: false)
        let embedded = try cli.run(["ls", "/byteclub"])
        XCTAssertEqual(embedded.status, 0, embedded.stderr)
        XCTAssertFalse(embedded.stdout.contains("dav-note.txt"), "no default: the embedded club")
        let local = cli.directory.appendingPathComponent("from-config.txt")
        try Data("through a named remote\n".utf8).write(to: local)
        let put = try cli.run(["put", local.path, "/byteclub/", "--remote", "cloud"])
        XCTAssertEqual(put.status, 0, put.stderr)
        XCTAssertEqual(try Data(contentsOf: server.file("byteclub/from-config.txt")), try Data(contentsOf: local))
        let got = try cli.run(["get", "/byteclub/dav-note.txt", "--remote", "cloud"])
        XCTAssertEqual(got.status, 0, got.stderr)
        XCTAssertEqual(try String(contentsOf: cli.directory.appendingPathComponent("dav-note.txt"), encoding: .utf8), "on the WebDAV server\n")
    }

    func testPasswordPrecedenceAndFailingCommands() throws {
        // The remote's own password_command comes first (a password exported for another server
        // is never sent to this one); BYTECLUB_WEBDAV_PASSWORD serves a remote without one.
        func withVariable(_ password: String) -> CLI {
            var environment = cli.environment
            environment["BYTECLUB_WEBDAV_PASSWORD"] = password
            return CLI(environment: environment, directory: cli.directory)
        }
        try writeConfig(passwordCommand: nil)
        let fromVariable = try withVariable(server.password).run(["ls", "/byteclub"])
        XCTAssertEqual(fromVariable.status, 0, fromVariable.stderr)

        try writeConfig(passwordCommand: "exit 7")
        let failingDespiteVariable = try withVariable(server.password).run(["ls", "/byteclub"])
        XCTAssertEqual(failingDespiteVariable.status, 2, "the remote's own command is used, not the variable")

        let failing = try cli.run(["ls", "/byteclub"])
        XCTAssertEqual(failing.status, 2)
        XCTAssertEqual(failing.stderr, "byteclub: \(configFile.path):7: the password_command of remote \"cloud\" failed (exit status 7)\n")

        try writeConfig(passwordCommand: "printf ''")
        let silent = try cli.run(["ls", "/byteclub"])
        XCTAssertEqual(silent.status, 2)
        XCTAssertTrue(silent.stderr.hasSuffix(":7: the password_command of remote \"cloud\" printed nothing on its first line\n"), silent.stderr)

        try writeConfig(passwordCommand: "echo WRONG-PASSWORD-123")
        let wrong = try cli.run(["ls", "/byteclub"])
        XCTAssertEqual(wrong.status, 5, wrong.stderr)
        XCTAssertFalse(wrong.stderr.contains("WRONG-PASSWORD-123"), wrong.stderr)
        try writeConfig(passwordCommand: "cat '\(passwordFile.path)'")
        let rightCommand = try withVariable("WRONG-VARIABLE-456").run(["ls", "/byteclub"])
        XCTAssertEqual(rightCommand.status, 0, "the command wins over the variable: \(rightCommand.stderr)")
        XCTAssertFalse(rightCommand.stderr.contains("WRONG-VARIABLE-456"), rightCommand.stderr)

        let listed = try cli.run(["remotes"])
        XCTAssertEqual(listed.status, 0, listed.stderr)
        XCTAssertFalse(listed.stdout.contains(passwordFile.path), "commands are not listed: they can hold secrets")
        XCTAssertFalse(listed.stdout.contains(server.password), listed.stdout)
    }
}
