/// A value confined to one client's executor, carried through a `@Sendable` closure that runs
/// on that executor (a flush's completion, prompt work). Only code on the executor may read
/// ``value``; the type only lets the compiler accept the hand-over.
package struct ExecutorBound<Value>: @unchecked Sendable {  // `value` is touched only on its client's executor
    /// The confined value.
    package let value: Value

    /// Wraps `value`.
    package init(_ value: Value) { self.value = value }
}
