import Foundation
import MetaRouter

/// A destination that posts events to a webhook as `{"events": [...]}`, reusing the SDK's
/// delivery machinery: batching, byte caps, retries with backoff, the circuit breaker and
/// idempotency keys. Only the format and the endpoint are its own.
public final class WebhookDestination: DestinationPlugin {
    /// The webhook's body: `{"events": [{"id", "name", "user", "at", "data"}]}`.
    struct Format: BatchFormat {
        func encode(_ event: Event) -> [UInt8] {
            var summary: [String: JSON] = [
                "id": .string(event.messageId), "name": .string(event.event ?? event.name ?? event.type.rawValue),
                "at": JSON(timestamp: event.timestamp),
            ]
            summary["user"] = (event.userId ?? event.anonymousId).map(JSON.string)
            summary["data"] = (event.properties ?? event.traits).map(JSON.object)
            return JSONWriter.bytes(.object(summary))
        }

        func body(for events: [QueuedEvent], sentAt: Date) -> Data {
            var out = Array("{\"events\":[".utf8)
            for (index, event) in events.enumerated() {
                if index > 0 { out.append(UInt8(ascii: ",")) }
                out += event.payload
            }
            out += Array("],\"sent_at\":\(JSON(timestamp: sentAt))}".utf8)
            return Data(out)
        }

        var headers: [String: String] { ["Content-Type": "application/json", "User-Agent": "custom-plugins-sample/1.0"] }
    }

    /// `"Webhook"`.
    public let key = "Webhook"
    /// This destination's own plugins.
    public let timeline = Timeline()
    private let endpoint: URL
    private let flushAt: Int
    private var uploader: BatchUploader?

    /// Posts to `endpoint`, flushing every `flushAt` events and on `flush()`.
    public init(endpoint: URL, flushAt: Int = 20) {
        self.endpoint = endpoint
        self.flushAt = flushAt
    }

    /// Builds the uploader on the client's clock and logger.
    public func configure(analytics: AnalyticsClient) {
        var options = BatchUploader.Options(endpoint: endpoint)
        options.maxBatchSize = 50
        options.flushAt = flushAt
        options.flushIntervalSeconds = 30
        options.maxQueueEvents = 1_000
        let uploader = BatchUploader(options: options, format: Format())
        uploader.start(analytics: analytics)
        self.uploader = uploader
    }

    /// Only track events go to the webhook.
    public func track(event: Event) -> Event? {
        uploader?.enqueue(event)
        return event
    }

    /// Sends what is queued.
    public func flush() { uploader?.flush() }

    /// Delivery counters.
    public var stats: DeliveryStats { uploader?.stats ?? DeliveryStats() }
}

/// Removes `context.device.advertisingId`: added to one destination's sub-timeline, that
/// destination never receives the IDFA while the others still do.
public final class StripAdvertisingIdPlugin: Plugin {
    /// Inside a destination, before it delivers.
    public let type = PluginType.enrichment

    /// A plugin with nothing to configure.
    public init() {}

    /// Drops the advertising ID.
    public func execute(event: Event) -> Event? {
        guard case .object(var device)? = event.context["device"], device["advertisingId"] != nil else { return event }
        var event = event
        device["advertisingId"] = nil
        event.context["device"] = .object(device)
        return event
    }
}
