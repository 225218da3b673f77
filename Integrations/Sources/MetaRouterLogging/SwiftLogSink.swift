import Logging
import MetaRouter

/// The SDK's log lines in swift-log: each at its level, with its stable `sdk.*` name (see
/// `Docs/LogSignals.md`) as the metadata value `sdk` and the masked write key as `tenant`; the
/// message is the rest of the line.
public struct SwiftLogSink: LogSink {
    private let logger: Logger
    private let tenant: String

    /// Logs to `logger` for the instance of `writeKey` (shown masked: `****abcd`).
    public init(logger: Logger, writeKey: String) {
        self.logger = logger
        tenant = writeKey.count > 4 ? String(repeating: "*", count: writeKey.count - 4) + writeKey.suffix(4) : String(repeating: "*", count: writeKey.count)
    }

    /// Writes the line at the matching swift-log level.
    public func log(level: LogLevel, message: String) {
        var metadata: Logger.Metadata = ["tenant": .string(tenant)]
        var text = Substring(message)
        // The SDK starts each line with `[…abcd] ` (the instance) when it names one: the
        // tenant metadata says it already.
        if text.hasPrefix("["), let close = text.firstIndex(of: "]") { text = text[text.index(after: close)...].drop { $0 == " " } }
        if text.hasPrefix("sdk."), let colon = text.firstIndex(of: ":") {
            metadata["sdk"] = .string(String(text[..<colon]))
            text = text[text.index(after: colon)...].drop { $0 == " " }
        }
        logger.log(level: Self.level(level), "\(text)", metadata: metadata)
    }

    /// The swift-log level of an SDK level.
    public static func level(_ level: LogLevel) -> Logger.Level {
        switch level {
        case .debug: return .debug
        case .info: return .info
        case .warning: return .warning
        case .error: return .error
        }
    }

    /// The lowest SDK level a logger at `level` keeps: the SDK formats nothing below it.
    public static func minimumLevel(for level: Logger.Level) -> LogLevel {
        switch level {
        case .trace, .debug: return .debug
        case .info, .notice: return .info
        case .warning: return .warning
        case .error, .critical: return .error
        }
    }
}

extension InitOptions {
    /// Sends this instance's log lines to `logger` (``SwiftLogSink``), with debug lines on when
    /// the logger keeps them. ``SwiftLogSink/matchLevel(of:to:)`` then raises the SDK's own
    /// threshold to the logger's, so a line the logger would drop is not even formatted.
    public mutating func log(to logger: Logger) {
        logSink = SwiftLogSink(logger: logger, writeKey: writeKey)
        debug = logger.logLevel <= .debug
    }
}

extension SwiftLogSink {
    /// Sets `analytics`'s log threshold to what `logger` keeps.
    public static func matchLevel(of analytics: Analytics, to logger: Logger) {
        analytics.setLogLevel(minimumLevel(for: logger.logLevel))
    }
}
