import Instrumentation
import MetaRouter
import ServiceContextModule

/// The W3C trace context (`traceparent`) of the current task, as the installed tracer
/// (swift-distributed-tracing) propagates it, for events that a warehouse joins to traces.
public enum TraceContext {
    /// The headers the instrument injects for `context` (the current task's by default):
    /// `traceparent` and, when the tracer keeps one, `tracestate`. Empty outside a traced task
    /// or with no tracer installed.
    public static func headers(
        instrument: any Instrument = InstrumentationSystem.instrument, context: ServiceContext? = ServiceContext.current
    ) -> [String: String] {
        let context = context ?? .topLevel
        var carrier: [String: String] = [:]
        instrument.inject(context, into: &carrier, using: HeaderInjector())
        return carrier
    }

    /// `context.trace` for an event: `traceparent`, and its `traceId` and `spanId` when it is a
    /// well-formed version-00 header (`00-<32 hex>-<16 hex>-<2 hex>`); `nil` without one.
    public static func eventContext(from headers: [String: String]) -> JSON? {
        guard let parent = headers["traceparent"] else { return nil }
        var trace: [String: JSON] = ["traceparent": .string(parent)]
        let parts = parent.split(separator: "-", omittingEmptySubsequences: false)
        let isHex = { (text: Substring) in text.allSatisfy(\.isHexDigit) }
        if parts.count == 4, parts[0] == "00", parts[1].count == 32, parts[2].count == 16, parts[3].count == 2, parts.allSatisfy(isHex) {
            trace["traceId"] = .string(String(parts[1]))
            trace["spanId"] = .string(String(parts[2]))
        }
        if let state = headers["tracestate"] { trace["tracestate"] = .string(state) }
        return .object(trace)
    }
}

extension EventOptions {
    /// These options with the current task's trace context in the event's `context.trace`
    /// (`Docs/WireFormat.md`); unchanged outside a traced task. Call it where the event is
    /// tracked: the task-local context is not there once the event reaches the pipeline.
    public func withTraceContext(instrument: any Instrument = InstrumentationSystem.instrument) -> EventOptions {
        guard let trace = TraceContext.eventContext(from: TraceContext.headers(instrument: instrument)) else { return self }
        var options = self
        var context = options.context ?? [:]
        context["trace"] = trace
        options.context = context
        return options
    }
}

/// Writes injected values into a header dictionary, names lowercased.
struct HeaderInjector: Injector {
    func inject(_ value: String, forKey key: String, into carrier: inout [String: String]) {
        carrier[key.lowercased()] = value
    }
}
