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
public final class ServerProcessLifecycleSource: LifecycleSource {
    private let signals: [Int32]
    private let sources = Locked<[any DispatchSourceSignal]>([])

    /// A source that handles `signals` the host has not claimed.
    public init(terminateOnSignals signals: [Int32] = []) {
        self.signals = signals
    }

    /// Reports `launched`, then watches the signals.
    public func start(_ handler: @escaping @Sendable (LifecycleTransition) -> Void) {
        handler(.launched(inBackground: false))
        for number in signals {
            let previous = signal(number, SIG_IGN)
            guard previous == nil else {
                // The host has a handler (or ignores the signal): leave it in place.
                signal(number, previous)
                continue
            }
            let source = DispatchSource.makeSignalSource(signal: number, queue: .global())
            source.setEventHandler { handler(.willTerminate(signal: number)) }
            source.resume()
            sources.withLock { $0.append(source) }
        }
    }

    /// Stops watching the signals.
    public func stop() {
        let taken = sources.withLock { sources -> [any DispatchSourceSignal] in
            defer { sources = [] }
            return sources
        }
        for source in taken { source.cancel() }
    }

    /// Restores the default disposition of `number` and raises it again in this thread, with
    /// the signal unblocked (Dispatch blocks watched signals in its threads). Should it still not
    /// end the process, exits with the shell's status for that signal.
    static func reraise(_ number: Int32) {
        signal(number, SIG_DFL)
        var mask = sigset_t()
        sigemptyset(&mask)
        sigaddset(&mask, number)
        pthread_sigmask(SIG_UNBLOCK, &mask, nil)
        raise(number)
        exit(128 + number)
    }
}
