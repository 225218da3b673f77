@_exported import MetaRouterAdvertisingID
@_exported import MetaRouterContext
@_exported import MetaRouterCore
@_exported import MetaRouterDelivery
@_exported import MetaRouterIdentity
@_exported import MetaRouterLifecycle
@_exported import MetaRouterPrivacy
@_exported import MetaRouterTransforms
