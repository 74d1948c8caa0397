/// Sizes, rates and durations as transfer displays write them.
///
/// Sizes use decimal units with one decimal ("12.3 MB"), so a figure that changes many times a
/// second keeps its width; integer arithmetic keeps the rounding exact (999,950 bytes is
/// "1.0 MB", never "1000.0 KB").
public enum ByteFormat {
    private static let units = ["KB", "MB", "GB", "TB", "PB"]

    /// "0 B", "812 B", "1.2 KB", "12.3 MB", "20.0 GB".
    public static func size(_ bytes: Int64) -> String {
        if bytes < 1000 { return "\(max(0, bytes)) B" }
        var divisor: Int64 = 1000
        for (index, unit) in units.enumerated() {
            // Tenths of this unit, rounded half up.
            let tenths = (bytes / divisor) * 10 + ((bytes % divisor) * 10 + divisor / 2) / divisor
            if tenths < 10_000 || index == units.count - 1 {
                return "\(tenths / 10).\(tenths % 10) \(unit)"
            }
            divisor *= 1000
        }
        return "\(bytes) B"
    }

    /// "1.0 MB/s"; `nil` (an unknown rate) is "--".
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
