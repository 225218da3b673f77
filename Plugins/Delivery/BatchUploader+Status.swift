import Foundation
import MetaRouterCore

extension BatchUploader {
    /// A snapshot for `getDebugInfo`.
    package struct Status: Sendable, Hashable {
        /// Events queued, the pending batch included.
        package var queueLength: Int
        /// The breaker's state.
        package var circuitState: CircuitBreaker.State
        /// Milliseconds until the breaker lets a probe through.
        package var circuitRemainingMs: Int
        /// Whether a request is in flight.
        package var flushInFlight: Bool
        /// The current batch size (halved by 413s).
        package var maxBatchSize: Int
        /// Whether the server refused the write key or endpoint.
        package var disabled: Bool
    }
}
