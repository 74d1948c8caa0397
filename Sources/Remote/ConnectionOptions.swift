import Foundation
import Logging
import Transfer

/// How a store's connections behave, in the terms a person sets them (`--timeout`, `--bwlimit`).
///
/// The CLI and the app configure a ``DropboxStore`` with this and never see Transfer's
/// session configuration, which the store builds from it.
public struct ConnectionOptions: Sendable, Equatable {
    /// A request fails when no byte moves, or no connection is made, for this many seconds.
    public var idleTimeout: TimeInterval = 60
    /// A per-transfer cap in bytes per second, applied to uploads and downloads alike; nil for none.
    public var bandwidthLimit: Int64?
    /// The User-Agent sent with every request.
    public var userAgent: String = "byteclub/0.1"
    /// A club server's pinned key (`sha256//…`, from its invite or config.toml's `pin`): the
    /// only key its connections accept.
    public var pinnedPublicKey: String?

    public init(idleTimeout: TimeInterval = 60, bandwidthLimit: Int64? = nil, userAgent: String = "byteclub/0.1", pinnedPublicKey: String? = nil) {
        self.pinnedPublicKey = pinnedPublicKey
        self.idleTimeout = idleTimeout
        self.bandwidthLimit = bandwidthLimit
        self.userAgent = userAgent
    }

    /// Transfer's configuration for these options: the defaults, with these fields set.
    var sessionConfiguration: SessionConfiguration {
        var configuration = SessionConfiguration.default
        configuration.userAgent = userAgent
        configuration.timeoutIntervalForRequest = idleTimeout
        configuration.pinnedPublicKey = pinnedPublicKey
        // Room for the most streams one transfer may use (`--streams 16`) and a call beside it.
        configuration.maximumConnectionsPerHost = max(configuration.maximumConnectionsPerHost, TransferStreams.allowed.upperBound + 2)
        if let bandwidthLimit {
            configuration.maxSendBytesPerSecond = bandwidthLimit
            configuration.maxReceiveBytesPerSecond = bandwidthLimit
        }
        return configuration
    }
}

extension DropboxStore {
    /// A store whose connections follow `connection`.
    public convenience init(displayName: String, endpoints: DropboxEndpoints, tokens: any AccessTokenProvider,
                            connection: ConnectionOptions, retry: RetryPolicy = RetryPolicy(),
                            singleUploadLimit: Int64 = 8 << 20, chunkSize: Int64 = 32 << 20, logger: Logger = Logger(label: "byteclub.remote"),
                            listingLimits: ListingLimits = .standard, speaksClub: Bool? = nil) {
        self.init(displayName: displayName, endpoints: endpoints, tokens: tokens, configuration: connection.sessionConfiguration,
                  retry: retry, singleUploadLimit: singleUploadLimit, chunkSize: chunkSize, logger: logger, listingLimits: listingLimits,
                  speaksClub: speaksClub)
    }
}
