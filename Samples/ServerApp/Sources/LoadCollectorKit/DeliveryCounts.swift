/// What the load test's collector saw: requests, accepted batches, events, each message id once,
/// duplicates, refusals and the largest gap between two accepted batches.
public struct DeliveryCounts: Sendable {
    /// Requests received, refused ones included.
    public private(set) var requests = 0
    /// Batches accepted.
    public private(set) var acceptedBatches = 0
    /// Events in the accepted batches, duplicates included.
    public private(set) var events = 0
    /// Events whose message id had been accepted before.
    public private(set) var duplicates = 0
    /// Requests answered 503 (the outage).
    public private(set) var refused = 0
    /// The largest gap between two accepted batches, in seconds.
    public private(set) var maxGapSeconds = 0.0
    private var seen = MessageIDSet()
    private var lastAccepted: Double?

    /// No requests yet.
    public init() {}

    /// Distinct message ids accepted so far.
    public var unique: Int { seen.count }

    /// A request arrived.
    public mutating func received() { requests += 1 }

    /// A request was refused (an outage).
    public mutating func refuse() { refused += 1 }

    /// A batch with `ids` was accepted at `seconds` (any monotonic clock).
    public mutating func accept(_ ids: [MessageID], at seconds: Double) {
        acceptedBatches += 1
        events += ids.count
        for id in ids where !seen.insert(id) { duplicates += 1 }
        if let lastAccepted { maxGapSeconds = max(maxGapSeconds, seconds - lastAccepted) }
        lastAccepted = seconds
    }

    /// The counts as the Python collector's `/_stats` JSON names them.
    public var json: String {
        """
        {"requests": \(requests), "accepted_batches": \(acceptedBatches), "events": \(events), \
        "duplicates": \(duplicates), "refused": \(refused), "max_gap_s": \(maxGapSeconds), \
        "out_of_order": 0, "unique": \(unique)}
        """
    }
}
