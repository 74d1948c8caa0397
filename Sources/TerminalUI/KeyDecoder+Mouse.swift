// Mouse reports in the two encodings terminals send: SGR (mode 1006) and the legacy X10 bytes.

extension KeyDecoder {
    /// The key for a decoded mouse report: a plain left press stays the ``Key/mouse(x:y:)``
    /// that tabs and buttons have always matched; the rest are ``Key/pointer(_:)``.
    static func mouseKey(_ event: MouseEvent) -> Key {
        if event.action == .press(.left), event.modifiers.isEmpty { return .mouse(x: event.x, y: event.y) }
        return .pointer(event)
    }

    /// An SGR report's parameters (after the `<`): exactly three decimal numbers, the cells
    /// from 1. Anything else (missing or extra fields, signs, numbers too long to be a screen
    /// position) is dropped, not guessed at.
    static func sgrMouse(_ parameters: ArraySlice<UInt8>, isRelease: Bool) -> Key? {
        let fields = parameters.split(separator: UInt8(ascii: ";"), omittingEmptySubsequences: false)
        guard fields.count == 3 else { return nil }
        var numbers: [Int] = []
        for field in fields {
            // Five digits cover any terminal; more would only risk overflow.
            guard (1...5).contains(field.count), field.allSatisfy({ (0x30...0x39).contains($0) }) else { return nil }
            numbers.append(field.reduce(0) { $0 * 10 + Int($1 - 0x30) })
        }
        guard numbers[1] >= 1, numbers[2] >= 1,
              let event = MouseEvent.decode(code: numbers[0], x: numbers[1] - 1, y: numbers[2] - 1, isRelease: isRelease)
        else { return nil }
        return mouseKey(event)
    }
}
