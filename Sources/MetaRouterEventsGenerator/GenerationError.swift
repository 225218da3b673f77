/// Why code could not be generated from a plan: `description` is one message, in words, naming
/// the plan entry.
public struct GenerationError: Error, Sendable, CustomStringConvertible {
    public let description: String

    init(_ description: String) { self.description = description }
}
