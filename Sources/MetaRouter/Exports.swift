@_exported import MetaRouterContext
@_exported import MetaRouterCore
@_exported import MetaRouterDelivery
@_exported import MetaRouterIdentity
@_exported import MetaRouterLifecycle
#if Entitlements
@_exported import MetaRouterEntitlements
#endif
#if ErrorCapture
@_exported import MetaRouterErrors
#endif
#if CrashCapture
@_exported import MetaRouterCrashes
#endif
#if Privacy
@_exported import MetaRouterPrivacy
#endif
#if Signals
@_exported import MetaRouterSignals
#endif
#if TrackingPlan
@_exported import MetaRouterTrackingPlan
#endif
#if Rules
@_exported import MetaRouterTransforms
#endif
