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
            _ = MetaRouter.Analytics.concreteInstance(for: innerOptions)
            return [handoff.plugin]
        }
        let frozenOptions = options
        let made = DispatchSemaphore(value: 0)
        let box = Locked<MetaRouterClient?>(nil)
        Thread.detachNewThread {
            box.withLock { $0 = MetaRouter.Analytics.concreteInstance(for: frozenOptions) }
            made.signal()
        }
        #expect(made.wait(timeout: .now() + 10) == .success, "instance(for:) deadlocked")
        guard let client = box.current else { return }
        client.track("Works")
        await client.client.settle()
        #expect(capture.events.last?.event == "Works")
        await client.shutdown()
        await MetaRouter.Analytics.concreteInstance(for: innerOptions).shutdown()
    }
}
