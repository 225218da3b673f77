import Foundation

/// What ``Analytics/getDebugInfo()`` reads, and the checks on a second request for an instance.
extension Analytics {
    /// Warns, once per instance, when `asked` sets any option otherwise than the options `parts`
    /// were made with (``InitOptions/optionsDiffering(from:)``), naming them: the caller gets
    /// this instance, not one made with `asked`.
    static func noteRequest(with asked: InitOptions, to parts: Parts) {
        let options = parts.options
        let differing = asked.optionsDiffering(from: options)
        guard !differing.isEmpty, parts.reportedOtherOptions.firstTime() else { return }
        parts.engine.logger.warning(
            "sdk.instance_exists: an instance for write key \(DebugInfo.mask(options.writeKey)) exists already with other options "
                + "(\(differing.joined(separator: ", "))); it is returned as it is, its options kept: shut it down first to change them")
    }

    /// The seed's debug fields of the instance `parts` belong to, read on the executor so they
    /// are consistent with each other.
    func debugInfo(of parts: Parts) async -> DebugInfo {
        guard !parts.engine.isInForkedChild else {
            parts.engine.noteForkedChild()
            return Self.inertInForkedChild(parts.options)
        }
        let pillars = parts.pillarSlots
        let snapshot = await withCheckedContinuation { continuation in
            parts.engine.perform { continuation.resume(returning: Self.debugInfoParts(on: $0, pillars)) }
        }
        return Self.debugInfo(of: parts, from: snapshot)
    }

    /// What the debug fields read from the plugins, on the executor.
    private static func debugInfoParts(on timeline: Timeline, _ slots: PillarSlots) -> DebugInfoParts {
        let pillars = slots.found
        let identity = pillars.identity?(timeline)
        let destination = pillars.destination?(timeline)
        let uploader = destination?.uploader
        var parts = DebugInfoParts(
            anonymousId: identity?.anonymousId, userId: identity?.userId, groupId: identity?.groupId,
            advertisingId: pillars.advertisingId?(timeline).advertisingId,
            delivery: uploader?.status(), openDescriptors: uploader?.openDescriptors ?? 0, tracing: uploader?.tracing ?? false,
            stats: uploader?.stats ?? DeliveryStats(), storageError: destination?.storageError,
            rejectedWithoutIdentity: identity?.rejectedWithoutIdentity ?? 0, queueLimit: destination?.queueLimit)
        for own in timeline.findAll(DurableDestination.self) where own !== destination {
            parts.destinations[own.key] = own.uploader?.stats ?? DeliveryStats()
        }
        #if Privacy
        parts.consent = pillars.consent?(timeline).state ?? .granted
        parts.consentDroppedEvents = pillars.consent?(timeline).droppedEvents ?? 0
        #endif
        #if TrackingPlan
        parts.planViolations = slots.trackingPlan?.violationCount ?? 0
        parts.planBlockedEvents = slots.trackingPlan?.blockedCount ?? 0
        #endif
        #if Rules
        parts.remoteRules = (pillars.remoteRules?(timeline)).flatMap { plugin in
            plugin.ruleSet.map { RemoteRulesInForce(name: $0.name, version: $0.version, source: plugin.source) }
        }
        #endif
        #if Entitlements
        parts.entitlementsRefreshFailedAt = pillars.entitlements?(timeline).lastFailure
        #endif
        return parts
    }

    /// The debug fields: what was read on the executor, and the instance's own. Not inlined into
    /// the async function's parts, each of which would then carry a copy.
    @inline(never)
    private static func debugInfo(of parts: Parts, from snapshot: DebugInfoParts) -> DebugInfo {
        let client = parts.engine, options = parts.options
        let lifecycle = client.lifecycle
        var info = DebugInfo(
            lifecycle: lifecycle, queueLength: snapshot.delivery?.queueLength ?? 0,
            writeKey: DebugInfo.mask(options.writeKey), ingestionHost: options.ingestionHost,
            flushIntervalSeconds: options.flushIntervalSeconds, maxQueueEvents: snapshot.queueLimit?.maxEvents ?? 0,
            queueOnDisk: snapshot.queueLimit?.storage == .disk,
            circuitState: snapshot.delivery?.circuitState ?? .closed,
            circuitRemainingMs: snapshot.delivery?.circuitRemainingMs ?? 0,
            flushInFlight: snapshot.delivery?.flushInFlight ?? false,
            anonymousId: snapshot.anonymousId.flatMap { $0.isEmpty ? nil : $0 }, userId: snapshot.userId,
            groupId: snapshot.groupId, advertisingId: snapshot.advertisingId, tracing: snapshot.tracing,
            error: parts.configurationError ?? client.disabledReason ?? snapshot.storageError, stats: snapshot.stats)
        for (reason, count) in [
            (DropReason.overflow, client.overflowedEvents), (.noIdentity, snapshot.rejectedWithoutIdentity),
            (.consent, snapshot.consentDroppedEvents), (.trackingPlan, snapshot.planBlockedEvents),
        ] where count > 0 {
            info.stats.dropped[reason, default: 0] += count
        }
        info.openDescriptors = snapshot.openDescriptors
        info.destinations = snapshot.destinations
        info.invalidInput = Dictionary(uniqueKeysWithValues: client.inputProblems.countsByCode.map { ($0.key.rawValue, $0.value) })
        #if Privacy
        info.consent = snapshot.consent
        #endif
        #if TrackingPlan
        info.planViolations = snapshot.planViolations
        #endif
        #if Rules
        info.remoteRulesInForce = snapshot.remoteRules.map { ($0.name, $0.version, $0.source) }
        #endif
        #if Entitlements
        info.entitlementsRefreshFailedAt = snapshot.entitlementsRefreshFailedAt
        #endif
        return info
    }

    /// What a `fork()` child's inherited instance reports: its options, nothing read from its
    /// state (whose locks a thread that is gone may hold).
    static func inertInForkedChild(_ options: InitOptions) -> DebugInfo {
        DebugInfo(
            lifecycle: nil, queueLength: 0, writeKey: DebugInfo.mask(options.writeKey), ingestionHost: options.ingestionHost,
            flushIntervalSeconds: options.flushIntervalSeconds, maxQueueEvents: 0, queueOnDisk: false, circuitState: .closed,
            circuitRemainingMs: 0, flushInFlight: false, tracing: false,
            error: "inert: this process is a fork() child of the one that created the instance", stats: DeliveryStats())
    }

    private struct DebugInfoParts: Sendable {
        var anonymousId: String?
        var userId: String?
        var groupId: String?
        var advertisingId: String?
        var delivery: BatchUploader.Status?
        var openDescriptors = 0
        var tracing: Bool
        var stats: DeliveryStats
        var storageError: String?
        var rejectedWithoutIdentity: Int
        var queueLimit: QueueLimit?
        var destinations: [String: DeliveryStats] = [:]
        var consentDroppedEvents = 0
        var planBlockedEvents = 0
        #if Privacy
        var consent = ConsentState.granted
        #endif
        #if TrackingPlan
        var planViolations = 0
        #endif
        #if Rules
        var remoteRules: RemoteRulesInForce?
        #endif
        #if Entitlements
        var entitlementsRefreshFailedAt: Date?
        #endif
    }

    #if Rules
    private struct RemoteRulesInForce: Sendable {
        var name: String
        var version: Int
        var source: RemoteRulesSource
    }
    #endif
}
