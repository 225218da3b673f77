import Foundation
import MetaRouterCore
import MetaRouterLifecycle
import Testing

/// The observer set the Apple lifecycle sources register through, driven on Linux: it delivers
/// until stopped, and a registration that arrives after the stop (the main-actor task ran
/// late) is removed at once.
@Suite struct ObserverTokensTests {
    @Test func observesUntilStoppedAndALateRegistrationLeavesNothing() {
        let center = NotificationCenter()
        let tokens = ObserverTokens(center: center)
        let seen = Locked<[LifecycleTransition]>([])
        let active = Notification.Name("test.didBecomeActive"), background = Notification.Name("test.didEnterBackground")
        tokens.observe([(active, .didBecomeActive), (background, .didEnterBackground)]) { transition in
            seen.withLock { $0.append(transition) }
        }
        center.post(name: active, object: nil)
        center.post(name: background, object: nil)
        #expect(seen.current == [.didBecomeActive, .didEnterBackground])

        tokens.removeAll()
        center.post(name: active, object: nil)
        tokens.observe([(active, .willResignActive)]) { transition in seen.withLock { $0.append(transition) } }
        center.post(name: active, object: nil)
        #expect(seen.current == [.didBecomeActive, .didEnterBackground], "nothing observed after the stop")
    }
}
