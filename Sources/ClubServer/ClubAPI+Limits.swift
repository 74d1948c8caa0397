import Foundation
import HTTPTypes
import Hummingbird
import Logging
import NIOCore

extension ClubAPI {
    /// An RPC endpoint's JSON argument at most.
    static let maxJSONBodyBytes = 1 << 20

    /// The connection caps fitted to the process's descriptor limit (raised first), and the
    /// admission that enforces them.
    static func admission(for configuration: ClubServerConfiguration) -> (admission: ConnectionAdmission, acceptCap: Int) {
        let limits = configuration.limits
        let descriptors = FileDescriptorBudget.raiseSoftLimit()
        let caps = FileDescriptorBudget.caps(wanted: max(1, limits.maxConnections), descriptors: descriptors)
        if caps.served < limits.maxConnections {
            configuration.logger.notice("serving at most \(caps.served) connections, not \(limits.maxConnections): the file-descriptor limit is \(descriptors) (ulimit -n)")
        }
        let admission = ConnectionAdmission(maxConnections: caps.served, maxPerClient: max(0, limits.maxConnectionsPerClient),
                                            logger: configuration.logger)
        return (admission, caps.accepted)
    }

    /// An RPC request's JSON body, read whole within `maxJSONBodyBytes`; beyond that a 413 (and the
    /// connection is closed rather than read to its end).
    func jsonBody(_ request: Request) async throws -> ByteBuffer {
        var request = request
        do {
            return try await request.collectBody(upTo: Self.maxJSONBodyBytes)
        } catch is NIOTooManyBytesError {
            throw ConnectionAnswer.payloadTooLarge.apiError
        }
    }
}

/// Answers 413 at once to a request whose `Content-Length` is over its endpoint's cap, before
/// anything else reads it: a JSON argument over 1 MiB, an upload over `maxRequestBodyBytes`.
/// (A chunked body has no length: the endpoint counts as it reads.)
struct BodyLimit: RouterMiddleware {
    typealias Context = ClubRequestContext
    /// The cap for content endpoints (uploads); every other endpoint takes JSON.
    let contentCap: Int64
    let contentPaths: Set<String>

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        if let text = request.headers[.contentLength], let length = Int64(text) {
            let cap = contentPaths.contains(request.uri.path) ? contentCap : Int64(ClubAPI.maxJSONBodyBytes)
            if length > cap { return ClubAPI.response(for: ConnectionAnswer.payloadTooLarge.apiError) }
        }
        return try await next(request, context)
    }
}
