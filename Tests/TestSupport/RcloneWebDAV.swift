import LoopbackHTTP

/// `rclone serve webdav` on a random loopback port (defined beside the loopback server, so the
/// benchmarks can start it too).
public typealias RcloneWebDAV = LoopbackHTTP.RcloneWebDAV
/// A fixture that could not be set up.
public typealias FixtureError = LoopbackHTTP.FixtureError
