import Foundation
import MetaRouterCore

/// The seed's configuration.
public struct SignalsConfiguration: Sendable {
    /// Signals kept in memory (1000).
    public var maximumBufferSize = 1000
    /// Signals collected before the broadcasters' `relay` (20).
    public var relayCount = 20
    /// Seconds after which collected signals are relayed anyway (60).
    public var relayInterval: TimeInterval = 60
    /// Who hears of signals.
    public var broadcasters: [any SignalBroadcaster] = []
    /// Turn the instance's own events into `instrumentation` signals (off).
    public var instrumentation = false
    /// Event generators, run in order for each signal.
    public var generators: [SignalGenerator] = []
    /// Network signals from sessions passed to ``NetworkSignals/watch(_:)`` (off when `nil`).
    public var network: NetworkSignals.Options?

    /// The defaults, with `generators` and `broadcasters`.
    ///
    /// - Parameters:
    ///   - generators: What turns signals into events.
    ///   - broadcasters: Where signals are relayed.
    ///   - instrumentation: Which signals are captured automatically.
    public init(generators: [SignalGenerator] = [], broadcasters: [any SignalBroadcaster] = [], instrumentation: Bool = false) {
        self.generators = generators
        self.broadcasters = broadcasters
        self.instrumentation = instrumentation
    }
}

/// Signals: a buffer of small breadcrumbs of app activity that event generators turn into
/// analytics events (the Analytics Live seed's second part, native and on every platform).
///
/// The app emits signals (`emit(_:)` on the client, from any thread, in order with its other
/// calls); each gets the instance's anonymousId, its time and the next index, goes into the
/// ring, to the log (`sdk.signal`, debug level), to every broadcaster, and through every
/// generator, whose events enter the whole
/// pipeline (consent, rules, delivery) behind the calls already made. With
/// ``Configuration/instrumentation`` on, each event the instance sends becomes an
/// `instrumentation` signal too (`{type, rawEvent}`); signals made by generated events are kept
/// and broadcast but run no generator, so a generator cannot feed itself. An `after` plugin; `reset()` and `forget()` clear the buffer.
package final class SignalsPlugin: Plugin {
    package typealias Configuration = SignalsConfiguration

    /// Sees every event after the destinations (for instrumentation).
    package let type = PluginType.after
    /// The configuration.
    package let configuration: Configuration
    /// The ring.
    package let buffer: SignalBuffer
    /// Events the generators made.
    package private(set) var generatedEvents = 0
    private let anonymousId: @Sendable (Timeline) -> String?
    private var lastAnonymousId = ""
    private var nextIndex = 0
    private var unrelayed: [Signal] = []
    private var relayTimer: (any ScheduledWork)?
    private weak var analytics: AnalyticsClient?
    /// The messageIds of generated events not yet seen at the end of the timeline (a few, unless
    /// a plugin drops them on the way: the set is emptied past ``maximumTracked``).
    private var generated: Set<String> = []
    private static let maximumTracked = 10_000

    /// Signals with `configuration`; `anonymousId` reads the instance's current one.
    package init(configuration: Configuration = Configuration(), anonymousId: @escaping @Sendable (Timeline) -> String? = { _ in nil }) {
        self.configuration = configuration
        self.anonymousId = anonymousId
        buffer = SignalBuffer(capacity: configuration.maximumBufferSize)
    }

    /// Keeps the client generated events go to.
    package func configure(analytics: AnalyticsClient) {
        self.analytics = analytics
    }

    /// Adds an emitted signal, stamped `time`; runs the generators. Call on the executor.
    /// While analytics consent is withdrawn the signal is dropped (and counted): it never
    /// reaches the buffer, a broadcaster or a generator.
    /// With PII scrubbing on, its data is scrubbed as event properties are.
    package func add(_ content: SignalContent, at time: Date, timeline: Timeline) {
        guard timeline.collectsAnalytics else {
            droppedWithoutConsent += 1
            return
        }
        if let current = anonymousId(timeline) { lastAnonymousId = current }
        append(type: content.type, data: timeline.scrubbedForExport(content.data), at: time)
    }

    /// Signals dropped because analytics consent was withdrawn (read by the tests).
    package private(set) var droppedWithoutConsent = 0

    /// Each event that reaches the end of the timeline becomes an instrumentation signal.
    package func execute(event: Event) -> Event? {
        let fromGenerator = !generated.isEmpty && generated.remove(event.messageId) != nil
        if configuration.instrumentation {
            if let id = event.anonymousId { lastAnonymousId = id }
            append(
                type: .instrumentation, data: ["type": .string(event.type.rawValue), "rawEvent": .object(event.jsonObject())], at: event.timestamp,
                runGenerators: !fromGenerator)
        }
        return event
    }

    /// A logout empties the buffer (and what waits to be relayed).
    package func reset() {
        buffer.clear()
        unrelayed = []
    }

    /// Relays what is collected.
    package func flush() { relay() }

    /// Stops the relay timer after relaying what is collected.
    package func shutdown() {
        relay()
        relayTimer?.cancel()
        relayTimer = nil
    }

    /// Empties the buffer; returns how many signals it held (`forget()`).
    @discardableResult
    package func clear() -> Int {
        unrelayed = []
        return buffer.clear()
    }

    private func append(type: SignalType, data: [String: JSON], at time: Date, runGenerators: Bool = true) {
        let signal = Signal(anonymousId: lastAnonymousId, timestamp: time, index: nextIndex, type: type, data: data)
        nextIndex += 1
        buffer.append(signal)
        analytics?.logger.debug("sdk.signal: \(JSONWriter.string(signal.json))")
        for broadcaster in configuration.broadcasters { broadcaster.added(signal) }
        if !configuration.broadcasters.isEmpty {
            unrelayed.append(signal)
            if unrelayed.count >= max(1, configuration.relayCount) { relay() } else { scheduleRelay() }
        }
        guard runGenerators, let analytics else { return }
        for generator in configuration.generators {
            for event in generator.generate(signal, buffer) {
                // Behind the calls already made, like any call; its messageId marks its own
                // instrumentation signal as one that runs no generator.
                generated.insert(event.messageId)
                if generated.count > Self.maximumTracked { generated = [event.messageId] }
                analytics.process(event)
                generatedEvents += 1
            }
        }
    }

    private func relay() {
        guard !unrelayed.isEmpty else { return }
        let signals = unrelayed
        unrelayed = []
        for broadcaster in configuration.broadcasters { broadcaster.relay(signals) }
    }

    private func scheduleRelay() {
        guard relayTimer == nil, let analytics else { return }
        let handle = ExecutorHandle(self, on: analytics)
        relayTimer = analytics.configuration.clock.schedule(after: configuration.relayInterval) {
            handle.perform { plugin, _ in
                plugin.relayTimer = nil
                plugin.relay()
            }
        }
    }
}
