import Foundation
import TestSupport
import XCTest

/// A test's server started again on its old port (`MemberServe.start`, which `OfflineClub` and
/// the live journeys use): a port taken for a moment by another socket is waited out, and one
/// that stays taken is said with the server's own words.
final class ServeRestartPortTests: XCTestCase {
    func testAPortTakenForAMomentIsWaitedOut() throws {
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("serve-restart-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: root) }
        let taken = try SilentListener()
        let port = taken.port
        // Let go half a second after the first try found it taken.
        DispatchQueue.global().asyncAfter(deadline: .now() + 0.5) { taken.close() }
        let started = Date()
        let (process, bound) = try MemberServe.start(["serve", "--insecure-http", "--root", root.path, "--create", "--port", "\(port)",
                                                      "--log-level", "error", "--member", "ray=ray-token"], port: port)
        defer { process.terminate(); process.waitUntilExit() }
        XCTAssertEqual(bound, port)
        XCTAssertGreaterThanOrEqual(Date().timeIntervalSince(started), 0.4, "the first tries found the port taken")
    }

    func testAPortThatStaysTakenIsSaid() throws {
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("serve-taken-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: root) }
        let taken = try SilentListener()
        defer { taken.close() }
        XCTAssertThrowsError(try MemberServe.start(["serve", "--insecure-http", "--root", root.path, "--create", "--port", "\(taken.port)",
                                                    "--log-level", "error"], port: taken.port, patience: 1)) { error in
            XCTAssertTrue("\(error)".contains("port \(taken.port) is already in use"), "\(error)")
        }
    }
}
