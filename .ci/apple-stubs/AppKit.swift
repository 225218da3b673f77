// A stub of the AppKit symbols the SDK's Apple-only code uses, with the isolation Apple's SDK
// gives them (NSApplication and NSScreen are @MainActor, their class properties too). For
// .ci/apple-typecheck only: never built into a product. Nothing here runs.
@_exported import Foundation

@MainActor open class NSResponder: NSObject {}

@MainActor open class NSApplication: NSResponder {
    public class var didBecomeActiveNotification: NSNotification.Name { NSNotification.Name("NSApplicationDidBecomeActiveNotification") }
    public class var willResignActiveNotification: NSNotification.Name { NSNotification.Name("NSApplicationWillResignActiveNotification") }
    public class var didHideNotification: NSNotification.Name { NSNotification.Name("NSApplicationDidHideNotification") }
    public class var willTerminateNotification: NSNotification.Name { NSNotification.Name("NSApplicationWillTerminateNotification") }
}

@MainActor open class NSScreen: NSObject {
    open class var main: NSScreen? { nil }
    open var frame: CGRect { .zero }
    open var backingScaleFactor: CGFloat { 1 }
}
