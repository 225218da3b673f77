import Dispatch
import Foundation

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
    private let sources = LockedSignalSources()

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
            sources.append(source)
        }
    }

    /// Stops watching the signals.
    public func stop() {
        for source in sources.removeAll() { source.cancel() }
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

/// The dispatch sources of a server source, guarded by a lock.
final class LockedSignalSources: @unchecked Sendable {  // `sources` is only touched under `lock`
    private let lock = NSLock()
    private var sources: [any DispatchSourceSignal] = []

    func append(_ source: any DispatchSourceSignal) {
        lock.lock()
        sources.append(source)
        lock.unlock()
    }

    func removeAll() -> [any DispatchSourceSignal] {
        lock.lock()
        defer {
            sources = []
            lock.unlock()
        }
        return sources
    }
}
