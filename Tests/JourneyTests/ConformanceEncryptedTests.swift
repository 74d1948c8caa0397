import Foundation
import TestSupport
import XCTest

/// The conformance table (`Conformance`, TestSupport) on an encrypted club, through the
/// encrypted wrapper over the club server: the same answers, word for word, as the club server
/// gives without encryption in the same run.
final class ConformanceEncryptedTests: XCTestCase {
    private var clubs: [JourneyClub] = []

    override func tearDown() {
        for club in clubs { club.close() }
        clubs = []
    }

    func testAnEncryptedClubAnswersAsThePlainOneDoes() throws {
        var answers: [String: [String: String]] = [:]
        for encrypted in [false, true] {
            let club = try JourneyClub()
            clubs.append(club)
            let ann = try club.invite("ann")
            if encrypted {
                let made = try Journey.run(ann, ["init", "--encrypted"])
                XCTAssertEqual(made.status, 0, made.stderr)
            }
            let name = encrypted ? "encrypted" : "club"
            let differences = Conformance.Differences(sharesOnlyDecryptedOnRequest: encrypted)
            answers[name] = try Conformance.check(name, differences: differences, scratch: ann.base) { arguments in
                let result = try ann.cli(arguments)
                return Conformance.Answer(status: result.status, stdout: result.stdout, stderr: result.stderr)
            }
        }
        Conformance.assertAlike(answers["encrypted"] ?? [:], answers["club"] ?? [:])
    }
}
