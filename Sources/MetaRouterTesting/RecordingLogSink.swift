import Foundation
import MetaRouterCore

/// A log sink that keeps every line, for asserting on what the SDK reported.
package final class RecordingLogSink: LogSink {
    private let lines = Locked<[(level: LogLevel, message: String)]>([])

    /// An empty sink.
    package init() {}

    /// Keeps the line.
    ///
    /// - Parameters:
    ///   - level: The line's level.
    ///   - message: The line, kept.
    package func log(level: LogLevel, message: String) {
        lines.withLock { $0.append((level, message)) }
    }

    /// Every line so far.
    package var messages: [String] { lines.withLock { $0.map(\.message) } }

    /// Lines at `level` or above.
    ///
    /// - Parameter level: The lowest level wanted.
    /// - Returns: The lines kept at that level or above, in order.
    package func messages(atLeast level: LogLevel) -> [String] {
        lines.withLock { $0.filter { $0.level >= level }.map(\.message) }
    }
}
