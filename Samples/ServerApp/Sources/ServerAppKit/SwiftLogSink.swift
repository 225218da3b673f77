import Logging
import MetaRouter

/// Bridges the SDK's log lines into swift-log.
public struct SwiftLogSink: LogSink {
    private let logger: Logging.Logger

    /// Logs to `logger`.
    public init(logger: Logging.Logger) { self.logger = logger }

    /// Writes the line at the matching swift-log level.
    public func log(level: LogLevel, message: String) {
        switch level {
        case .debug: logger.debug("\(message)")
        case .info: logger.info("\(message)")
        case .warning: logger.warning("\(message)")
        case .error: logger.error("\(message)")
        }
    }
}
