import Dispatch
import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// The process's one watcher per signal, shared by every instance that opted in to draining
/// on it. The first watcher ignores the signal's default action and watches it through
/// Dispatch; when it arrives every instance is told, and the signal is raised again only once
/// the last of them has drained (or given up at its deadline). When the last watcher goes, the
/// disposition that was there before is restored — after a normal `shutdown()`, SIGTERM and
/// Ctrl-C behave as if the SDK had never been there. A signal the host handles or ignores is
/// never taken.
final class SignalHub: @unchecked Sendable {  // every field is touched only under `lock`
    static let shared = SignalHub()

    private struct Watch {
        var source: any DispatchSourceSignal
        var handlers: [UInt64: @Sendable () -> Void] = [:]
        /// Handlers told of the signal that have not reported back.
        var draining = 0
    }

    private let lock = NSLock()
    private var watches: [Int32: Watch] = [:]
    private var nextToken: UInt64 = 0

    /// Calls `handler` when `number` arrives; `nil` when the host owns the signal.
    func watch(_ number: Int32, handler: @escaping @Sendable () -> Void) -> UInt64? {
        lock.lock()
        defer { lock.unlock() }
        nextToken += 1
        let token = nextToken
        if watches[number] != nil {
            watches[number]?.handlers[token] = handler
            return token
        }
        let previous = signal(number, SIG_IGN)
        guard previous == nil else {
            // The host has a handler, or ignores the signal: leave it in place.
            signal(number, previous)
            return nil
        }
        let source = DispatchSource.makeSignalSource(signal: number, queue: .global(qos: .utility))
        source.setEventHandler { [unowned self] in self.deliver(number) }
        source.resume()
        watches[number] = Watch(source: source, handlers: [token: handler])
        return token
    }

    /// Stops calling the handler behind `token`; the last one restores the default action.
    func unwatch(_ number: Int32, token: UInt64) {
        lock.lock()
        defer { lock.unlock() }
        guard var watch = watches[number], watch.handlers.removeValue(forKey: token) != nil else { return }
        if watch.handlers.isEmpty, watch.draining == 0 {
            watch.source.cancel()
            watches[number] = nil
            signal(number, SIG_DFL)
        } else {
            watches[number] = watch
        }
    }

    /// One instance told of `number` has drained; after the last, the signal ends the process.
    func drained(_ number: Int32) {
        let last: Bool = lock.withLock {
            guard var watch = watches[number], watch.draining > 0 else { return false }
            watch.draining -= 1
            watches[number] = watch
            return watch.draining == 0
        }
        if last { Self.reraise(number) }
    }

    private func deliver(_ number: Int32) {
        let handlers: [@Sendable () -> Void] = lock.withLock {
            guard var watch = watches[number], watch.draining == 0 else { return [] }
            watch.draining = watch.handlers.count
            watches[number] = watch
            return Array(watch.handlers.values)
        }
        for handler in handlers { handler() }
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
