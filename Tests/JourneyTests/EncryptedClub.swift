import Foundation
import TestSupport
import XCTest

/// What the encrypted-club journeys share: the server's disk read as the server sees it (age
/// files under hidden names), opened with Debian's `age` and a member's own identity file, and
/// writes made straight through the server's API (the server as an attacker would act).
extension JourneyClub {
    /// Every file the server holds for the club, but its key folder.
    func sealedFiles() -> [URL] {
        let found = FileManager.default.enumerator(at: notes, includingPropertiesForKeys: [.isRegularFileKey])?.compactMap { $0 as? URL } ?? []
        return found.filter { !$0.path.contains("/.clubkeys/") && ((try? $0.resourceValues(forKeys: [.isRegularFileKey]).isRegularFile) ?? false) == true }
    }

    /// Every file under the served folder, the server's own state and history included.
    func everyServedFile() -> [URL] {
        let found = FileManager.default.enumerator(at: root, includingPropertiesForKeys: [.isRegularFileKey])?.compactMap { $0 as? URL } ?? []
        return found.filter { ((try? $0.resourceValues(forKeys: [.isRegularFileKey]).isRegularFile) ?? false) == true }
    }

    /// The club's keys, as `member` opens their keys file with `age -d -i` and their identity.
    func clubKeys(of member: AppHarness) throws -> URL {
        let identity = member.base.appendingPathComponent("config/byteclub/identity.txt")
        let out = member.base.appendingPathComponent("club-keys-\(UUID().uuidString).txt")
        let keys = try FileManager.default.contentsOfDirectory(at: notes.appendingPathComponent(".clubkeys/keys"), includingPropertiesForKeys: nil)
        for file in keys where try ChildProcess.run(["age", "-d", "-i", identity.path, "-o", out.path, file.path]).status == 0 {
            return out
        }
        throw CouldNotCheck("no keys file opens with \(identity.path)")
    }

    /// The plaintext `age -d -i keys` gives for `file`, or nil when it does not open.
    static func ageOpen(_ file: URL, keys: URL) throws -> String? {
        let result = try ChildProcess.run(["age", "-d", "-i", keys.path, file.path])
        return result.status == 0 ? result.stdout : nil
    }

    /// The server's file whose plaintext is `text` (found by opening each with `keys`).
    func sealedFile(holding text: String, keys: URL) throws -> URL? {
        try sealedFiles().first { try Self.ageOpen($0, keys: keys) == text }
    }

    /// Writes `data` at the server path of `file` through the API with `member`'s token: what
    /// a server that swaps or rolls back files would serve.
    func overwrite(_ file: URL, with data: Data, as member: AppHarness) throws {
        let token = try XCTUnwrap(try FileManager.default.contentsOfDirectory(at: member.state.appendingPathComponent("remotes"), includingPropertiesForKeys: nil)
            .first { $0.pathExtension == "token" }).path
        let secret = try String(contentsOfFile: token, encoding: .utf8).trimmingCharacters(in: .whitespacesAndNewlines)
        let path = "/" + file.path.dropFirst(root.path.count + 1)
        let body = member.base.appendingPathComponent("raw-\(UUID().uuidString)")
        try data.write(to: body)
        let result = try ChildProcess.run(["curl", "-sS", "-k", "--fail-with-body", "-X", "POST", url + "/2/files/upload",
                                           "-H", "Authorization: Bearer \(secret)", "-H", "Content-Type: application/octet-stream",
                                           "-H", #"Dropbox-API-Arg: {"path":"\#(path)","mode":"overwrite"}"#, "--data-binary", "@" + body.path])
        XCTAssertEqual(result.status, 0, result.stdout + result.stderr)
    }
}
