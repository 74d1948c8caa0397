import ByteClubConfig
import Foundation
import XCTest

/// config.toml's editor settings written as text: the key's own line replaced in place, a new
/// key before the first table, and every other line (comments, remotes) left as it was.
final class ConfigSettingsTests: XCTestCase {
    let file = URL(fileURLWithPath: "/tmp/config.toml")
    let home = URL(fileURLWithPath: "/tmp")

    func testAKeyThereIsReplacedInPlaceWithItsComment() throws {
        let text = "# mine\nline_numbers = false # off for now\nnew_note_extension = \"md\"\n"
        let written = try XCTUnwrap(ConfigSettings.setting("line_numbers", to: "true", in: text))
        XCTAssertEqual(written, "# mine\nline_numbers = true # off for now\nnew_note_extension = \"md\"\n")
        XCTAssertEqual(try ClubConfig.parse(written, file: file, home: home).lineNumbers, true)
    }

    func testANewKeyGoesBeforeTheFirstTableAndTheRemotesStay() throws {
        let text = "# my club\ndefault = \"club\"\n\n[remote.club]\ntype = \"club\"\nurl = \"http://127.0.0.1:8421\"\n"
        let written = try XCTUnwrap(ConfigSettings.setting("soft_wrap", to: "false", in: text))
        XCTAssertEqual(written, "# my club\nsoft_wrap = false\ndefault = \"club\"\n\n[remote.club]\ntype = \"club\"\nurl = \"http://127.0.0.1:8421\"\n")
        let config = try ClubConfig.parse(written, file: file, home: home)
        XCTAssertEqual(config.softWrap, false)
        XCTAssertEqual(config.remotes["club"]?.url?.absoluteString, "http://127.0.0.1:8421")
    }

    func testAnEmptyFileGetsTheKeyAndABadValueIsSaidWithItsLine() throws {
        XCTAssertEqual(ConfigSettings.setting("line_numbers", to: "true", in: ""), "line_numbers = true\n")
        XCTAssertEqual(ConfigSettings.setting("line_numbers", to: "true", in: "# only a comment\n"), "# only a comment\nline_numbers = true\n")
        XCTAssertThrowsError(try ClubConfig.parse("# x\nsoft_wrap = \"no\"\n", file: file, home: home)) { error in
            XCTAssertEqual((error as? ConfigError)?.line, 2)
        }
    }
}
