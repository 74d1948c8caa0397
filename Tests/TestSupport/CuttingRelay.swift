import LoopbackHTTP

/// A TCP relay that cuts one connection after so many client bytes, and counts how many
/// connections were open at once (defined beside the loopback server, like the WebDAV proxy).
public typealias CuttingRelay = LoopbackHTTP.CuttingRelay
