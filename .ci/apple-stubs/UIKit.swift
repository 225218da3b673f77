// A stub of the UIKit symbols the SDK's Apple-only code uses, with the isolation and
// Sendable-ness Apple's SDK gives them (UIKit's classes are @MainActor, so are their class
// properties, notification names included). For .ci/apple-typecheck only: never built into a
// product. Bodies are placeholders; nothing here runs.
@_exported import Foundation

/// From the Objective-C runtime, which Foundation brings on Apple platforms.
public struct Selector: Sendable {
    public init() {}
}

/// From Foundation on Apple platforms.
public func NSSelectorFromString(_ name: String) -> Selector { Selector() }

@MainActor open class UIResponder: NSObject {}

@MainActor open class UIApplication: UIResponder {
    public enum State: Int, Sendable { case active, inactive, background }
    open var applicationState: UIApplication.State { .active }
    open var isProtectedDataAvailable: Bool { true }
    open var connectedScenes: Set<UIScene> { [] }
    open func beginBackgroundTask(withName taskName: String?, expirationHandler handler: (@MainActor @Sendable () -> Void)? = nil) -> UIBackgroundTaskIdentifier { .invalid }
    open func endBackgroundTask(_ identifier: UIBackgroundTaskIdentifier) {}
    public class var didBecomeActiveNotification: NSNotification.Name { NSNotification.Name("UIApplicationDidBecomeActiveNotification") }
    public class var willResignActiveNotification: NSNotification.Name { NSNotification.Name("UIApplicationWillResignActiveNotification") }
    public class var didEnterBackgroundNotification: NSNotification.Name { NSNotification.Name("UIApplicationDidEnterBackgroundNotification") }
    public class var willTerminateNotification: NSNotification.Name { NSNotification.Name("UIApplicationWillTerminateNotification") }
    public class var protectedDataDidBecomeAvailableNotification: NSNotification.Name { NSNotification.Name("UIApplicationProtectedDataDidBecomeAvailable") }
    nonisolated open class func responds(to aSelector: Selector!) -> Bool { false }
    nonisolated open class func perform(_ aSelector: Selector!) -> Unmanaged<AnyObject>! { nil }
}

public struct UIBackgroundTaskIdentifier: RawRepresentable, Hashable, Sendable {
    public var rawValue: Int
    public init(rawValue: Int) { self.rawValue = rawValue }
    public static let invalid = UIBackgroundTaskIdentifier(rawValue: 0)
}

@MainActor open class UIScene: UIResponder {}

@MainActor open class UIWindowScene: UIScene {
    open var screen: UIScreen { UIScreen() }
}

@MainActor open class UIScreen: NSObject {
    open var bounds: CGRect { .zero }
    open var scale: CGFloat { 1 }
}
