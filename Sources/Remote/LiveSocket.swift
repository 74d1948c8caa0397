import DropboxWire
import Crypto
import Foundation
import HummingbirdWSClient
import Logging
import NIOCore
import NIOPosix
import NIOSSL
import Synchronization

/// What a live note's socket tells its owner, in order.
public enum LiveSocketEvent: Sendable, Equatable {
    /// Another member's update (relayed by the server, or from its stored log at a join).
    case update(member: String, bytes: Data)
    /// The member name this connection speaks for (first, at each connect), and whether the
    /// server writes the note's file (a plain club's note).
    case welcome(String, serverWrites: Bool)
    /// Who is in the note now. The first one after a connect also says the stored log is all in.
    case presence([String])
    /// Another member's cursor (`at` as that member sent it).
    case cursor(member: String, at: String)
    /// The server refused something (an update, a message); the connection stays.
    case refused(String)
    /// The connection ended (or could not be made); the socket tries again by itself.
    case disconnected(String)
}

/// How an encrypted club's updates and cursors travel: sealed with the club key and signed by
/// their member (as its files are), opened and checked on arrival. The server relays and stores
/// ciphertext.
public struct LiveSeal: Sendable {
    /// What is sealed: an update, or where the member's cursor is. Each is signed for a path of
    /// its own, so a server cannot pass one off as the other.
    public enum Kind: Sendable {
        case update, cursor
    }

    public var seal: @Sendable (Data, Kind) throws -> Data
    /// The plaintext of a sealed update or cursor, or an error saying why it is refused (a
    /// signer who is no member, or was removed before writing it).
    public var open: @Sendable (Data, Kind) throws -> Data

    public init(seal: @escaping @Sendable (Data, Kind) throws -> Data, open: @escaping @Sendable (Data, Kind) throws -> Data) {
        self.seal = seal
        self.open = open
    }
}

/// A member's WebSocket on a club server's live channel (`/2/byteclub/live?file=id:…`, docs/live.md),
/// that connects again by itself until ``close()``.
///
/// What is sent while it is not connected is dropped: the live note sends what the server
/// lacks at each join (``LiveNote``), so nothing is lost by that. Events go to `deliver` from
/// the socket's task, in order; the app hands them to its UI queue.
public final class LiveSocket: Sendable {
    private enum Outgoing: Sendable {
        case binary(Data)
        case text(String)
    }

    private struct State {
        var current: AsyncStream<Outgoing>.Continuation?
        var closed = false
    }

    /// Shared with the socket's task.
    private final class Shared: Sendable {
        let state = Mutex(State())
    }
    private let shared = Shared()
    private let task = Mutex<Task<Void, Never>?>(nil)
    private let sealing: LiveSeal?
    private let deliver: @Sendable (LiveSocketEvent) -> Void
    private let logger: Logger

    /// - Parameters:
    ///   - url: the server's base URL (http or https).
    ///   - fileID: the note's id (`id:…`).
    ///   - pinnedPublicKey: an https club server's pin, as curl takes it (`sha256//…`).
    /// - Parameter seal: an encrypted club's sealing of updates (nil: plain).
    public init(url: URL, fileID: String, token: @escaping @Sendable () async throws -> String, pinnedPublicKey: String?, logger: Logger,
                seal: LiveSeal? = nil, deliver: @escaping @Sendable (LiveSocketEvent) -> Void) {
        sealing = seal
        self.deliver = deliver
        self.logger = logger
        let secure = url.scheme?.lowercased() == "https"
        var components = URLComponents(url: url, resolvingAgainstBaseURL: false)
        components?.scheme = secure ? "wss" : "ws"
        components?.path = LiveChannel.path
        components?.queryItems = [URLQueryItem(name: "file", value: fileID)]
        let address = components?.string ?? ""
        let host = url.host ?? "127.0.0.1"
        let port = url.port ?? (secure ? 443 : 80)
        let shared = self.shared
        task.withLock {
            $0 = Task {
                var wait = 0.25
                while !Task.isCancelled, !shared.state.withLock({ $0.closed }) {
                    let started = ContinuousClock.now
                    let ended: String
                    do {
                        var tls: TLSConfiguration?
                        if secure {
                            tls = try await LiveSocket.tlsConfiguration(host: host, port: port, pin: pinnedPublicKey)
                        }
                        ended = try await LiveSocket.run(address: address, token: try await token(), tls: tls, shared: shared, logger: logger, seal: seal,
                                                         deliver: deliver)
                    } catch {
                        ended = LiveSocket.sentence(error)
                    }
                    if Task.isCancelled || shared.state.withLock({ $0.closed }) { return }
                    deliver(.disconnected(ended))
                    // A connection that lasted is tried again at once, a failing one less and less often.
                    if ContinuousClock.now - started > .seconds(5) { wait = 0.25 }
                    try? await Task.sleep(for: .seconds(wait))
                    wait = min(wait * 2, 4)
                }
            }
        }
    }

    /// Sends an update (dropped while not connected), sealed in an encrypted club.
    public func send(update: Data) {
        guard let sealing else { return yield(.binary(update)) }
        do {
            yield(.binary(try sealing.seal(update, .update)))
        } catch {
            deliver(.refused("an update could not be sealed: \(error)"))
        }
    }

    /// Sends where this member's cursor is (dropped while not connected); in an encrypted club
    /// sealed as an update is, so the server relays a position it cannot read.
    public func send(cursor at: String) {
        guard let sealing else { return yield(.text(LiveControl.cursor(at: at).json)) }
        // A cursor that cannot be sealed is not sent: the next key sends the next one.
        do {
            yield(.text(LiveControl.cursor(at: try sealing.seal(Data(at.utf8), .cursor).base64EncodedString()).json))
        } catch {
            logger.info("live: a cursor could not be sealed: \(error)")
        }
    }

    /// Ends the connection for good.
    public func close() {
        let current = shared.state.withLock { state -> AsyncStream<Outgoing>.Continuation? in
            state.closed = true
            defer { state.current = nil }
            return state.current
        }
        current?.finish()
        task.withLock { $0?.cancel() }
    }

    private func yield(_ message: Outgoing) {
        _ = shared.state.withLock { $0.current?.yield(message) }
    }

    /// One connection, until it ends; returns why.
    private static func run(address: String, token: String, tls: TLSConfiguration?, shared: Shared, logger: Logger,
                            seal: LiveSeal?, deliver: @escaping @Sendable (LiveSocketEvent) -> Void) async throws -> String {
        var configuration = WebSocketClientConfiguration(maxFrameSize: 8 << 20, additionalHeaders: [.authorization: "Bearer \(token)"])
        configuration.autoPing = .disabled
        // SNI takes no IP address, and a club server's address often is one: a name stands in
        // (the certificate is checked against the pinned key, not a name).
        if tls != nil, let host = URLComponents(string: address)?.host, host.contains(":") || host.allSatisfy({ $0.isNumber || $0 == "." }) {
            configuration.sniHostname = "localhost"
        }
        let close = try await WebSocketClient.connect(url: address, configuration: configuration, tlsConfiguration: tls, logger: logger) { inbound, outbound, _ in
            let (stream, continuation) = AsyncStream<Outgoing>.makeStream()
            let closed = shared.state.withLock { state -> Bool in
                state.current = state.closed ? nil : continuation
                return state.closed
            }
            if closed { return }
            defer { _ = shared.state.withLock { state in state.current = nil } }
            try await withThrowingTaskGroup(of: Void.self) { group in
                group.addTask {
                    for await message in stream {
                        switch message {
                        case .binary(let bytes): try await outbound.write(.binary(ByteBuffer(bytes: bytes)))
                        case .text(let text): try await outbound.write(.text(text))
                        }
                    }
                    try? await outbound.close(.normalClosure, reason: "closed")
                }
                for try await message in inbound.messages(maxSize: 8 << 20) {
                    switch message {
                    case .binary(let buffer):
                        guard let frame = LiveFrame.decode(Array(buffer.readableBytesView)) else { continue }
                        guard let seal else {
                            deliver(.update(member: frame.member, bytes: Data(frame.update)))
                            continue
                        }
                        do {
                            deliver(.update(member: frame.member, bytes: try seal.open(Data(frame.update), .update)))
                        } catch {
                            deliver(.refused("an update relayed as \(frame.member)'s was refused: \(error)"))
                        }
                    case .text(let text):
                        switch LiveControl.parseServer(text) {
                        case .presence(let members): deliver(.presence(members))
                        // A sealed note's server cannot read it, whatever it says.
                        case .welcome(let member, let serverWrites): deliver(.welcome(member, serverWrites: serverWrites && seal == nil))
                        case .memberCursor(let member, let at):
                            guard let seal else { deliver(.cursor(member: member, at: at)); break }
                            // A cursor that does not open (not sealed, or not by a member) is
                            // dropped: it moves a coloured cell, and the next one will do.
                            do {
                                guard let sealed = Data(base64Encoded: at) else { throw RemoteError.local("not base64") }
                                deliver(.cursor(member: member, at: String(decoding: try seal.open(sealed, .cursor), as: UTF8.self)))
                            } catch {
                                logger.info("live: \(TerminalSafe.escape(member))'s cursor was dropped: \(error)")
                            }
                        case .error(let message): deliver(.refused(message))
                        default: break
                        }
                    }
                }
                continuation.finish()
                group.cancelAll()
            }
        }
        if let close { return "the server closed the live connection (\(close.closeCode)\(close.reason.map { ": \($0)" } ?? ""))" }
        return "the live connection ended"
    }

    private static func sentence(_ error: any Error) -> String {
        if let error = error as? LiveSocketError { return error.description }
        let text = "\(error)"
        if text.contains("connectionRefused") || text.contains("Connection refused") { return "the server cannot be reached (connection refused)" }
        return "the live connection failed: \(text.prefix(200))"
    }
}

/// Why an https live connection was not made.
public enum LiveSocketError: Error, CustomStringConvertible {
    case keyNotPinned(host: String)
    case keyMismatch(host: String)
    case noCertificate(host: String)

    public var description: String {
        switch self {
        case .keyNotPinned(let host): return "no key is pinned for \(host): live editing over https needs the club's pin"
        case .keyMismatch(let host): return "\(host)'s key is not the one pinned for it"
        case .noCertificate(let host): return "\(host) showed no certificate"
        }
    }
}

extension LiveSocket {
    /// An https club server's TLS for the socket: its certificate is the club's own, so it is
    /// trusted when its key is the pinned one (as curl's `CURLOPT_PINNEDPUBLICKEY` checks it for
    /// every other request). A first handshake fetches the certificate and checks its key; the
    /// socket's connection then trusts that certificate alone (the host name aside: a club's
    /// address changes with the network).
    static func tlsConfiguration(host: String, port: Int, pin: String?) async throws -> TLSConfiguration {
        guard let pin else { throw LiveSocketError.keyNotPinned(host: host) }
        let leaf = try await PeerCertificate.fetch(host: host, port: port)
        let spki = try leaf.extractPublicKey().toSPKIBytes()
        let found = "sha256//" + Data(SHA256.hash(data: spki)).base64EncodedString()
        let pins = pin.split(separator: ";").map { $0.trimmingCharacters(in: .whitespaces) }
        guard pins.contains(found) else { throw LiveSocketError.keyMismatch(host: host) }
        var configuration = TLSConfiguration.makeClientConfiguration()
        configuration.trustRoots = .certificates([leaf])
        configuration.certificateVerification = .noHostnameVerification
        return configuration
    }
}

/// The certificate a TLS server shows, taken from one handshake and nothing else.
private enum PeerCertificate {
    static func fetch(host: String, port: Int) async throws -> NIOSSLCertificate {
        var configuration = TLSConfiguration.makeClientConfiguration()
        configuration.certificateVerification = .none
        let context = try NIOSSLContext(configuration: configuration)
        let promise = MultiThreadedEventLoopGroup.singleton.next().makePromise(of: NIOSSLCertificate.self)
        let answered = Mutex(false)
        @Sendable func answer(_ result: Result<NIOSSLCertificate, any Error>) {
            guard answered.withLock({ done in defer { done = true }; return !done }) else { return }
            promise.completeWith(result)
        }
        let channel = try await ClientBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .connectTimeout(.seconds(5))
            .channelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    let handler = try NIOSSLClientHandler(context: context, serverHostname: String?.none) { certificates, verdict in
                        if let leaf = certificates.first { answer(.success(leaf)) } else { answer(.failure(LiveSocketError.noCertificate(host: host))) }
                        // Only looked at: the connection ends here either way.
                        verdict.succeed(NIOSSLVerificationResult.failed)
                    }
                    try channel.pipeline.syncOperations.addHandler(handler)
                }
            }
            .connect(host: host, port: port).get()
        channel.closeFuture.whenComplete { _ in answer(.failure(LiveSocketError.noCertificate(host: host))) }
        defer { channel.close(promise: nil) }
        return try await promise.futureResult.get()
    }
}

extension DropboxStore {
    /// A note's live socket on this club server; nil for Dropbox itself (no live channel).
    public func openLive(fileID: String, seal: LiveSeal? = nil, deliver: @escaping @Sendable (LiveSocketEvent) -> Void) -> LiveSocket? {
        guard speaksClub else { return nil }
        let tokens = self.tokens
        return LiveSocket(url: endpoints.rpc, fileID: fileID, token: { try await tokens.accessToken() },
                          pinnedPublicKey: configuration.pinnedPublicKey, logger: logger, seal: seal, deliver: deliver)
    }
}
