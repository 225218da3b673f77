import Foundation
import MetaRouterCore
import MetaRouterTesting
import Testing

@testable import MetaRouter

/// A format of the test's own: `{"batch": […]}` to `/own/batch`, the batch id in `X-Batch-Id`,
/// and a vendor's answers (2xx, 429 with `Retry-After`, 413, 5xx, other 4xx). Events named
/// `Unwritable` make the batch throw.
struct OwnFormat: DeliveryFormat {
    let host: URL
    struct Unwritable: Error {}

    func request(for batch: DeliveryBatch) throws -> DeliveryRequest {
        if batch.events.contains(where: { $0["event"] == "Unwritable" }) { throw Unwritable() }
        if batch.events.contains(where: { $0["event"] == "To A File" }) {
            return DeliveryRequest(url: URL(fileURLWithPath: "/tmp/nowhere"), body: Data())
        }
        return DeliveryRequest(
            url: host.appendingPathComponent("own/batch"), headers: ["Content-Type": "application/json", "X-Batch-Id": batch.id],
            body: Data(JSONWriter.bytes(["batch": .array(batch.events)])))
    }

    func verdict(for response: DeliveryResponse) -> DeliveryVerdict {
        switch response.status {
        case 200..<300: return .delivered
        case 413: return .split
        case 429: return .retry(after: response.header("Retry-After").flatMap(Double.init))
        case 400..<500: return .reject(reason: "status \(response.status)")
        default: return .retry(after: nil)
        }
    }
}

/// An instance whose built-in destination sends to `host` (through `transport` when given),
/// with `own` beside it, a flush every second, its own storage `directory` and log sink, on
/// `clock` when given.
func instanceBesideTheBuiltIn(
    _ own: DurableDestination, host: URL, directory: URL, writeKey: String, clock: (any AnalyticsClock)? = nil,
    transport: (any HTTPTransport)? = nil
) -> MetaRouter.Analytics {
    var options = InitOptions(writeKey: writeKey, ingestionHost: host.absoluteString, flushIntervalSeconds: 1)
    options.storageDirectory = directory
    options.clock = clock
    options.transport = transport
    options.keyValueStore = InMemoryKeyValueStore()
    options.logSink = RecordingLogSink()
    let handoff = UncheckedDestination(own)
    options.plugins = { [handoff.destination] }
    return MetaRouter.Analytics.instance(for: options)
}

/// Hands one destination to one instance's `@Sendable` plugin factory.
struct UncheckedDestination: @unchecked Sendable {  // given to exactly one instance, which alone calls it
    let destination: DurableDestination
    init(_ destination: DurableDestination) { self.destination = destination }
}

/// Holds every `request(for:)` of a ``GatedFormat`` until opened.
final class FormatGate: Sendable {
    private let opened = DispatchSemaphore(value: 0)
    /// Whether a request was asked for.
    let entered = Locked(false)

    /// Waits until ``open()``; passes at once after it.
    func pass() {
        entered.withLock { $0 = true }
        opened.wait()
        opened.signal()
    }

    func open() { opened.signal() }
}

/// ``OwnFormat`` whose requests, or verdicts, wait at a gate.
struct GatedFormat: DeliveryFormat {
    let inner: OwnFormat
    let gate: FormatGate
    let inVerdict: Bool

    func request(for batch: DeliveryBatch) throws -> DeliveryRequest {
        if !inVerdict { gate.pass() }
        return try inner.request(for: batch)
    }

    func verdict(for response: DeliveryResponse) -> DeliveryVerdict {
        if inVerdict { gate.pass() }
        return inner.verdict(for: response)
    }
}
