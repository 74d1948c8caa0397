import LoopbackHTTP

/// `rclone serve webdav` on a random loopback port (defined beside the loopback server, so the
/// benchmarks can start it too).
public typealias RcloneWebDAV = LoopbackHTTP.RcloneWebDAV
/// A fixture that could not be set up.
public typealias FixtureError = LoopbackHTTP.FixtureError
/// A proxy in front of it that writes ETags in other forms or cuts PUTs half-way.
public typealias WebDAVProxy = LoopbackHTTP.WebDAVProxy
