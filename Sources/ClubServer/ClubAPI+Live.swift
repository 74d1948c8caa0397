import DropboxWire
import Durable
import Foundation
import HTTPTypes
import HummingbirdWebSocket
import Logging
import NIOCore
import ServiceLifecycle

/// The live channel: `GET /2/byteclub/live?file=<id>` upgraded to a WebSocket (docs/live.md).
///
/// The upgrade is decided before any WebSocket byte, as every other request is: the member's
/// bearer token (401 without a good one), and a file id naming a note (`path/not_found`,
/// `path/not_file` as on the Dropbox routes). A refusal is an ordinary HTTP answer, written
/// below the HTTP codec, and the connection is closed.
extension ClubAPI {
    static let livePath = LiveChannel.path

    /// What a live connection is, once its upgrade is allowed.
    struct LiveSession: Sendable {
        let room: String
        let tokenHash: String
        let grant: Authenticator.Grant
        /// A plain club's note (not an encrypted club's): the server writes its file.
        let plain: Bool
    }

    /// Decides an upgrade request: the session it opens, or the answer refusing it.
    func liveUpgrade(_ request: HTTPRequest, address: String) async -> Result<LiveSession, APIError> {
        let path = request.path ?? ""
        let (route, query) = path.firstIndex(of: "?").map { (String(path[..<$0]), String(path[path.index(after: $0)...])) } ?? (path, "")
        guard route == Self.livePath else { return .failure(APIError(status: .notFound, contentType: "text/plain; charset=utf-8", body: Data("Not found".utf8))) }
        if case .shut(let retryAfter) = authenticator.gate(address) { return .failure(.rateLimited(retryAfter: retryAfter)) }
        guard let header = request.headerFields[.authorization], header.hasPrefix("Bearer ") else { return .failure(.unauthorized()) }
        let tokenHash = MemberBook.hash(String(header.dropFirst(7)))
        guard let grant = authenticator.grant(forTokenHash: tokenHash) else {
            if let name = authenticator.removedMember(forTokenHash: tokenHash) { return .failure(.removedMember(name)) }
            authenticator.failed(address, what: "token")
            return .failure(.unauthorized())
        }
        let file = URLComponents(string: "?" + query)?.queryItems?.first(where: { $0.name == "file" })?.value ?? ""
        guard !file.isEmpty else { return .failure(.badRequest("the live channel needs ?file=<id> (a note's id)")) }
        guard let room = LiveHub.roomName(forID: file), let notePath = await store.path(forID: "id:" + room) else {
            return .failure(.notFound)
        }
        let lower = notePath.lower
        let encrypted = inEncryptedClub(notePath)
        // An encrypted club's names are hidden (no extension): any of its files may be a note.
        guard lower.hasSuffix(".md") || lower.hasSuffix(".txt") || encrypted else { return .failure(.notFile) }
        // A folder's id, or a note since deleted on disk behind the server's back.
        guard case .file = try? await store.metadata(notePath) else { return .failure(.notFound) }
        return .success(LiveSession(room: room, tokenHash: tokenHash, grant: grant, plain: !encrypted))
    }

    /// A plain club's notes as their rooms write them (``LiveRoom+File``): read, their history,
    /// and written as a commit by the members who typed (``LiveWriters``).
    static func liveNoteFiles(_ store: FolderStore, logger: Logger) -> LiveNoteFiles {
        // Read whole, up to the room's log's cap (a note that typing made bigger is still written).
        let largest = 64 << 20
        @Sendable func text(of opened: OpenedFile) -> String? {
            guard opened.file.size <= largest else { return nil }
            var bytes = [UInt8](repeating: 0, count: Int(opened.file.size))
            var done = 0
            while done < bytes.count {
                let count = bytes.withUnsafeMutableBytes { pread(opened.handle.fd, $0.baseAddress! + done, $0.count - done, off_t(done)) }
                if count < 0, errno == EINTR { continue }
                guard count > 0 else { return nil }
                done += count
            }
            return String(validating: bytes, as: UTF8.self)
        }
        return LiveNoteFiles(
            read: { room in
                guard let path = await store.path(forID: "id:" + room), let opened = try? await store.openForReading(path),
                      let text = text(of: opened) else { return nil }
                return (text, opened.file.rev)
            },
            history: { room in
                guard let (_, page, _, _) = try? await store.listRevisions("id:" + room, limit: 10, beforeRev: nil) else { return [] }
                var texts: [String] = []
                for revision in page {
                    if let opened = try? await store.openRevision(revision.rev, path: nil), let text = text(of: opened) { texts.append(text) }
                }
                return texts
            },
            write: { room, text, rev, fallback in
                guard let path = await store.path(forID: "id:" + room) else { return .failed }
                let data = Data(text.utf8)
                let temp = store.tempDirectory + "/live-\(UUID().uuidString)"
                do {
                    try DurableFile.write(data, to: temp, temporaryDirectory: store.tempDirectory)
                } catch {
                    logger.error("live: cannot write \(path.display) from its room: \(error)")
                    return .failed
                }
                let saver = store.liveWriters.peek(fileID: "id:" + room).first ?? fallback
                do {
                    _ = try await Caller.$member.withValue(saver.isEmpty ? nil : saver) {
                        try await store.commit(temp: temp, contentHash: ContentHasher.hash(data), to: path, mode: .update(rev: rev),
                                               autorename: false, clientModified: nil, discardOnFailure: true)
                    }
                    return .written
                } catch {
                    if (error as? APIError)?.wire?.contains(.conflict) == true { return .changed }
                    logger.error("live: cannot write \(path.display) from its room: \(error)")
                    return .failed
                }
            })
    }

    /// The folder of an encrypted club's keys, beside its files (ClubKit's `ClubKeyFiles.folderName`).
    static let clubKeysFolder = ".clubkeys"

    /// Whether `path` lies in an encrypted club's folder: a folder above it holds the club's keys
    /// (``clubKeysFolder``).
    func inEncryptedClub(_ path: DropboxPath) -> Bool { Self.inEncryptedClub(path, root: store.root) }

    /// Whether `path` lies in an encrypted club's folder under the served folder `root`.
    static func inEncryptedClub(_ path: DropboxPath, root served: String) -> Bool {
        var folder = URL(fileURLWithPath: served + path.display).deletingLastPathComponent()
        let root = URL(fileURLWithPath: served).standardizedFileURL.path
        while folder.standardizedFileURL.path.count >= root.count {
            if FileManager.default.fileExists(atPath: folder.appendingPathComponent(clubKeysFolder).path) { return true }
            folder = folder.deletingLastPathComponent()
        }
        return false
    }

    /// Serves one upgraded connection until it closes, its member is removed, or the server stops.
    func serveLive(_ session: LiveSession, inbound: WebSocketInboundStream, outbound: WebSocketOutboundWriter, channel: any Channel) async {
        let hub = liveHub
        let (stream, send) = AsyncStream<LiveOutbound>.makeStream()
        // Removing the member (or changing its role) closes this connection, as it cuts a request in flight.
        let flight = authenticator.enter(tokenHash: session.tokenHash, grant: session.grant, channel: channel)
        defer { authenticator.leave(flight) }
        let joined = await hub.join(room: session.room, member: session.grant.name, plain: session.plain, send: send)
        guard case .success(let (id, room)) = joined else {
            if case .failure(let refused) = joined {
                try? await outbound.write(.text(LiveControl.error(message: refused.message).json))
                try? await outbound.close(.policyViolation, reason: refused.message)
            }
            return
        }
        await withTaskGroup(of: Void.self) { group in
            // The writer: everything the hub hands this connection, in order.
            group.addTask {
                for await message in stream {
                    switch message {
                    case .update(let frame): try? await outbound.write(.binary(ByteBuffer(bytes: frame)))
                    case .control(let control): try? await outbound.write(.text(control.json))
                    case .close(let reason):
                        try? await outbound.close(.policyViolation, reason: reason)
                        return
                    case .goingAway:
                        try? await outbound.close(.goingAway, reason: "the server is stopping")
                        return
                    }
                }
            }
            // A stopping server closes its live connections (the stop waits for every connection).
            await withGracefulShutdownHandler {
                await self.readLive(session, id: id, room: room, inbound: inbound, send: send)
            } onGracefulShutdown: {
                send.yield(.goingAway)
            }
            await hub.leave(room: session.room, id: id)
            send.finish()
            await group.waitForAll()
        }
    }

    /// Reads a connection's frames: binary messages are updates, text messages control messages.
    /// An update is queued in the room and the next frame read at once: the room stores the
    /// updates that came meanwhile together (``LiveRoom``).
    private func readLive(_ session: LiveSession, id: UInt64, room: LiveRoom, inbound: WebSocketInboundStream,
                          send: AsyncStream<LiveOutbound>.Continuation) async {
        let limits = liveHub.limits
        var message: [UInt8] = []
        var isText = false
        var oversize = false
        do {
            for try await frame in inbound {
                if frame.opcode != .continuation {
                    message.removeAll(keepingCapacity: false)
                    isText = frame.opcode == .text
                    oversize = false
                }
                if !oversize {
                    if message.count + frame.data.readableBytes > (isText ? LiveControl.maxBytes : limits.maxUpdateBytes) {
                        oversize = true
                        message = []
                    } else {
                        message += frame.data.readableBytesView
                    }
                }
                guard frame.fin else { continue }
                if oversize {
                    let what = isText ? "control message over \(LiveControl.maxBytes) bytes refused"
                                      : "update refused: at most \(limits.maxUpdateBytes) bytes"
                    send.yield(.control(.error(message: what)))
                } else if isText {
                    switch LiveControl.parseClient(message) {
                    case .success(.presenceRequest): await room.presence(to: id)
                    case .success(.cursor(let at)): await room.cursor(id: id, member: session.grant.name, at: at)
                    case .success: send.yield(.control(.error(message: "not a message a client sends")))
                    case .failure(let refused): send.yield(.control(.error(message: refused.message)))
                    }
                } else {
                    // Checked at each update, not only at join: a member removed or made a reader since.
                    guard let grant = authenticator.grant(forTokenHash: session.tokenHash), grant.name == session.grant.name else {
                        send.yield(.control(.error(message: "update refused: \(session.grant.name) is no longer a member of this club")))
                        send.yield(.close(reason: "no longer a member"))
                        return
                    }
                    guard grant.role.canWrite else {
                        send.yield(.control(.error(message: "update refused: \(grant.name) is a reader in this club; readers may not write")))
                        continue
                    }
                    if let refusal = await room.receive(id: id, member: grant.name, update: message) {
                        send.yield(.control(.error(message: refusal)))
                    }
                }
                message = []
            }
        } catch {
            configuration.logger.debug("live: connection of \(session.grant.name) ended: \(error)")
        }
    }
}
