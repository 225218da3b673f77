/// Why code could not be generated from a plan: one message naming the plan entry.
public struct GenerationError: Error, Sendable, CustomStringConvertible {
    /// In words, with the place in the plan.
    public let description: String

    init(_ description: String) { self.description = description }
}
