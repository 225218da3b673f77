#if Privacy
import Foundation

extension MetaRouterClient {
    /// Turns PII scrubbing on or off. It takes effect in call order: calls made before this
    /// one keep the previous setting, calls made after it get the new one.
    package func setScrubPII(_ enabled: Bool) {
        let scrubbing = options.piiScrubbing
        client.perform { timeline in
            if let plugin = timeline.find(PIIScrubPlugin.self) {
                plugin.isEnabled = enabled
            } else if enabled {
                timeline.add(PIIScrubPlugin(enabled: true, options: scrubbing), at: .after(SuperPropertiesPlugin.self))
            }
        }
    }

    /// Adds `value` under `key` to the properties of every later `track`, `screen` and `page`
    /// call (the call's own keys win), persisted. A value that cannot be converted to JSON is
    /// dropped with a log line, as a property would be. With PII scrubbing on, the value is
    /// scrubbed before it is kept or stored; while analytics consent is withdrawn it is kept
    /// in memory only, not written to storage.
    package func registerSuperProperty(_ key: String, _ value: Any) {
        guard let converted = client.inputProblems.converted([key: value], root: "superProperties", call: "registerSuperProperty")[key] else { return }
        client.perform { timeline in
            let scrubbed = timeline.scrubbedForExport([key: converted])[key] ?? converted
            self.pillars.superProperties?(timeline).register(key, scrubbed, persisting: timeline.collectsAnalytics)
        }
    }

    /// Like ``registerSuperProperty(_:_:)``, unless `key` is registered already.
    package func registerSuperPropertyOnce(_ key: String, _ value: Any) {
        guard let converted = client.inputProblems.converted([key: value], root: "superProperties", call: "registerSuperProperty")[key] else { return }
        client.perform { timeline in
            let scrubbed = timeline.scrubbedForExport([key: converted])[key] ?? converted
            self.pillars.superProperties?(timeline).registerOnce(key, scrubbed, persisting: timeline.collectsAnalytics)
        }
    }

    /// Stops adding `key`.
    package func unregisterSuperProperty(_ key: String) {
        client.perform { self.pillars.superProperties?($0).unregister(key) }
    }

    /// Sets the consent in force for the calls made after this one (and persists it); calls
    /// made before it are unaffected. Without analytics consent, calls are dropped before any
    /// plugin sees them and counted (`getDebugInfo().consentDroppedEvents`).
    package func setConsent(_ consent: ConsentState) {
        client.perform { self.pillars.consent?($0).set(consent) }
    }

    /// The consent in force once the calls made before this one have been handled.
    package func getConsent() async -> ConsentState {
        await onExecutor { self.pillars.consent?($0).state ?? .granted } ?? .granted
    }
}
#endif
