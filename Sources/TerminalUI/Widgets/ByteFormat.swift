/// Sizes, rates and durations, as the app and the command line write them: the one formatter
/// of byte counts (the lists, the transfer modal, `byteclub ls`, `get`, `put` and the rest).
///
/// Sizes use binary units with one decimal ("10.4 KiB", "12.3 MiB"), as `ls` always wrote them,
/// so a figure that changes many times a second keeps its width; integer arithmetic keeps the
/// rounding exact (1,048,525 bytes is "1.0 MiB", never "1024.0 KiB").
public enum ByteFormat {
    private static let units = ["KiB", "MiB", "GiB", "TiB", "PiB"]

    /// "0 B", "812 B", "1.2 KiB", "12.3 MiB", "20.0 GiB".
    public static func size(_ bytes: Int64) -> String {
        if bytes < 1024 { return "\(max(0, bytes)) B" }
        var divisor: Int64 = 1024
        for (index, unit) in units.enumerated() {
            // Tenths of this unit, rounded half up; quotient and remainder apart, so even
            // Int64.max never overflows (the remainder times 10 stays under 2^54).
            let tenths = (bytes / divisor) * 10 + ((bytes % divisor) * 10 + divisor / 2) / divisor
            if tenths < 10_240 || index == units.count - 1 {
                return "\(tenths / 10).\(tenths % 10) \(unit)"
            }
            divisor *= 1024
        }
        return "\(bytes) B"
    }

    /// "1.0 MiB/s"; `nil` (an unknown rate) is "--".
    public static func rate(_ bytesPerSecond: Double?) -> String {
        guard let bytesPerSecond, bytesPerSecond.isFinite, bytesPerSecond >= 0 else { return "--" }
        return size(Int64(min(bytesPerSecond.rounded(), 9e18))) + "/s"
    }

    /// "0:17", "12:05", "1:02:03"; `nil` (unknown) is "--". Fractions of a second round up,
    /// so a transfer with 0.2 s left still says "0:01".
    public static func duration(_ seconds: Double?) -> String {
        guard let seconds, seconds.isFinite, seconds >= 0 else { return "--" }
        let total = Int(min(seconds.rounded(.up), 359_999_999))
        let hours = total / 3600, minutes = (total / 60) % 60, secs = total % 60
        func two(_ n: Int) -> String { n < 10 ? "0\(n)" : "\(n)" }
        return hours > 0 ? "\(hours):\(two(minutes)):\(two(secs))" : "\(minutes):\(two(secs))"
    }
}
