import Foundation
import MetaRouterCore

/// Where an uploader's request bodies are gzip-compressed: a serial queue of its own with one
/// reused compressor, so the executor goes on taking events while a body is compressed. While a
/// request is in flight the uploader hands over the body the next batch would have
/// (``prepare(_:for:sentAt:)``); when that batch is taken with the same events, its body is already
/// compressed and leaves at once instead of after its compression — unless it was made more
/// than ``preparedLifetime`` before: its `sentAt`, which the host uses to correct the device's
/// clock, would then be stale.
final class RequestCompression: Sendable {
    /// What identifies a batch's events: the queue is first in, first out and messageIds are
    /// unique, so the same first and last ids, count and size mean the same events.
    struct BatchIdentity: Sendable, Equatable {
        let first: String
        let last: String
        let count: Int
        let bytes: Int

        init(_ events: [QueuedEvent]) {
            first = events.first?.messageId ?? ""
            last = events.last?.messageId ?? ""
            count = events.count
            bytes = events.reduce(0) { $0 + $1.payload.count }
        }
    }

    /// Seconds a body compressed ahead stays usable.
    static let preparedLifetime = 1.0

    private let queue = DispatchQueue(label: "com.metarouter.gzip", qos: .utility)
    /// Used only on `queue`.
    private let compressor = GzipCompressor()
    /// The body compressed ahead, for the batch it was made from; read and written on `queue`.
    private let prepared = Locked<(batch: BatchIdentity, sentAt: Date, body: Data)?>(nil)
    /// Bodies sent as they were compressed ahead.
    let sentPrepared = Locked(0)

    /// Compresses `request`'s body on the queue — or takes the one prepared for the same batch —
    /// and passes the request on: compressed, with `Content-Encoding: gzip`, or as it was when
    /// DEFLATE is unavailable or fails.
    func compress(
        _ request: TransportRequest, of batch: BatchIdentity, sentAt: Date, then send: @escaping @Sendable (TransportRequest) -> Void
    ) {
        queue.async { [compressor, prepared, sentPrepared] in
            var request = request
            let ready = prepared.withLock { slot -> Data? in
                defer { slot = nil }
                guard let slot, slot.batch == batch, (0...Self.preparedLifetime).contains(sentAt.timeIntervalSince(slot.sentAt)) else { return nil }
                return slot.body
            }
            if ready != nil { sentPrepared.withLock { $0 += 1 } }
            if let compressed = ready ?? compressor?.compress(request.body) {
                request.body = compressed
                request.headers["Content-Encoding"] = "gzip"
            }
            send(request)
        }
    }

    /// Compresses, ahead of time, the body the batch after the one in flight would have,
    /// stamped with `sentAt`.
    func prepare(_ body: Data, for batch: BatchIdentity, sentAt: Date) {
        queue.async { [compressor, prepared] in
            let compressed = compressor?.compress(body)
            prepared.withLock { $0 = compressed.map { (batch, sentAt, $0) } }
        }
    }

    /// Runs `work` on the queue after what it already holds.
    func afterPending(_ work: @escaping @Sendable () -> Void) {
        queue.async(execute: work)
    }
}
