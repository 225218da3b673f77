import MetaRouterCore

/// Turns signals into analytics events: given each new signal and the buffer (read-only; its
/// `find` looks back for the most recent signal of a type that matches), returns the events to
/// send — a `track` or a `screen` built with `Event(type:event:properties:)` or
/// `Event(type:name:properties:)`; the pipeline adds identity, context and the rest. Called on
/// the executor, for every signal an app emitted — never for one that a generated event
/// produced, so a generator cannot feed itself.
public struct SignalGenerator: Sendable {
    /// Shown in logs.
    package var name: String
    /// The generator.
    package var generate: @Sendable (Signal, SignalBuffer) -> [Event]

    /// A generator named `name`.
    ///
    /// - Parameters:
    ///   - name: The generator's name, in logs.
    ///   - generate: Turns a signal (and the buffer) into events.
    public init(name: String, _ generate: @escaping @Sendable (Signal, SignalBuffer) -> [Event]) {
        self.name = name
        self.generate = generate
    }
}
