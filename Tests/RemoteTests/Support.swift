import ClubServer
import Foundation
import Remote
import Transfer
import XCTest

/// A club server on loopback over a temp folder, and a DropboxStore talking to it.
final class ClubFixture: @unchecked Sendable {
    // @unchecked Sendable: every property is a `let` set in init, of Sendable types.
    let base: URL
    let root: URL
    let server: ClubServer
    let token = "remote-tests-\(UUID().uuidString)"

    init(chaos: ChaosSpec? = nil, seed: UInt64 = 42) async throws {
        base = FileManager.default.temporaryDirectory.appendingPathComponent("remote-tests-\(UUID().uuidString)")
        root = base.appendingPathComponent("club")
        try FileManager.default.createDirectory(at: root.appendingPathComponent("byteclub"), withIntermediateDirectories: true)
        var configuration = ClubServerConfiguration(root: root.path, token: token)
        configuration.chaos = chaos
        configuration.chaosSeed = seed
        configuration.logger.logLevel = .error
        server = try await ClubServer.start(configuration)
    }

    func store(token: String? = nil, configuration: SessionConfiguration = .ephemeral, retry: RetryPolicy = RetryPolicy(),
               chunkSize: Int64 = 32 << 20) -> DropboxStore {
        DropboxStore(displayName: server.baseURL.absoluteString, endpoints: .club(server.baseURL), tokens: StaticToken(token ?? self.token),
                     configuration: configuration, retry: retry, chunkSize: chunkSize)
    }

    func close() async {
        await server.stop()
        try? FileManager.default.removeItem(at: base)
    }

    func file(_ relative: String) -> URL { root.appendingPathComponent(relative) }

    /// A local scratch file of `size` bytes with a non-repeating pattern.
    func makeFile(_ name: String, size: Int) throws -> URL {
        let url = base.appendingPathComponent(name)
        FileManager.default.createFile(atPath: url.path, contents: nil)
        let handle = try FileHandle(forWritingTo: url)
        defer { try? handle.close() }
        var written = 0
        var block = Data(count: 1 << 20)
        var counter: UInt32 = 0
        while written < size {
            block.withUnsafeMutableBytes { raw in
                let words = raw.bindMemory(to: UInt32.self)
                for index in 0..<words.count {
                    counter &+= 0x9E37_79B9
                    words[index] = counter ^ (counter >> 13)
                }
            }
            let count = min(block.count, size - written)
            try handle.write(contentsOf: block.prefix(count))
            written += count
        }
        return url
    }
}

extension XCTestCase {
    /// Asserts that `body` throws exactly `expected`.
    func assertThrows<T>(_ expected: RemoteError, file: StaticString = #filePath, line: UInt = #line,
                         _ body: () async throws(RemoteError) -> T) async {
        do {
            _ = try await body()
            XCTFail("expected \(expected)", file: file, line: line)
        } catch {
            XCTAssertEqual(error, expected, file: file, line: line)
        }
    }
}
