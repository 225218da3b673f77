@_exported import MetaRouterCore
