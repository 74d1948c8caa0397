import CCurl

/// A user name and password for HTTP authentication, and the schemes they may be sent with.
///
/// curl answers the server's challenge itself (`CURLOPT_USERNAME`, `CURLOPT_PASSWORD`,
/// `CURLOPT_HTTPAUTH`), and sends them to the request's own host only, never to a host a
/// redirect leads to. With `.basic` alone they go with the first request, as `curl -u` does;
/// with more than one scheme curl first asks without them and picks from the 401's challenge,
/// which costs a round trip per request (and a Digest exchange always does: the first
/// request of a body upload goes with an empty body, then the body once the nonce is known).
///
/// The password never appears in a description: printing a configuration, or a credentials
/// value in a log line, shows `user:•••`.
public struct Credentials: Sendable, Equatable, CustomStringConvertible, CustomDebugStringConvertible {
    /// The HTTP authentication schemes curl may use.
    public struct Schemes: OptionSet, Sendable, Hashable {
        public let rawValue: Int
        public init(rawValue: Int) { self.rawValue = rawValue }

        public static let basic = Schemes(rawValue: 1 << 0)
        public static let digest = Schemes(rawValue: 1 << 1)
        /// Whatever the server offers of the two.
        public static let any: Schemes = [.basic, .digest]
    }

    public var user: String
    public var password: String
    public var schemes: Schemes

    public init(user: String, password: String, schemes: Schemes = .any) {
        self.user = user
        self.password = password
        self.schemes = schemes.isEmpty ? .any : schemes
    }

    public var description: String { "\(user):•••" }
    public var debugDescription: String { description }

    /// The `CURLOPT_HTTPAUTH` bit mask.
    var curlMask: Int {
        var mask = 0
        if schemes.contains(.basic) { mask |= BC_CURLAUTH_BASIC }
        if schemes.contains(.digest) { mask |= BC_CURLAUTH_DIGEST }
        return mask
    }
}
