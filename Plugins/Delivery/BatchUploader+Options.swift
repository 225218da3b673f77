import Foundation
import MetaRouterCore

extension BatchUploader {
    /// Tuning of one uploader.
    package struct Options: Sendable {
        /// Events per batch at most (and the size 413 recovery grows back to). A server at
        /// thousands of events per second sends fewer, larger requests with a higher value
        /// (the ingestion API takes up to 500 KB per request; see ``maxBatchBytes``).
        package var maxBatchSize = Defaults.maxBatchSize
        /// Payload bytes per batch at most.
        package var maxBatchBytes = Defaults.maxBatchBytes
        /// Seconds a request may take.
        package var requestTimeout = Defaults.requestTimeoutSeconds
        /// First retry delay before the breaker opens; doubles per failure.
        package var initialRetryDelay: TimeInterval = 1
        /// The breaker's tuning.
        package var breaker = CircuitBreaker.Policy()
        /// Seconds between grouped `fsync`s of a durable store while events arrive. Records
        /// reach `write(2)` (which survives `kill -9`) once the executor has caught up or within
        /// 64 events, and before each request; `fsync`
        /// (which survives power loss) runs at most this often while records are written, and at
        /// background and at shutdown — never per event or per request.
        package var syncInterval: TimeInterval = 0.15
        /// Send bodies gzip-compressed (`Content-Encoding: gzip`): off by default, as the
        /// ingestion host must accept it. Where the platform has no DEFLATE, bodies go as they are.
        package var gzip = false
        /// Queued events that start an upload (the package initializer's flush policy).
        package var flushAt = Defaults.flushAt
        /// Seconds events wait at most for a timed upload (the package initializer's flush policy;
        /// no timer runs while nothing is queued).
        package var flushIntervalSeconds = TimeInterval(Defaults.flushIntervalSeconds)
        /// Events the package initializer's in-memory queue holds; past it the oldest go first.
        package var maxQueueEvents = Defaults.maxQueueEvents

        /// The seed's defaults.
        package init() {}
    }
}
