/// The storage keys of the identity plugin; the same keys the MetaRouter iOS SDK uses, so an
/// app that switches SDKs keeps its users.
public enum IdentityKeys {
    /// The anonymous id.
    public static let anonymousId = "metarouter:anonymous_id"
    /// The known user id.
    public static let userId = "metarouter:user_id"
    /// The current group id.
    public static let groupId = "metarouter:group_id"
    /// The merged traits of identify calls, as JSON.
    public static let traits = "metarouter:traits"
}
