import Foundation
import Logging
import MetaRouter
import MetaRouterLogging
import Synchronization
import Testing

/// The SDK's log lines in swift-log: level, `sdk` name and masked tenant as metadata, and the
/// SDK's threshold raised to the logger's so dropped lines are never formatted.
@Suite struct LoggingTests {
    /// Keeps every record it is handed.
    final class Capture: Sendable {
        let records = Mutex<[(level: Logger.Level, message: String, metadata: Logger.Metadata)]>([])

        func logger(level: Logger.Level) -> Logger {
            var logger = Logger(label: "capture") { _ in Handler(capture: self) }
            logger.logLevel = level
            return logger
        }

        struct Handler: LogHandler {
            let capture: Capture
            var metadata: Logger.Metadata = [:]
            var logLevel: Logger.Level = .trace

            subscript(metadataKey key: String) -> Logger.Metadata.Value? {
                get { metadata[key] }
                set { metadata[key] = newValue }
            }

            func log(event: LogEvent) {
                capture.records.withLock { $0.append((event.level, "\(event.message)", event.metadata ?? [:])) }
            }
        }
    }

    @Test func aLineCarriesItsNameAndTheMaskedTenant() {
        let capture = Capture()
        let sink = SwiftLogSink(logger: capture.logger(level: .info), writeKey: "tenant-key-wxyz")
        sink.log(level: .warning, message: "[…wxyz] sdk.ingress_full: dropped 3 event(s) at the call")
        sink.log(level: .debug, message: "sdk.signal: {}")
        let records = capture.records.withLock { $0 }
        #expect(records.count == 1)
        #expect(records.first?.level == .warning && records.first?.message == "dropped 3 event(s) at the call")
        #expect(records.first?.metadata["sdk"] == "sdk.ingress_full" && records.first?.metadata["tenant"] == "***********wxyz")
    }

    @Test func theSDKFormatsNothingBelowTheLoggersLevel() async throws {
        let capture = Capture()
        let logger = capture.logger(level: .warning)
        let directory = try TestDirectory()
        defer { directory.remove() }
        var options = InitOptions(writeKey: "logging-\(UUID())", ingestionHost: "http://127.0.0.1:9", flushIntervalSeconds: 3600)
        options.storageDirectory = directory.url
        options.log(to: logger)
        #expect(!options.debug)
        let analytics = MetaRouter.Analytics.instance(for: options)
        SwiftLogSink.matchLevel(of: analytics, to: logger)
        analytics.track("")  // an input problem, logged as a warning
        await analytics.performAndWait { _ in }
        #expect(await eventually { capture.records.withLock { $0.contains { $0.metadata["sdk"] == "sdk.invalid_input" } } })
        #expect(capture.records.withLock { $0.allSatisfy { $0.level >= .warning } })
        await analytics.shutdown(timeout: 1)
        #expect(SwiftLogSink.minimumLevel(for: .trace) == .debug && SwiftLogSink.minimumLevel(for: .notice) == .info)
    }
}
