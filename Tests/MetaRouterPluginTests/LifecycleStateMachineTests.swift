import Foundation
import MetaRouter
import Testing

@Suite struct LifecycleStateMachineTests {
    private let v2 = LifecycleStateMachine.Release(version: "2.0", build: "20")
    private let v1 = LifecycleStateMachine.Release(version: "1.0", build: "10")

    private func names(_ outputs: [LifecycleStateMachine.Output]) -> [String] {
        outputs.compactMap { if case .track(let name, _) = $0 { return name } else { return nil } }
    }

    private func properties(_ outputs: [LifecycleStateMachine.Output], _ name: String) -> [String: JSON]? {
        for case .track(let eventName, let properties) in outputs where eventName == name { return properties }
        return nil
    }

    @Test func firstInstallThenOpened() {
        var machine = LifecycleStateMachine(current: v2)
        let outputs = machine.launch(inBackground: false, stored: nil, hadIdentity: false)
        #expect(names(outputs) == ["Application Installed", "Application Opened"])
        #expect(properties(outputs, "Application Installed") == ["version": "2.0", "build": "20"])
        #expect(properties(outputs, "Application Opened") == ["from_background": false, "version": "2.0", "build": "20"])
    }

    @Test func updateCarriesThePreviousRelease() {
        var machine = LifecycleStateMachine(current: v2)
        let outputs = machine.launch(inBackground: false, stored: v1, hadIdentity: true)
        #expect(names(outputs) == ["Application Updated", "Application Opened"])
        #expect(properties(outputs, "Application Updated") == [
            "version": "2.0", "build": "20", "previous_version": "1.0", "previous_build": "10",
        ])
    }

    @Test func upgradeFromBeforeLifecycleTrackingSaysUnknown() {
        var machine = LifecycleStateMachine(current: v2)
        let outputs = machine.launch(inBackground: false, stored: nil, hadIdentity: true)
        #expect(properties(outputs, "Application Updated")?["previous_version"] == "unknown")
        #expect(properties(outputs, "Application Updated")?["previous_build"] == "unknown")
    }

    @Test func unchangedRelaunchOnlyOpens() {
        var machine = LifecycleStateMachine(current: v2)
        #expect(names(machine.launch(inBackground: false, stored: v2, hadIdentity: true)) == ["Application Opened"])
    }

    @Test func backgroundLaunchDefersTheColdOpen() {
        var machine = LifecycleStateMachine(current: v2)
        #expect(names(machine.launch(inBackground: true, stored: v2, hadIdentity: true)).isEmpty)
        let active = machine.handle(.didBecomeActive)
        #expect(names(active) == ["Application Opened"])
        #expect(properties(active, "Application Opened")?["from_background"] == false)
        #expect(names(machine.handle(.didBecomeActive)).isEmpty)
    }

    @Test func inactiveBlipsOpenNothingButBackgroundRoundTripsDo() {
        var machine = LifecycleStateMachine(current: v2)
        _ = machine.launch(inBackground: false, stored: v2, hadIdentity: true)
        #expect(machine.handle(.willResignActive).isEmpty)
        #expect(machine.handle(.didBecomeActive).isEmpty)
        let background = machine.handle(.didEnterBackground)
        #expect(background == [.track(name: "Application Backgrounded", properties: [:]), .enterBackground])
        let foreground = machine.handle(.didBecomeActive)
        #expect(properties(foreground, "Application Opened")?["from_background"] == true)
        #expect(foreground.last == .enterForeground)
    }

    @Test func deepLinksAttachToTheNextOpenedOnlyLastWins() {
        var machine = LifecycleStateMachine(current: v2)
        machine.recordOpenedURL("app://first", sourceApplication: "com.a")
        machine.recordOpenedURL("app://second", sourceApplication: "com.b")
        let cold = machine.launch(inBackground: false, stored: v2, hadIdentity: true)
        #expect(properties(cold, "Application Opened")?["url"] == "app://second")
        #expect(properties(cold, "Application Opened")?["referring_application"] == "com.b")
        _ = machine.handle(.didEnterBackground)
        let resumed = machine.handle(.didBecomeActive)
        #expect(properties(resumed, "Application Opened")?["url"] == nil)
        machine.recordOpenedURL("https://example.com/reset", sourceApplication: nil)
        _ = machine.handle(.didEnterBackground)
        let linked = machine.handle(.didBecomeActive)
        #expect(properties(linked, "Application Opened")?["url"] == "https://example.com/reset")
        #expect(properties(linked, "Application Opened")?["referring_application"] == nil)
    }

    @Test func terminationPersists() {
        var machine = LifecycleStateMachine(current: v2)
        #expect(machine.handle(.willTerminate(signal: nil)) == [.terminate(signal: nil)])
    }
}
