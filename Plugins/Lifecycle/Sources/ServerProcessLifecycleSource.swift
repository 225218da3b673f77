import Dispatch
import Foundation
import MetaRouterCore

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// The lifecycle of a server process: `launched` at start, active from then on. Termination is
/// reported by `shutdown()`; opt in to `signals` (e.g. `[SIGTERM, SIGINT]`) to have the SDK
/// deliver what is queued when one arrives, then let the signal end the process. A signal whose
/// handler the host installed is left alone: the host calls `shutdown()` itself.
package final class ServerProcessLifecycleSource: LifecycleSource {
    private let signals: [Int32]
    private let tokens = Locked<[(signal: Int32, token: UInt64)]>([])

    /// A source that handles `signals` the host has not claimed.
    package init(terminateOnSignals signals: [Int32] = []) {
        self.signals = signals
    }

    /// Reports `launched`, then watches the signals. Every instance that asks for a signal is
    /// told when it arrives; the process ends once all of them have drained.
    package func start(_ handler: @escaping @Sendable (LifecycleTransition) -> Void) {
        handler(.launched(inBackground: false))
        for number in signals {
            guard let token = SignalHub.shared.watch(number, handler: { handler(.willTerminate(signal: number)) }) else { continue }
            tokens.withLock { $0.append((number, token)) }
        }
    }

    /// Stops watching the signals; when no instance watches one any more, its earlier
    /// disposition is restored.
    package func stop() {
        let taken = tokens.withLock { tokens -> [(signal: Int32, token: UInt64)] in
            defer { tokens = [] }
            return tokens
        }
        for (number, token) in taken { SignalHub.shared.unwatch(number, token: token) }
    }

    /// Reports that this instance has drained after `number`; the last instance to do so lets
    /// the signal end the process.
    static func drained(_ number: Int32) {
        SignalHub.shared.drained(number)
    }
}
