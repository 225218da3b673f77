/// The storage keys of the identity plugin; the same keys the MetaRouter iOS SDK uses, so an
/// app that switches SDKs keeps its users.
package enum IdentityKeys {
    /// The anonymous id.
    package static let anonymousId = "metarouter:anonymous_id"
    /// The known user id.
    package static let userId = "metarouter:user_id"
    /// The current group id.
    package static let groupId = "metarouter:group_id"
    /// The merged traits of identify calls, as JSON.
    package static let traits = "metarouter:traits"
}
