import Foundation
import Hummingbird
import Logging
import NIOConcurrencyHelpers
import NIOCore

/// Runs one Hummingbird router on 127.0.0.1 until stopped: what the local collector and the
/// rule server share. At most `connections` connections are open at once (``ConnectionCap``),
/// and one that sends nothing for `idleTimeout` (mid-headers, mid-body or between requests) is
/// closed; one being answered is not.
final class LoopbackServer: Sendable {
    private let task = NIOLockedValueBox<Task<Void, any Error>?>(nil)
    /// The open connections.
    let cap: ConnectionCap
    private let idleTimeout: Duration

    /// A server taking at most `connections` at once, each idle at most `idleTimeout`.
    init(connections: Int = 256, idleTimeout: Duration = .seconds(10)) {
        cap = ConnectionCap(limit: connections)
        self.idleTimeout = idleTimeout
    }

    /// Starts `router` on 127.0.0.1 (`port` 0 picks a free one); returns the port it bound.
    func start(_ router: Router<BasicRequestContext>, name: String, port: Int) async throws -> Int {
        let bound = AsyncStream<Int>.makeStream()
        let cap = self.cap
        let app = Application(
            router: router,
            server: .http1(configuration: .init(additionalChannelHandlers: [cap.handler()], idleTimeout: .init(idleTimeout))),
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
