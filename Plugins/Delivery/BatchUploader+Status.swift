import Foundation
import MetaRouterCore

extension BatchUploader {
    /// A snapshot for `getDebugInfo`.
    public struct Status: Sendable, Hashable {
        /// Events queued, the pending batch included.
        public var queueLength: Int
        /// The breaker's state.
        public var circuitState: CircuitBreaker.State
        /// Milliseconds until the breaker lets a probe through.
        public var circuitRemainingMs: Int
        /// Whether a request is in flight.
        public var flushInFlight: Bool
        /// The current batch size (halved by 413s).
        public var maxBatchSize: Int
        /// Whether the server refused the write key or endpoint.
        public var disabled: Bool
    }
}
