#if canImport(SwiftUI) && Signals
import SwiftUI

// Apple-only glue, thin on purpose: each helper emits one `SignalContent`, and what happens to it
// (the buffer, generators, broadcasters) is platform-neutral and tested on Linux.

extension View {
    /// Emits navigation signals for this view as a screen: `entering` when it appears and
    /// `leaving` when it disappears.
    public func signalScreen(_ name: String, analytics: Analytics = .shared) -> some View {
        onAppear { analytics.emit(.navigation(.entering, screen: name)) }
            .onDisappear { analytics.emit(.navigation(.leaving, screen: name)) }
    }

    /// Emits an interaction signal when the view is tapped; its own actions still run (the tap
    /// is observed beside them, not instead of them). On tvOS from 16, where SwiftUI's
    /// `TapGesture` begins.
    @available(tvOS 16.0, *)
    public func signalTap(
        _ title: String?, component: String = "button", analytics: Analytics = .shared
    ) -> some View {
        simultaneousGesture(TapGesture().onEnded { analytics.emit(.interaction(component: component, title: title)) })
    }
}
#endif
