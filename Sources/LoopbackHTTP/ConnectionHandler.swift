import NIOCore
import NIOHTTP1

/// Serves the requests of one keep-alive connection, one at a time, until either side closes it.
///
/// Requests are answered only once their end has arrived: `HTTPServerPipelineHandler` treats a
/// response that finishes before its request as a protocol violation, and every route here is
/// happy to wait.
struct ConnectionHandler: Sendable {
    typealias Connection = NIOAsyncChannel<HTTPServerRequestPart, HTTPServerResponsePart>
    typealias Writer = NIOAsyncChannelOutboundWriter<HTTPServerResponsePart>

    let recorder: StatsRecorder

    func run(_ connection: Connection) async {
        let channel = connection.channel
        var inFlight: InFlightRequest?
        do {
            try await connection.executeThenClose { inbound, outbound in
                requests: for try await part in inbound {
                    switch part {
                    case .head(let head):
                        let request = InFlightRequest(head: head, recorder: recorder)
                        inFlight = request
                        if request.uploadDelayMilliseconds > 0 {
                            // Reads of up to a megabyte would make "D ms per part" mean almost
                            // nothing; fixed-size reads make a slow upload predictably slow.
                            let part = max(1, request.queryInt("part", default: 64 * 1024))
                            try await channel.setOption(
                                .recvAllocator,
                                value: FixedSizeRecvByteBufferAllocator(capacity: part)
                            ).get()
                        }
                        if request.expectsContinue, request.route != .stallHead {
                            try await outbound.write(.head(HTTPResponseHead(version: .http1_1, status: .continue)))
                        }
                    case .body(let buffer):
                        guard var request = inFlight else { continue }
                        try await consume(buffer, into: &request, channel: channel)
                        inFlight = request
                    case .end:
                        guard var request = inFlight else { continue }
                        request.endReceived = true
                        inFlight = request
                        recorder.requestEndReceived(id: request.id)
                        let keepOpen = try await Responder(
                            request: request,
                            outbound: outbound,
                            channel: channel,
                            recorder: recorder
                        ).respond()
                        inFlight = nil
                        if !keepOpen { break requests }
                        if request.uploadDelayMilliseconds > 0 {
                            try await channel.setOption(.recvAllocator, value: LoopbackServer.recvAllocator).get()
                        }
                    }
                }
            }
        } catch {
            // A client that goes away mid-request or mid-response is routine here; stop quietly.
        }
        if let request = inFlight, !request.endReceived {
            recorder.requestAborted()
        }
    }

    private func consume(_ buffer: ByteBuffer, into request: inout InFlightRequest, channel: any Channel) async throws {
        request.bodyBytes += Int64(buffer.readableBytes)
        recorder.bodyReceived(id: request.id, bytes: buffer.readableBytes)
        guard request.route == .upload else { return }
        request.hasher?.update(buffer)
        if request.uploadDelayMilliseconds > 0 {
            try await Task.sleep(for: .milliseconds(request.uploadDelayMilliseconds))
            // Parts already queued would otherwise keep this loop sleeping long after the client
            // cancelled; the socket being gone is what matters to the abort count.
            if !channel.isActive { throw ClientWentAway() }
        }
    }
}

struct ClientWentAway: Error {}
