import MetaRouterCore

/// Opens when the instance a new one replaces — the same write key, so the same event log and
/// identity file — has finished shutting down (``Analytics/shutdown(timeout:)``,
/// ``Analytics/shutdownAll(timeout:)``). Until then the new instance keeps its calls, in order.
final class PredecessorGate: StartGate {
    private struct State {
        var isOpen = false
        var waiting: [@Sendable () -> Void] = []
    }
    private let state = Locked(State())

    func whenOpen(_ body: @escaping @Sendable () -> Void) {
        let openNow = state.withLock { state -> Bool in
            if !state.isOpen { state.waiting.append(body) }
            return state.isOpen
        }
        if openNow { body() }
    }

    /// Opens the gate and runs what waited for it, on the calling thread.
    func open() {
        let waiting = state.withLock { state -> [@Sendable () -> Void] in
            state.isOpen = true
            defer { state.waiting = [] }
            return state.waiting
        }
        for body in waiting { body() }
    }

    var waitingMessage: String {
        "sdk.waiting_for_predecessor: the instance this write key had is still shutting down; calls are kept in order until it has"
    }
}

/// Two gates, opened in turn: the second is asked only once the first is open.
final class StartGates: StartGate {
    private let first: any StartGate
    private let then: any StartGate
    private let firstIsOpen = Locked(false)

    init(first: any StartGate, then: any StartGate) {
        self.first = first
        self.then = then
    }

    func whenOpen(_ body: @escaping @Sendable () -> Void) {
        first.whenOpen { [then, firstIsOpen] in
            firstIsOpen.withLock { $0 = true }
            then.whenOpen(body)
        }
    }

    /// The message of the gate still closed.
    var waitingMessage: String { firstIsOpen.current ? then.waitingMessage : first.waitingMessage }
}
