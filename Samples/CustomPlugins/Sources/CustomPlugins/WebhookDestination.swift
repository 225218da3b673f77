import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import MetaRouter

/// A destination of an app's own: posts track events to a webhook as
/// `{"events": [{"id", "name", "user", "at", "data"}], "sent_at": …}`, with an
/// `Idempotency-Key` per batch, once `flushAt` events wait and on every flush.
///
/// What it holds stays in memory: a batch the webhook does not take (no answer, or a status
/// other than 2xx) goes back to the front and leaves with the next flush, and at most
/// `maxQueued` events wait, the oldest dropped beyond it. One batch is in flight at a time; a
/// flush that finds one in flight returns at once, and its events leave with the next.
public final class WebhookDestination: DestinationPlugin, CompletingPlugin {
    /// `"Webhook"`.
    public let key = "Webhook"
    /// This destination's own plugins.
    public let timeline = Timeline()
    private let outbox: WebhookOutbox
    private let flushAt: Int

    /// Posts to `endpoint`.
    ///
    /// - Parameters:
    ///   - endpoint: The webhook's URL.
    ///   - flushAt: Waiting events that start a post.
    ///   - maxQueued: Events kept waiting at most.
    public init(endpoint: URL, flushAt: Int = 20, maxQueued: Int = 1_000) {
        outbox = WebhookOutbox(endpoint: endpoint, maxQueued: maxQueued)
        self.flushAt = flushAt
    }

    /// Queues track events; every event passes on unchanged.
    ///
    /// - Parameter event: The event.
    /// - Returns: `event`.
    public func execute(event: Event) -> Event? {
        guard event.type == .track else { return event }
        var summary: [String: JSON] = [
            "id": .string(event.messageId), "name": .string(event.event ?? ""), "at": JSON(timestamp: event.timestamp),
        ]
        summary["user"] = (event.userId ?? event.anonymousId).map(JSON.string)
        summary["data"] = event.properties.map(JSON.object)
        if outbox.add(.object(summary)) >= flushAt { outbox.send {} }
        return event
    }

    /// Posts what waits.
    public func flush() { outbox.send {} }

    /// Posts what waits, then calls `completion` once the webhook has answered.
    ///
    /// - Parameter completion: Called when the post has resolved.
    public func flush(completion: @escaping @Sendable () -> Void) { outbox.send(completion: completion) }

    /// Posts what waits before the instance shuts down.
    ///
    /// - Parameter completion: Called when the post has resolved.
    public func shutdown(completion: @escaping @Sendable () -> Void) { outbox.send(completion: completion) }

    /// Events the webhook has taken.
    public var sent: Int { outbox.sent }
}

/// The events waiting for the webhook, shared by the executor (which adds) and the URL
/// session's completion (which takes a batch back or counts it sent).
private final class WebhookOutbox: @unchecked Sendable {  // every stored var is read and written under `lock`
    private let endpoint: URL
    private let maxQueued: Int
    private let lock = NSLock()
    private var queued: [JSON] = []
    private var inFlight = false
    private var sentCount = 0

    init(endpoint: URL, maxQueued: Int) {
        self.endpoint = endpoint
        self.maxQueued = maxQueued
    }

    var sent: Int { lock.withLock { sentCount } }

    /// Adds an event, dropping the oldest beyond the cap; returns how many wait.
    func add(_ event: JSON) -> Int {
        lock.withLock {
            queued.append(event)
            if queued.count > maxQueued { queued.removeFirst(queued.count - maxQueued) }
            return queued.count
        }
    }

    /// Posts everything waiting unless a post is in flight; `completion` runs when it resolves.
    func send(completion: @escaping @Sendable () -> Void) {
        let batch: [JSON]? = lock.withLock {
            guard !inFlight, !queued.isEmpty else { return nil }
            inFlight = true
            defer { queued = [] }
            return queued
        }
        guard let batch else { return completion() }
        var request = URLRequest(url: endpoint)
        request.httpMethod = "POST"
        request.setValue("application/json", forHTTPHeaderField: "Content-Type")
        request.setValue(UUID().uuidString, forHTTPHeaderField: "Idempotency-Key")
        request.httpBody = try? JSONEncoder().encode(JSON.object(["events": .array(batch), "sent_at": JSON(timestamp: Date())]))
        URLSession.shared.dataTask(with: request) { _, response, error in
            let status = (response as? HTTPURLResponse)?.statusCode ?? 0
            self.finish(batch, delivered: error == nil && (200..<300).contains(status))
            completion()
        }.resume()
    }

    private func finish(_ batch: [JSON], delivered: Bool) {
        lock.withLock {
            inFlight = false
            if delivered { sentCount += batch.count } else { queued = Array((batch + queued).suffix(maxQueued)) }
        }
    }
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
