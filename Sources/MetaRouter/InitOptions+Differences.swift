import Foundation

extension InitOptions {
    /// The names of the options set otherwise than in `other`, in declaration order: by value
    /// where an option compares, by presence where it holds code or a service (a closure, a
    /// transport, a store, a sink, a plan, a configuration of its own), and by identity for the
    /// lifecycle source. The write key is not compared: it is what finds the instance.
    /// Servers ask for their tenant's instance per request, so this is a few dozen comparisons
    /// of values that are usually the same ones (arrays and sets compare their storage first).
    func optionsDiffering(from other: InitOptions) -> [String] {
        var names: [String] = []
        func note(_ name: String, _ differs: Bool) { if differs { names.append(name) } }
        // Spellings the options read alike (white space, a trailing slash) are the same host.
        note("ingestionHost", ingestionHost != other.ingestionHost && hostText != other.hostText)
        note("debug", debug != other.debug)
        note("flushIntervalSeconds", flushIntervalSeconds != other.flushIntervalSeconds)
        note("maxQueueEvents", maxQueueEvents != other.maxQueueEvents)
        note("maxDiskEvents", maxDiskEvents != other.maxDiskEvents)
        note("trackLifecycleEvents", trackLifecycleEvents != other.trackLifecycleEvents)
        note("application", application != other.application)
        note("storageDirectory", storageDirectory != other.storageDirectory && !Self.sameDirectory(storageDirectory, other.storageDirectory))
        note("keyValueStore", (keyValueStore == nil) != (other.keyValueStore == nil))
        note("logSink", (logSink == nil) != (other.logSink == nil))
        note("transport", (transport == nil) != (other.transport == nil))
        note("clock", (clock == nil) != (other.clock == nil))
        note("defaultPlugins", defaultPlugins != other.defaultPlugins)
        note("plugins", (plugins == nil) != (other.plugins == nil))
        note("onInvalidInput", (onInvalidInput == nil) != (other.onInvalidInput == nil))
        note("onPermanentFailure", (onPermanentFailure == nil) != (other.onPermanentFailure == nil))
        note("lifecycleSource", lifecycleSource !== other.lifecycleSource)
        note("terminateOnSignals", terminateOnSignals != other.terminateOnSignals)
        note("maxDiskBytes", maxDiskBytes != other.maxDiskBytes)
        note("maxDiskAgeSeconds", maxDiskAgeSeconds != other.maxDiskAgeSeconds)
        #if Privacy
        note("initialConsent", initialConsent != other.initialConsent)
        #endif
        note("sessions", sessions != other.sessions)
        #if TrackingPlan
        note("trackingPlan", (trackingPlan == nil) != (other.trackingPlan == nil))
        note("trackingPlanMode", trackingPlanMode != other.trackingPlanMode)
        note("onPlanViolation", (onPlanViolation == nil) != (other.onPlanViolation == nil))
        #endif
        #if ErrorCapture
        note("breadcrumbCapacity", breadcrumbCapacity != other.breadcrumbCapacity)
        #endif
        note("gzipRequests", gzipRequests != other.gzipRequests)
        #if Rules
        note("remoteRules", (remoteRules == nil) != (other.remoteRules == nil))
        #endif
        #if Signals
        note("signals", (signals == nil) != (other.signals == nil))
        #endif
        #if Entitlements
        note("entitlements", (entitlements == nil) != (other.entitlements == nil))
        #endif
        #if CrashCapture
        note("captureCrashes", captureCrashes != other.captureCrashes)
        #endif
        #if ErrorCapture
        note(
            "errorCapture",
            errorCapture.maxEventsPerMinute != other.errorCapture.maxEventsPerMinute
                || errorCapture.repeatWindow != other.errorCapture.repeatWindow
                || (errorCapture.beforeSendError == nil) != (other.errorCapture.beforeSendError == nil))
        #endif
        #if Privacy
        note("scrubPII", scrubPII != other.scrubPII)
        note("piiScrubbing", piiScrubbing != other.piiScrubbing)
        #endif
        note("maxPendingEvents", maxPendingEvents != other.maxPendingEvents)
        note("requestTimeoutSeconds", requestTimeoutSeconds != other.requestTimeoutSeconds)
        note("flushAt", flushAt != other.flushAt)
        note("maxBatchSize", maxBatchSize != other.maxBatchSize)
        note("identityMode", identityMode != other.identityMode)
        note("allowInsecureHTTP", allowInsecureHTTP != other.allowInsecureHTTP)
        return names
    }

    /// Whether two directories are one path, however their URLs were made: Foundation adds a
    /// trailing slash to a file URL made for a directory that exists, so a server making its
    /// options per request would otherwise see its second request differ from its first.
    private static func sameDirectory(_ one: URL?, _ other: URL?) -> Bool {
        guard let one, let other else { return one == nil && other == nil }
        return one.standardizedFileURL.path == other.standardizedFileURL.path
    }
}
