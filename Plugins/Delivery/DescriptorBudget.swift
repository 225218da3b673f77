import Foundation
import MetaRouterCore

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// The file descriptors the SDK's event logs and kept connections hold across the process,
/// against a budget of a third of the process's limit (`RLIMIT_NOFILE`), so that thousands of
/// instances in one server never take the descriptors the host needs.
///
/// Over the budget, every log closes its files after each write (its lock too) and reopens
/// them for the next: an idle instance then holds no descriptor at all. Connections belong to
/// the process (``CurlConnectionPool``), bounded by the requests that may run at once. Under
/// the budget nothing changes, so a few instances pay nothing.
enum DescriptorBudget {
    /// Descriptors the SDK may hold before its logs stop keeping files open.
    static let limit: Int = {
        var limits = rlimit()
        #if canImport(Glibc)
        let read = getrlimit(__rlimit_resource_t(RLIMIT_NOFILE.rawValue), &limits)
        #else
        let read = getrlimit(RLIMIT_NOFILE, &limits)
        #endif
        guard read == 0 else { return 512 }
        // An unlimited limit reads as the largest value: held to 2^20 like any large one.
        let soft = UInt64(clamping: limits.rlim_cur)
        return Int(max(16, min(soft, 1 << 20) / 3))
    }()

    private static let held = Locked(0)

    /// Counts `count` descriptors taken (negative: given back).
    static func add(_ count: Int) {
        held.withLock { $0 += count }
    }

    /// Whether the SDK holds its budget or more.
    static var isOverBudget: Bool { held.current >= limit }
}

/// Requests in flight across every ``CurlTransport`` of the process: at most 64, and at most an
/// eighth of the descriptor budget. Each holds a socket and libcurl's own pair of descriptors,
/// and a thread blocked in libcurl for as long as it takes: thousands of instances flushing at
/// once would otherwise open thousands of each. A request beyond the limit waits, in arrival
/// order, for one to finish; no thread blocks while it waits.
enum RequestAdmission {
    /// Requests in flight at most.
    static let limit = min(64, max(8, DescriptorBudget.limit / 8))

    private struct State {
        var inFlight = 0
        var waiting: [@Sendable () -> Void] = []
        var head = 0
    }

    private static let state = Locked(State())

    /// Runs `start` now when a request may start, or once one has finished. `start` must
    /// lead to exactly one ``finished()``.
    static func admit(_ start: @escaping @Sendable () -> Void) {
        let now = state.withLock { state -> Bool in
            guard state.inFlight < limit else {
                state.waiting.append(start)
                return false
            }
            state.inFlight += 1
            return true
        }
        if now { start() }
    }

    /// A request has finished: the next waiting one starts in its place.
    static func finished() {
        let next = state.withLock { state -> (@Sendable () -> Void)? in
            guard state.head < state.waiting.count else {
                state.inFlight -= 1
                return nil
            }
            let next = state.waiting[state.head]
            state.head += 1
            if state.head > 1024, state.head * 2 > state.waiting.count {
                state.waiting.removeFirst(state.head)
                state.head = 0
            }
            return next
        }
        next?()
    }
}
