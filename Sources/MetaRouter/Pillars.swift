import Foundation
import MetaRouterAdvertisingID

/// A built-in plugin of one instance, found once when the instance starts. It hands the plugin
/// out only in exchange for a ``Timeline``, which exists only on the executor (inside
/// `perform`), so the plugin cannot be reached from another thread.
struct PillarHandle<P: Plugin>: @unchecked Sendable {  // the plugin is handed out only with a Timeline, i.e. on the executor
    private let plugin: P

    init?(in plugins: [any Plugin], where matches: (P) -> Bool = { _ in true }) {
        guard let found = plugins.lazy.compactMap({ $0 as? P }).first(where: matches) else { return nil }
        plugin = found
    }

    /// The plugin, for code running on the executor with `timeline`.
    func callAsFunction(_ timeline: Timeline) -> P { plugin }
}

extension Analytics {
    /// The built-in plugins an instance started with (a handle each; `nil` when options left it
    /// out). Those a call may add later (scrubbing, the tracking plan, sessions on a server) are
    /// kept in ``PillarSlots`` as they are added.
    struct Pillars: Sendable {
        var identity: PillarHandle<IdentityPlugin>?
        var advertisingId: PillarHandle<AdvertisingIDPlugin>?
        var destination: PillarHandle<DurableDestination>?
        var lifecycle: PillarHandle<LifecyclePlugin>?
        #if Privacy
        var consent: PillarHandle<ConsentPlugin>?
        var superProperties: PillarHandle<SuperPropertiesPlugin>?
        #endif
        #if ErrorCapture
        var breadcrumbs: PillarHandle<BreadcrumbsPlugin>?
        var errorCapture: PillarHandle<ErrorCapturePlugin>?
        #endif
        #if CrashCapture
        var crashReports: PillarHandle<CrashReportPlugin>?
        #endif
        #if Rules
        var remoteRules: PillarHandle<RemoteRulesPlugin>?
        #endif
        #if Signals
        var signals: PillarHandle<SignalsPlugin>?
        #endif
        #if Entitlements
        var entitlements: PillarHandle<EntitlementsPlugin>?
        #endif

        /// Handles on the built-ins among `plugins`, the timeline an instance starts with.
        mutating func find(in plugins: [any Plugin]) {
            identity = PillarHandle(in: plugins)
            advertisingId = PillarHandle(in: plugins)
            destination = PillarHandle(in: plugins) { $0.key == MetaRouterDestination.key }
            lifecycle = PillarHandle(in: plugins)
            #if Privacy
            consent = PillarHandle(in: plugins)
            superProperties = PillarHandle(in: plugins)
            #endif
            #if ErrorCapture
            breadcrumbs = PillarHandle(in: plugins)
            errorCapture = PillarHandle(in: plugins)
            #endif
            #if CrashCapture
            crashReports = PillarHandle(in: plugins)
            #endif
            #if Rules
            remoteRules = PillarHandle(in: plugins)
            #endif
            #if Signals
            signals = PillarHandle(in: plugins)
            #endif
            #if Entitlements
            entitlements = PillarHandle(in: plugins)
            #endif
        }
    }
}

/// An instance's handles on its built-in plugins, and what the pillars keep outside the
/// timeline so that a call reads it without waiting for the executor. The plugins are built by
/// the executor's first operation, which fills ``found`` in.
final class PillarSlots: @unchecked Sendable {  // `found` is written once, by the executor's first operation, and read only by the operations after it on the same serial executor; `session`, `scrubber` and `trackingPlan` are read and written only on that executor; the rest is immutable
    /// The handles, once the executor's first operation has built the plugins; read them only
    /// on the executor (each hands its plugin out only for a ``Timeline``).
    var found = Analytics.Pillars()
    /// The session plugin, when the instance started with one or `startSession()` added it.
    /// Only on the executor.
    var session: SessionPlugin?
    #if Privacy
    /// The PII scrubber, when the instance started with one or a call added it. Only on the
    /// executor.
    var scrubber: PIIScrubPlugin?
    #endif
    #if TrackingPlan
    /// The tracking-plan plugin, when the instance started with one or `setTrackingPlan` added
    /// it. Only on the executor.
    var trackingPlan: TrackingPlanPlugin?
    #endif

    /// Fills in the handles on the built-ins among `plugins`, the timeline the instance starts
    /// with; on the executor, as its first operation.
    func fill(from plugins: [any Plugin]) {
        found.find(in: plugins)
        session = plugins.lazy.compactMap { $0 as? SessionPlugin }.first
        #if Privacy
        scrubber = plugins.lazy.compactMap { $0 as? PIIScrubPlugin }.first
        #endif
        #if TrackingPlan
        trackingPlan = plugins.lazy.compactMap { $0 as? TrackingPlanPlugin }.first
        #endif
    }
    #if Entitlements
    /// The entitlements served, when `InitOptions.entitlements` is set: made with the
    /// instance, read from any thread.
    let entitlementCache: EntitlementCache?

    /// Slots to be filled in, beside `entitlementCache`.
    init(entitlementCache: EntitlementCache? = nil) { self.entitlementCache = entitlementCache }
    #else
    /// Slots to be filled in.
    init() {}
    #endif
}
