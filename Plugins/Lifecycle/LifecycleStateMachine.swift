import MetaRouterCore

/// Turns lifecycle transitions into `Application …` events and delivery actions, exactly as the
/// seed's lifecycle table says. Pure logic: no storage, no platform; every scenario is tested.
package struct LifecycleStateMachine: Sendable {
    /// What a transition asks for.
    package enum Output: Sendable, Hashable {
        /// Track an event.
        case track(name: String, properties: [String: JSON])
        /// Restart timers and flush.
        case enterForeground
        /// Flush, persist, stop timers.
        case enterBackground
        /// Persist (and, on a server, deliver within a deadline).
        case terminate(signal: Int32?)
    }

    /// The version and build a launch records.
    package struct Release: Sendable, Hashable {
        /// Marketing version.
        package var version: String
        /// Build number.
        package var build: String

        /// A release.
        package init(version: String, build: String) {
            self.version = version
            self.build = build
        }
    }

    private let current: Release
    private var coldOpenPending = false
    private var inBackground = false
    private var openedURL: (url: String, source: String?)?

    /// A machine for the running `current` release.
    package init(current: Release) { self.current = current }

    /// Keeps one deep-link URL (last wins) for the next `Application Opened`.
    package mutating func recordOpenedURL(_ url: String, sourceApplication: String?) {
        openedURL = (url, sourceApplication)
    }

    /// The outputs of a launch. `stored` is the release recorded by the previous launch (none
    /// on first install, or when upgrading from a version without lifecycle tracking);
    /// `hadIdentity` says whether the SDK had run on this device before.
    package mutating func launch(inBackground launchedInBackground: Bool, stored: Release?, hadIdentity: Bool) -> [Output] {
        var outputs: [Output] = []
        let release: [String: JSON] = ["version": .string(current.version), "build": .string(current.build)]
        if let stored {
            if stored != current {
                outputs.append(.track(name: "Application Updated", properties: release.merging([
                    "previous_version": .string(stored.version), "previous_build": .string(stored.build),
                ]) { first, _ in first }))
            }
        } else if hadIdentity {
            outputs.append(.track(name: "Application Updated", properties: release.merging([
                "previous_version": "unknown", "previous_build": "unknown",
            ]) { first, _ in first }))
        } else {
            outputs.append(.track(name: "Application Installed", properties: release))
        }
        if launchedInBackground {
            coldOpenPending = true
            inBackground = true
        } else {
            outputs.append(opened(fromBackground: false))
        }
        return outputs
    }

    /// The outputs of any transition after the launch.
    package mutating func handle(_ transition: LifecycleTransition) -> [Output] {
        switch transition {
        case .launched:
            return []
        case .didBecomeActive:
            if coldOpenPending {
                coldOpenPending = false
                inBackground = false
                return [opened(fromBackground: false), .enterForeground]
            }
            guard inBackground else { return [] }
            inBackground = false
            return [opened(fromBackground: true), .enterForeground]
        case .willResignActive:
            return []
        case .didEnterBackground:
            guard !inBackground else { return [] }
            inBackground = true
            return [.track(name: "Application Backgrounded", properties: [:]), .enterBackground]
        case .willTerminate(let signal):
            return [.terminate(signal: signal)]
        }
    }

    private mutating func opened(fromBackground: Bool) -> Output {
        var properties: [String: JSON] = [
            "from_background": .bool(fromBackground), "version": .string(current.version), "build": .string(current.build),
        ]
        if let link = openedURL {
            properties["url"] = .string(link.url)
            properties["referring_application"] = link.source.map(JSON.string)
            openedURL = nil
        }
        return .track(name: "Application Opened", properties: properties)
    }
}
