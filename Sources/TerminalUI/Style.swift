/// A terminal color.
///
/// Colors are stated at the precision the caller has in mind and reduced to what the terminal
/// can show when they are drawn (see ``ColorDepth`` and ``Color/reduced(to:)``).
public enum Color: Hashable, Sendable {
    /// The terminal's own foreground or background (curses color -1).
    case `default`
    /// One of the 16 palette colors, whose look the user's terminal theme decides.
    case ansi(UInt8)
    /// An xterm-256 palette index.
    case indexed(UInt8)
    /// A 24-bit color.
    case rgb(UInt8, UInt8, UInt8)

    public static let black = Color.ansi(0)
    public static let red = Color.ansi(1)
    public static let green = Color.ansi(2)
    public static let yellow = Color.ansi(3)
    public static let blue = Color.ansi(4)
    public static let magenta = Color.ansi(5)
    public static let cyan = Color.ansi(6)
    public static let white = Color.ansi(7)
    public static let brightBlack = Color.ansi(8)
    public static let brightWhite = Color.ansi(15)
}

/// How many colors the terminal can show, from nothing (or `NO_COLOR`) up to 24-bit.
public enum ColorDepth: Int, Comparable, Sendable, CaseIterable {
    /// Attributes only: the terminal has no colors, or the user set `NO_COLOR`.
    case none
    /// The 8 (or 16) ANSI colors.
    case ansi8
    /// The xterm-256 palette.
    case indexed256
    /// Direct 24-bit color (`COLORS` ≥ 2^24, as with `TERM=xterm-direct`).
    case truecolor

    public static func < (lhs: ColorDepth, rhs: ColorDepth) -> Bool { lhs.rawValue < rhs.rawValue }

    /// The depth for a terminal reporting `colors` colors, honouring `NO_COLOR`.
    ///
    /// `NO_COLOR` counts only when set to a non-empty value, as no-color.org specifies.
    public static func detect(colors: Int, noColor: String?) -> ColorDepth {
        if let noColor, !noColor.isEmpty { return .none }
        if colors >= 1 << 24 { return .truecolor }
        if colors >= 256 { return .indexed256 }
        if colors >= 8 { return .ansi8 }
        return .none
    }
}

extension Color {
    /// The xterm palette as RGB: 16 system colors, the 6×6×6 cube, then 24 grays.
    static func rgbComponents(ofIndex index: UInt8) -> (UInt8, UInt8, UInt8) {
        let system: [(UInt8, UInt8, UInt8)] = [
            (0, 0, 0), (205, 0, 0), (0, 205, 0), (205, 205, 0), (0, 0, 238), (205, 0, 205), (0, 205, 205), (229, 229, 229),
            (127, 127, 127), (255, 0, 0), (0, 255, 0), (255, 255, 0), (92, 92, 255), (255, 0, 255), (0, 255, 255), (255, 255, 255),
        ]
        let i = Int(index)
        if i < 16 { return system[i] }
        if i < 232 {
            let levels: [UInt8] = [0, 95, 135, 175, 215, 255]
            let c = i - 16
            return (levels[c / 36], levels[(c / 6) % 6], levels[c % 6])
        }
        let gray = UInt8(8 + 10 * (i - 232))
        return (gray, gray, gray)
    }

    /// The nearest xterm-256 index, choosing between the color cube and the gray ramp.
    static func nearestIndex256(_ r: UInt8, _ g: UInt8, _ b: UInt8) -> UInt8 {
        func cubeLevel(_ v: UInt8) -> Int {
            let v = Int(v)
            if v < 48 { return 0 }
            if v < 115 { return 1 }
            return (v - 35) / 40
        }
        let (cr, cg, cb) = (cubeLevel(r), cubeLevel(g), cubeLevel(b))
        let cubeIndex = UInt8(16 + 36 * cr + 6 * cg + cb)
        let average = (Int(r) + Int(g) + Int(b)) / 3
        let grayStep = average > 238 ? 23 : max(0, (average - 3) / 10)
        let grayIndex = UInt8(232 + min(23, grayStep))
        return distance(rgbComponents(ofIndex: cubeIndex), (r, g, b)) <= distance(rgbComponents(ofIndex: grayIndex), (r, g, b))
            ? cubeIndex : grayIndex
    }

    /// The nearest of the first `count` (8 or 16) system colors.
    static func nearestANSI(_ r: UInt8, _ g: UInt8, _ b: UInt8, count: Int = 8) -> UInt8 {
        var best: UInt8 = 0
        var bestDistance = Int.max
        for i in 0..<UInt8(count) {
            let d = distance(rgbComponents(ofIndex: i), (r, g, b))
            if d < bestDistance { (best, bestDistance) = (i, d) }
        }
        return best
    }

    private static func distance(_ a: (UInt8, UInt8, UInt8), _ b: (UInt8, UInt8, UInt8)) -> Int {
        let dr = Int(a.0) - Int(b.0), dg = Int(a.1) - Int(b.1), db = Int(a.2) - Int(b.2)
        // Weighted for the eye's sensitivity, which picks visibly closer palette entries than plain RGB distance.
        return 2 * dr * dr + 4 * dg * dg + 3 * db * db
    }

    /// This color as the terminal at `depth` can show it; `nil` when it shows no color at all.
    public func reduced(to depth: ColorDepth) -> Color? {
        switch (depth, self) {
        case (.none, _): return nil
        case (_, .default): return .default
        case (.truecolor, _): return self
        case (.indexed256, .rgb(let r, let g, let b)): return .indexed(Color.nearestIndex256(r, g, b))
        case (.indexed256, _): return self
        case (.ansi8, .ansi(let n)): return .ansi(n % 8)
        case (.ansi8, .indexed(let n)) where n < 16: return .ansi(n % 8)
        case (.ansi8, .indexed(let n)):
            let (r, g, b) = Color.rgbComponents(ofIndex: n)
            return .ansi(Color.nearestANSI(r, g, b))
        case (.ansi8, .rgb(let r, let g, let b)): return .ansi(Color.nearestANSI(r, g, b))
        }
    }
}

/// Text attributes that terminals show without color.
public struct TextAttributes: OptionSet, Hashable, Sendable {
    public let rawValue: UInt8
    public init(rawValue: UInt8) { self.rawValue = rawValue }

    public static let bold = TextAttributes(rawValue: 1 << 0)
    public static let reverse = TextAttributes(rawValue: 1 << 1)
    public static let underline = TextAttributes(rawValue: 1 << 2)
    public static let dim = TextAttributes(rawValue: 1 << 3)
    public static let italic = TextAttributes(rawValue: 1 << 4)
}

/// How a cell looks: foreground, background and attributes.
public struct Style: Hashable, Sendable {
    public var foreground: Color
    public var background: Color
    public var attributes: TextAttributes

    public init(foreground: Color = .default, background: Color = .default, attributes: TextAttributes = []) {
        self.foreground = foreground
        self.background = background
        self.attributes = attributes
    }

    /// The terminal's default colors, no attributes.
    public static let plain = Style()

    public func foreground(_ color: Color) -> Style { var s = self; s.foreground = color; return s }
    public func background(_ color: Color) -> Style { var s = self; s.background = color; return s }
    public func adding(_ attributes: TextAttributes) -> Style { var s = self; s.attributes.formUnion(attributes); return s }
    public var bold: Style { adding(.bold) }

    /// This style reduced to what a terminal at `depth` shows (colors dropped for `.none`).
    public func reduced(to depth: ColorDepth) -> Style {
        Style(
            foreground: foreground.reduced(to: depth) ?? .default,
            background: background.reduced(to: depth) ?? .default,
            attributes: attributes
        )
    }
}
