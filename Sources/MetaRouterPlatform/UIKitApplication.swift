#if canImport(UIKit) && !os(watchOS)
import Foundation
import MetaRouterCore
import UIKit

// Apple-only glue: the SDK's logic around it is platform-neutral and tested on Linux.

/// The application object, reached without naming `UIApplication.shared`, which does not
/// exist in app extensions: the SDK may be linked into one.
package enum UIKitApplication {
    /// The shared application, or `nil` in an app extension.
    @MainActor
    package static func shared() -> UIApplication? {
        guard !AppExtension.isExtension(bundlePath: Bundle.main.bundlePath) else { return nil }
        let selector = NSSelectorFromString("sharedApplication")
        guard UIApplication.responds(to: selector) else { return nil }
        return UIApplication.perform(selector)?.takeUnretainedValue() as? UIApplication
    }
}

/// Opens once iOS reports protected data available (the device was unlocked since boot).
package final class UIKitProtectedDataGate: StartGate {
    package init() {}

    /// Checks on the main actor; when protected data is not yet available, waits for the
    /// notification that it became so. The observer stays registered (one per instance started
    /// while locked) and does nothing after the first notification.
    package func whenOpen(_ body: @escaping @Sendable () -> Void) {
        Task { @MainActor in
            guard let application = UIKitApplication.shared(), !application.isProtectedDataAvailable else { return body() }
            let opened = Locked(false)
            _ = NotificationCenter.default.addObserver(
                forName: UIApplication.protectedDataDidBecomeAvailableNotification, object: nil, queue: nil
            ) { _ in
                if opened.firstTime() { body() }
            }
        }
    }
}
#endif
