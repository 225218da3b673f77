#if Privacy
import Foundation

/// Consent, super properties and PII scrubbing: the methods the `Privacy` trait adds.
extension Analytics {
    /// Turns PII scrubbing on or off for the calls made after this one; calls made before it
    /// keep the previous setting.
    ///
    /// - Parameter enabled: Whether values that look like PII are masked before they leave.
    public func setScrubPII(_ enabled: Bool) {
        engine.performCall("setScrubPII call") { timeline in
            guard let current = self.instance(on: timeline) else { return }
            if let scrubber = current.slots.scrubber {
                scrubber.isEnabled = enabled
            } else if enabled {
                let scrubber = PIIScrubPlugin(enabled: true, options: current.options.piiScrubbing)
                timeline.add(scrubber, at: .after(SuperPropertiesPlugin.self))
                current.slots.scrubber = scrubber
            }
        }
    }

    /// Adds a property to every later `track`, `screen` and `page` call (the call's own keys
    /// win), persisted. With PII scrubbing on, the value is scrubbed before it is kept or
    /// stored; while analytics consent is withdrawn it is kept in memory only.
    ///
    /// - Parameters:
    ///   - key: The property's name.
    ///   - value: A JSON-compatible value; one that is not is reported and dropped.
    public func registerSuperProperty(_ key: String, _ value: Any) {
        register(key, value, call: "registerSuperProperty", once: false)
    }

    /// Like ``registerSuperProperty(_:_:)``, unless `key` is registered already.
    ///
    /// - Parameters:
    ///   - key: The property's name.
    ///   - value: A JSON-compatible value; one that is not is reported and dropped.
    public func registerSuperPropertyOnce(_ key: String, _ value: Any) {
        register(key, value, call: "registerSuperPropertyOnce", once: true)
    }

    private func register(_ key: String, _ value: Any, call: String, once: Bool) {
        let engine = engine
        guard let converted = engine.inputProblems.converted([key: value], root: "superProperties", call: call)[key] else { return }
        engine.performCall("\(call) call") { timeline in
            let scrubbed = timeline.scrubbedForExport([key: converted])[key] ?? converted
            guard let plugin = self.pillars(timeline).superProperties?(timeline) else { return }
            if once {
                plugin.registerOnce(key, scrubbed, persisting: timeline.collectsAnalytics)
            } else {
                plugin.register(key, scrubbed, persisting: timeline.collectsAnalytics)
            }
        }
    }

    /// Stops adding a super property.
    ///
    /// - Parameter key: The property's name.
    public func unregisterSuperProperty(_ key: String) {
        engine.performCall("unregisterSuperProperty call") { self.pillars($0).superProperties?($0).unregister(key) }
    }

    /// Sets the consent in force for the calls made after this one (and persists it); calls
    /// made before it are unaffected. Without analytics consent, calls are dropped before any
    /// plugin sees them and counted.
    ///
    /// - Parameter consent: What the user agreed to, by channel.
    public func setConsent(_ consent: ConsentState) {
        engine.performCall("setConsent call") { timeline in
            self.pillars(timeline).consent?(timeline).set(consent)
            timeline.consentCategoriesChanged(to: consent.categoryPreferences)
        }
    }

    /// The consent in force once the calls made before this one have been handled.
    package func getConsent() async -> ConsentState {
        await onExecutor { self.pillars($0).consent?($0).state ?? .granted } ?? .granted
    }
}
#endif
