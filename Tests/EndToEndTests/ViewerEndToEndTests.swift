import Foundation
import TestSupport
import XCTest

/// The viewer in a real terminal (tmux, 120×36): `v` on a panorama fills the screen's width
/// with picture cells, `l` shows another part, `Esc` returns to the list with the same
/// selection. tmux without `allow-passthrough` gets symbols, so these are colored cells.
final class ViewerEndToEndTests: XCTestCase {
    var app: AppHarness!

    override func setUpWithError() throws {
        app = try AppHarness()
    }

    override func tearDown() {
        app.close()
    }

    /// How many cells of an escaped line (`capture-pane -e`) have a background color: picture
    /// cells always do (chafa paints both colors of every cell).
    static func coloredCells(_ line: Substring) -> Int {
        var count = 0
        var colored = false
        var index = line.startIndex
        while index < line.endIndex {
            if line[index] == "\u{1B}", let end = line[index...].firstIndex(where: { $0 == "m" }) {
                let parameters = line[line.index(index, offsetBy: 2)..<end].split(separator: ";", omittingEmptySubsequences: false)
                var i = 0
                while i < parameters.count {
                    switch parameters[i] {
                    case "", "0", "49": colored = false
                    case "48": colored = true; i += parameters.count > i + 1 && parameters[i + 1] == "2" ? 4 : 2
                    case "38": i += parameters.count > i + 1 && parameters[i + 1] == "2" ? 4 : 2
                    case let p where (p.count == 2 && p.hasPrefix("4")) || (p.count == 3 && p.hasPrefix("10")): colored = true
                    default: break
                    }
                    i += 1
                }
                index = line.index(after: end)
                continue
            }
            if colored { count += 1 }
            index = line.index(after: index)
        }
        return count
    }

    /// Each photo's name with the style it is drawn in (the selection shows there), without the
    /// thumbnail beside it (which may still be arriving).
    static func names(_ screen: String) -> [String] {
        screen.split(separator: "\n").compactMap { line -> String? in
            guard let name = line.range(of: #"[a-z-]+\.jpg"#, options: .regularExpression) else { return nil }
            let style = line[..<name.lowerBound].range(of: "\u{1B}[", options: .backwards)?.lowerBound ?? name.lowerBound
            return String(line[style..<name.upperBound])
        }
    }

    func testViewFillsTheWidthPansAndReturnsToTheSameSelection() throws {
        let tmux = try app.launch()
        tmux.waitFor("Welcome to Byte Club")
        try tmux.type("2")
        tmux.waitFor("alps-sunrise.jpg")
        // Another photo than the first, so "the same selection" means something. Each name is
        // read with its style alone: a thumbnail arriving beside it changes its line, not that.
        let style = { (name: String) in Self.names(tmux.captureWithEscapes()).first { $0.hasSuffix(name) }.map { String($0.dropLast(name.count)) } }
        var selected: String?
        tmux.waitFor("the first photo selected, the second listed") { _ in
            selected = style("alps-sunrise.jpg")
            return selected != nil && style("city-dusk.jpg").map { $0 != selected } == true
        }
        try tmux.press("Down")
        tmux.waitFor("the selection on city-dusk.jpg") { _ in style("city-dusk.jpg") == selected && style("alps-sunrise.jpg") != selected }
        let listBefore = Self.names(tmux.captureWithEscapes())

        try tmux.type("v")
        tmux.waitFor("the viewer with its picture") { $0.contains("city-dusk.jpg · ") && $0.contains("zoom 100%") }
        // Rows of picture cells as wide as the screen. (Chafa leaves some very dark cells in
        // the terminal's own background, so not every row counts.)
        tmux.waitFor("picture cells across the width") { _ in
            let lines = tmux.captureWithEscapes().split(separator: "\n", omittingEmptySubsequences: false)
            return lines.prefix(34).filter { Self.coloredCells($0) == 120 }.count >= 4
        }
        let before = tmux.capture()

        try tmux.type("l")
        let after = tmux.waitFor("l to show another part at zoom 100%") { $0 != before && $0.contains("zoom 100%") }
        XCTAssertFalse(after.contains("alps-sunrise.jpg"), "still the viewer")

        try tmux.press("Escape")
        tmux.waitFor("alps-sunrise.jpg")
        let listAfter = tmux.waitFor("the list as it was") { _ in
            Self.names(tmux.captureWithEscapes()) == listBefore
        }
        XCTAssertEqual(Self.names(tmux.captureWithEscapes()), listBefore, "the same selection")
        XCTAssertTrue(listAfter.contains("city-dusk.jpg"))
        try tmux.type("q")
        tmux.waitFor(app.exitLine(0))
    }
}
