import Foundation

/// How important a log line is, ordered from `debug` to `error`.
public enum LogLevel: Int, Sendable, Comparable {
    /// Detail for debugging; written only when debug logging is on.
    case debug
    /// Normal operation worth noting.
    case info
    /// Something was rejected or dropped, but the SDK goes on.
    case warning
    /// Something failed that the host should look at.
    case error

    public static func < (lhs: LogLevel, rhs: LogLevel) -> Bool { lhs.rawValue < rhs.rawValue }
}

/// Where the SDK's log lines go. Supply your own to bridge into swift-log, os.Logger, etc.
public protocol LogSink: Sendable {
    /// Receives one line. Called from any thread; must not block for long.
    ///
    /// - Parameters:
    ///   - level: The line's level.
    ///   - message: The line.
    func log(level: LogLevel, message: String)
}

/// Writes log lines to standard error as `[MetaRouter] level: message`.
@usableFromInline package struct StandardErrorLogSink: LogSink {
    /// Creates the sink.
    @usableFromInline package init() {}

    /// Writes one line to standard error.
    @usableFromInline package func log(level: LogLevel, message: String) {
        FileHandle.standardError.write(Data("[MetaRouter] \(level): \(message)\n".utf8))
    }
}

/// The SDK's logger: a sink plus a threshold that debug mode lowers at run time. (Named so
/// that it does not clash with swift-log's `Logger` in a server that imports both.)
public final class AnalyticsLogger: Sendable {
    private let sink: any LogSink
    private let threshold: Locked<LogLevel>
    private let prefix: String
    /// The instance its lines name, e.g. `…9876` for the write key ending in 9876, so a
    /// process with several instances (a multi-tenant server) can tell their lines apart.
    package let instance: String?

    /// Writes lines at `minimumLevel` or above to `sink`, each starting with `[instance] `
    /// when `instance` is given.
    ///
    /// - Parameters:
    ///   - sink: Where lines go.
    ///   - minimumLevel: Lines below it are not formatted.
    ///   - instance: The name each line starts with, if any.
    package init(sink: any LogSink = StandardErrorLogSink(), minimumLevel: LogLevel = .info, instance: String? = nil) {
        self.sink = sink
        self.threshold = Locked(minimumLevel)
        self.instance = instance
        prefix = instance.map { "[\($0)] " } ?? ""
    }

    /// The label for the instance with `writeKey`: its last four characters, the rest left out.
    package static func instanceLabel(writeKey: String) -> String {
        // `String + String`, not `+` with a `Substring`: the generic one costs its first caller
        // (an app's `initialize`) a pass over every conformance record in the process.
        writeKey.count > 4 ? "…" + String(writeKey.suffix(4)) : String(repeating: "*", count: writeKey.count)
    }

    /// The lowest level currently written.
    package var minimumLevel: LogLevel {
        get { threshold.current }
        set { threshold.withLock { $0 = newValue } }
    }

    /// Whether lines at `level` are written.
    package func isEnabled(_ level: LogLevel) -> Bool { level >= threshold.current }

    /// Writes `message` when `level` is enabled; the text is built only then.
    ///
    /// - Parameters:
    ///   - level: The line's level.
    ///   - message: The line, formatted only when it is written.
    public func log(_ level: LogLevel, _ message: @autoclosure () -> String) {
        guard isEnabled(level) else { return }
        sink.log(level: level, message: prefix + message())
    }

    /// Writes `message` whatever the threshold, without reading it: for a `fork()` child,
    /// where the threshold's lock may be held by a thread that is gone.
    package func logWithoutThreshold(_ level: LogLevel, _ message: String) {
        sink.log(level: level, message: prefix + message)
    }

    /// Debug detail.
    package func debug(_ message: @autoclosure () -> String) { log(.debug, message()) }
    /// Normal operation.
    package func info(_ message: @autoclosure () -> String) { log(.info, message()) }
    /// Something rejected or dropped.
    package func warning(_ message: @autoclosure () -> String) { log(.warning, message()) }
    /// A failure.
    package func error(_ message: @autoclosure () -> String) { log(.error, message()) }
}
