import Foundation
import MetaRouter
import MetaRouterTesting
import Testing

/// Caller code — a plugin factory, a custom store — never runs under an SDK lock, so it may
/// call back into the SDK without deadlocking.
@Suite struct NoCallerCodeUnderLockTests {
    @Test func aPluginFactoryMayAskForAnotherInstance() async {
        let outer = "factory-outer-\(UUID())"
        let inner = "factory-inner-\(UUID())"
        let capture = CapturingDestination()
        var options = localOptions(outer, capture: capture)
        let innerOptions = localOptions(inner, capture: CapturingDestination())
        let handoff = UncheckedPlugin(capture)
        options.plugins = {
            // Re-entering the registry from inside the factory deadlocked when the factory ran
            // under the registry's lock.
            _ = MetaRouter.Analytics.instance(for: innerOptions)
            return [handoff.plugin]
        }
        let frozenOptions = options
        let made = DispatchSemaphore(value: 0)
        let box = Locked<MetaRouter.Analytics?>(nil)
        Thread.detachNewThread {
            box.withLock { $0 = MetaRouter.Analytics.instance(for: frozenOptions) }
            made.signal()
        }
        #expect(made.wait(timeout: .now() + 10) == .success, "instance(for:) deadlocked")
        guard let client = box.current else { return }
        client.track("Works")
        await client.engine.settle()
        #expect(capture.events.last?.event == "Works")
        await client.shutdown()
        await MetaRouter.Analytics.instance(for: innerOptions).shutdown()
    }

    /// The factory runs once per instance, not on the thread that made the instance (which pays
    /// for no plugin), and ahead of every call made meanwhile.
    @Test func thePluginFactoryRunsOnceOnTheInstancesOwnThreadAheadOfCalls() async {
        let capture = CapturingDestination()
        var options = localOptions("factory-thread-\(UUID())", capture: capture)
        let handoff = UncheckedPlugin(capture)
        let runs = Locked<[ObjectIdentifier]>([])
        let built = DispatchSemaphore(value: 0)
        options.plugins = {
            runs.withLock { $0.append(ObjectIdentifier(Thread.current)) }
            built.signal()
            return [handoff.plugin]
        }
        let frozenOptions = options
        let made = DispatchSemaphore(value: 0)
        let caller = Locked<ObjectIdentifier?>(nil)
        let box = Locked<MetaRouter.Analytics?>(nil)
        Thread.detachNewThread {
            caller.withLock { $0 = ObjectIdentifier(Thread.current) }
            let client = MetaRouter.Analytics.instance(for: frozenOptions)
            // Made before the factory has run or not: both calls wait behind it, in order.
            client.track("First")
            _ = MetaRouter.Analytics.instance(for: frozenOptions)
            client.track("Second")
            // Alive until the factory has run, so the two threads' identities cannot be one
            // object's address reused.
            _ = built.wait(timeout: .now() + 10)
            box.withLock { $0 = client }
            made.signal()
        }
        #expect(made.wait(timeout: .now() + 10) == .success)
        guard let client = box.current else { return }
        await client.engine.settle()
        #expect(capture.events.map(\.event) == ["First", "Second"])
        #expect(runs.current.count == 1)
        #expect(runs.current.first != caller.current)
        await client.shutdown()
    }
}
