import TerminalUI
import XCTest

/// Every dialog's buttons get letters of their own (`Modal.accelerators`): no two buttons of one
/// dialog share one, the letter is in its button's label and is the one underlined, and pressing
/// it chooses that button and no other. The rule is the dialog builder's, so it holds for every
/// dialog the app makes, whatever its words.
@MainActor
final class ModalAcceleratorTests: XCTestCase {
    /// The app's dialogs' buttons (and some that collide on purpose).
    static let buttonSets: [[String]] = [
        ["Create", "Cancel"],
        ["Save", "Discard", "Cancel"],
        ["Save as new note", "Discard", "Cancel"],
        ["Overwrite", "Save as copy", "Reload theirs", "Cancel"],
        ["Overwrite", "Save as copy", "Cancel"],
        ["Background", "Quit and stop them", "Stay"],
        ["Update", "Leave them"],
        ["Restore", "Cancel"],
        ["Open", "Cancel"],
        ["Delete", "Cancel"],
        ["Quit", "Cancel"],
        ["Upload", "Cancel"],
        ["OK"],
        ["Copy", "Cut", "Cancel", "Close", "Clear"],
        ["Sé", "Sí", "Só"],
    ]

    func testNoTwoButtonsOfADialogShareALetterAndEachLetterIsInItsLabel() async {
        var generator = SystemRandomNumberGenerator()
        let words = ["Cancel", "Create", "Close", "Copy", "Save", "Save as copy", "Stay", "Start", "Stop", "Discard", "Delete", "Do it"]
        let random = (0..<200).map { _ in (0..<Int.random(in: 1...5, using: &generator)).map { _ in words.randomElement(using: &generator)! } }
        for buttons in Self.buttonSets + random {
            let accelerators = Modal.accelerators(for: buttons)
            XCTAssertEqual(accelerators.count, buttons.count)
            let letters = accelerators.compactMap { $0?.letter }
            XCTAssertEqual(Set(letters).count, letters.count, "\(buttons): \(letters)")
            for (label, accelerator) in zip(buttons, accelerators) {
                guard let accelerator else { continue }
                let characters = Array(label)
                XCTAssertEqual(characters[accelerator.offset].lowercased(), String(accelerator.letter), "\(label)")
            }
            // Labels with letters to spare all get one (equal labels cannot all be told apart).
            if Set(buttons).count == buttons.count, buttons.count <= 3 {
                XCTAssertFalse(accelerators.contains(nil), "\(buttons)")
            }
        }
        // A first letter that is free stays the button's letter, as before.
        XCTAssertEqual(Modal.accelerators(for: ["Save", "Discard", "Cancel"]).map { $0?.letter }, ["s", "d", "c"])
        XCTAssertEqual(Modal.accelerators(for: ["Overwrite", "Save as copy", "Reload theirs", "Cancel"]).map { $0?.letter }, ["o", "s", "r", "c"])
        // The "No such note" dialog: Create keeps C, and Cancel gets a letter of its own.
        XCTAssertEqual(Modal.accelerators(for: ["Create", "Cancel"]).map { $0?.letter }, ["c", "a"])
    }

    func testTheUnderlinedLetterIsTheOneThatChoosesTheButton() async {
        for buttons in Self.buttonSets {
            let modal = Modal(title: "Dialog", body: ["Which?"], buttons: buttons, width: 60)
            let canvas = GridCanvas(width: 100, height: 20)
            modal.render(into: canvas, area: canvas.bounds)
            let accelerators = modal.accelerators
            for (index, frame) in modal.buttonFrames(in: canvas.bounds).enumerated() {
                let underlined = (frame.x..<frame.maxX).filter { canvas.style(x: $0, y: frame.y).attributes.contains(.underline) }
                guard let accelerator = accelerators[index] else {
                    XCTAssertEqual(underlined, [], "\(buttons[index])")
                    continue
                }
                XCTAssertEqual(underlined.count, 1, "one letter underlined in \(buttons[index])")
                XCTAssertEqual(underlined.first.map { canvas.cell(x: $0, y: frame.y).text.lowercased() }, String(accelerator.letter))
                // "[ " then the label: the underlined cell is the accelerator's own character.
                XCTAssertEqual(underlined.first, frame.x + 2 + TextWidth.of(String(Array(buttons[index]).prefix(accelerator.offset))))

                var state = ModalState()
                XCTAssertEqual(state.handle(.char(accelerator.letter), buttons: buttons), .chosen(index), "\(buttons)")
                let upper = Character(accelerator.letter.uppercased())
                XCTAssertEqual(ModalState().handleCopy(.char(upper), buttons: buttons), .chosen(index), "either case")
            }
        }
    }

    func testADialogsHelpListsTheLettersThatChoose() async {
        let dialog = DialogLayer(Modal(title: "No such note", buttons: ["Create", "Cancel"])) { _ in }
        let row = dialog.commands().first { $0.description == "Choose Create / Cancel" }
        XCTAssertEqual(row?.keyLabel, "c / a")
        XCTAssertEqual(row?.keys, [.char("c"), .char("a")])
    }
}

private extension ModalState {
    /// `handle` on a copy, for a one-line check.
    func handleCopy(_ key: Key, buttons: [String]) -> ModalOutcome {
        var state = self
        return state.handle(key, buttons: buttons)
    }
}
