import Foundation
import MetaRouterCore

/// Changes events at a stage: adds `properties.<marker>` = stage order.
final class MarkingPlugin: Plugin {
    let type: PluginType
    let marker: String
    private(set) var configured = 0

    init(_ type: PluginType, marker: String) {
        self.type = type
        self.marker = marker
    }

    func configure(analytics: AnalyticsClient) { configured += 1 }

    func execute(event: Event) -> Event? {
        var event = event
        var properties = event.properties ?? [:]
        let trail = properties["trail"]?.stringValue ?? ""
        properties["trail"] = .string(trail.isEmpty ? marker : trail + ">" + marker)
        event.properties = properties
        return event
    }
}

/// Drops events whose name is in `names`.
final class DroppingPlugin: Plugin {
    let type: PluginType
    let names: Set<String>
    init(_ type: PluginType, dropping names: Set<String>) {
        self.type = type
        self.names = names
    }
    func execute(event: Event) -> Event? {
        names.contains(event.event ?? event.name ?? "") ? nil : event
    }
}

/// Records which per-type hooks ran.
final class HookRecordingPlugin: EventPlugin, @unchecked Sendable {  // `calls` is read after settle(), when the executor is idle
    let type = PluginType.enrichment
    private(set) var calls: [String] = []
    func track(event: Event) -> Event? { calls.append("track"); return event }
    func identify(event: Event) -> Event? { calls.append("identify"); return event }
    func screen(event: Event) -> Event? { calls.append("screen"); return event }
    func page(event: Event) -> Event? { calls.append("page"); return event }
    func group(event: Event) -> Event? { calls.append("group"); return event }
    func alias(event: Event) -> Event? { calls.append("alias"); return event }
}

/// A utility plugin that counts every hook it sees.
final class UtilityProbe: Plugin, @unchecked Sendable {  // counters are read after settle()
    let type = PluginType.utility
    private(set) var executed = 0
    private(set) var resets = 0
    private(set) var flushes = 0
    private(set) var shutdowns = 0
    func execute(event: Event) -> Event? { executed += 1; return event }
    func reset() { resets += 1 }
    func flush() { flushes += 1 }
    func shutdown() { shutdowns += 1 }
}

/// A destination that counts the control hooks reaching it.
final class HookCountingDestination: DestinationPlugin, @unchecked Sendable {  // counters are read after settle()
    let key = "HookCounter"
    let timeline = Timeline()
    private(set) var resets = 0
    private(set) var flushes = 0
    private(set) var shutdowns = 0
    func reset() { resets += 1 }
    func flush() { flushes += 1 }
    func shutdown() { shutdowns += 1 }
}

/// Sets `userId` from a counter so ordering tests can see identity boundaries.
final class SessionStampPlugin: Plugin {
    let type = PluginType.before
    var session = 0
    func execute(event: Event) -> Event? {
        var event = event
        if event.type == .identify { session += 1 }
        event.userId = "session-\(session)"
        return event
    }
    func reset() { session += 1000 }
}

func makeClient(_ plugins: [any Plugin], writeKey: String = "test-key", clock: any AnalyticsClock = SystemClock()) -> AnalyticsClient {
    AnalyticsClient(configuration: Configuration(writeKey: writeKey, logger: AnalyticsLogger(sink: SilentSink()), clock: clock), plugins: plugins)
}

struct SilentSink: LogSink {
    func log(level: LogLevel, message: String) {}
}

/// Holds the executor on its first event until the test opens the gate, so that everything
/// tracked meanwhile is still waiting in the ingress.
final class ExecutorGate: Plugin, @unchecked Sendable {  // the semaphores are thread-safe; `held` is touched only on the executor
    let type = PluginType.before
    let entered = DispatchSemaphore(value: 0)
    let open = DispatchSemaphore(value: 0)
    private var held = false

    func execute(event: Event) -> Event? {
        if !held {
            held = true
            entered.signal()
            open.wait()
        }
        return event
    }

    /// Tracks an event and returns once the executor is held on it.
    func hold(_ client: AnalyticsClient) async {
        client.track("hold")
        await withCheckedContinuation { (done: CheckedContinuation<Void, Never>) in
            DispatchQueue.global().async {
                self.entered.wait()
                done.resume()
            }
        }
    }
}
