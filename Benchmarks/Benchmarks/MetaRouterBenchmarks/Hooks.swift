import Foundation
@_spi(Benchmarks) import MetaRouter

// The facade's one SPI entry point (`benchmarkHooks()`), as the functions the benchmarks call.

func benchmarkEventJSONBytes(_ event: Event) -> [UInt8] { benchmarkHooks().eventJSONBytes(event) }
func benchmarkAdvertisingIDPlugin() -> any Plugin { benchmarkHooks().advertisingIDPlugin() }
func benchmarkScrubber() -> any Plugin { benchmarkHooks().scrubber() }
func benchmarkBreadcrumbs(capacity: Int, crashDirectory: URL?) -> (plugin: any Plugin, add: (Breadcrumb) -> Void) {
    benchmarkHooks().breadcrumbs(capacity, crashDirectory)
}
func benchmarkGzip(_ body: Data) -> Data? { benchmarkHooks().gzipOnce(body) }
func benchmarkBatchBody(of events: [Event], writeKey: String, sentAt: Date) -> Data { benchmarkHooks().batchBody(events, writeKey, sentAt) }
func benchmarkStatsReader(of destination: any DestinationPlugin) -> (@Sendable () -> DeliveryStats)? { benchmarkHooks().statsReader(destination) }
func benchmarkDiskLog(directory: URL) -> (
    append: (_ messageId: String, _ payload: [UInt8]) -> Void, commit: () -> Void, deliverBatch: (_ maxCount: Int) -> Void,
    sync: () -> Void, count: () -> Int, bytesWritten: () -> Int
)? {
    benchmarkHooks().diskLog(directory)
}
