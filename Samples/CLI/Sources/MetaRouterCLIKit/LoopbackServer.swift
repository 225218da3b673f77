import Foundation
import Hummingbird
import Logging
import NIOConcurrencyHelpers
import NIOCore

/// Runs one Hummingbird router on 127.0.0.1 until stopped: what the local collector and the
/// rule server share.
final class LoopbackServer: Sendable {
    private let task = NIOLockedValueBox<Task<Void, any Error>?>(nil)

    /// Starts `router` on 127.0.0.1 (`port` 0 picks a free one); returns the port it bound.
    func start(_ router: Router<BasicRequestContext>, name: String, port: Int) async throws -> Int {
        let bound = AsyncStream<Int>.makeStream()
        let app = Application(
            router: router,
            configuration: .init(address: .hostname("127.0.0.1", port: port), serverName: name),
            onServerRunning: { channel in
                bound.continuation.yield(channel.localAddress?.port ?? 0)
                bound.continuation.finish()
            },
            logger: .init(label: name, factory: { _ in SwiftLogNoOpLogHandler() }))
        task.withLockedValue { $0 = Task { try await app.run() } }
        var iterator = bound.stream.makeAsyncIterator()
        guard let actual = await iterator.next(), actual > 0 else { throw LocalCollector.CollectorError.couldNotBind }
        return actual
    }

    /// Stops listening.
    func stop() async {
        let running = task.withLockedValue { task -> Task<Void, any Error>? in
            defer { task = nil }
            return task
        }
        running?.cancel()
        _ = try? await running?.value
    }
}
