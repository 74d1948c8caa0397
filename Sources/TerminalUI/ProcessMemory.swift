internal import CTerminalShim

/// The process-wide memory setting `byteclub` makes once at its start (and app-bench, for the
/// app it runs in process).
public enum ProcessMemory {
    /// At most two malloc arenas. glibc gives each thread that allocates while another holds an
    /// arena one of its own (up to 8 per core), and each keeps what was freed in it: the app's
    /// threads (the UI queue, the index's executor, Dispatch's workers, curl's, a WebDAV
    /// listing's parser) held 20–35 MiB more at the peak of a 100,000-note first sync than with
    /// two (`app-bench club --webdav`: 170–183 MiB, 150 MiB with two; issue 56). Call it before
    /// the app's threads start.
    public static func limitMallocArenas(to count: Int32 = 2) {
        _ = bc_limit_malloc_arenas(count)
    }
}
