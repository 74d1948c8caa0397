import Agent
import ClubKit
import Foundation

/// `put` and `get` without `--agent` move their own bytes, but a killed agent's journal may
/// hold transfers nobody carries on any more. As the issue asks, such a command finds them and
/// starts an agent, which picks them up from the journal (the app does the same when it opens:
/// AppAgent's `journalHasWork`).
enum AgentJournalWake {
    /// Starts the club's agent when its journal holds queued or running transfers and no agent
    /// answers on the socket, saying so in one line on stderr. It never fails the command: an
    /// agent that cannot start is reported and the command goes on as ever.
    static func resumeUnfinished(_ options: BackendOptions) {
        // A WebDAV password typed at a prompt is not asked for twice.
        if options.webdav != nil, (Paths.variable("BYTECLUB_WEBDAV_PASSWORD") ?? "").isEmpty { return }
        guard let remote = try? options.agentRemote() else { return }
        let journal = AgentPlace.journal(key: remote.key, stateFolder: Paths.state)
        let waiting = AgentJournal(url: journal).load().transfers.filter { $0.state == .queued || $0.state == .running }
        // Only now the socket folder, which finding it makes when missing.
        guard !waiting.isEmpty, let place = try? BackendOptions.agentPlace(remote) else { return }
        if let live = AgentClient.live(place: place) {
            // A live agent is carrying them on already.
            live.close()
            return
        }
        do {
            let client = try AgentClient.connect(place: place, remote: remote, executable: ownExecutable)
            client.connection.close()
            say("started the background agent for \(waiting.count) unfinished transfer(s) in its journal; `byteclub transfers` shows them")
        } catch {
            say("cannot start the background agent for the unfinished transfers in its journal: \(error)")
        }
    }
}
