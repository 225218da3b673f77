/// The consent gate as the paths other than events see it: signals and their broadcasters,
/// breadcrumbs and the crash record's copy of them, stored super properties. The timeline keeps
/// the first of its own plugins that conforms, resolved when its plugins change (never looked
/// up per call), and reads it on the executor, so a change of consent applies to them in call
/// order too. The consent plugin conforms.
package protocol PrivacyGate: Plugin {
    /// Whether analytics data may be collected, kept or sent now.
    var collectsAnalytics: Bool { get }
}

/// The PII scrubber as the paths other than events use it, so every path out of the process
/// or onto the disk is scrubbed the same way. The scrubbing plugin conforms; while it is off,
/// values pass unchanged.
package protocol PrivacyScrubbing: Plugin {
    /// `values` with personal data replaced.
    func scrubbedForExport(_ values: [String: JSON]) -> [String: JSON]
    /// `text` with personal data replaced.
    func scrubbedForExport(_ text: String) -> String
}

/// A plugin that acts when the user's consent categories change (`setConsent`): a destination
/// that needs some drops what it holds once one is withdrawn. The timeline keeps those among its
/// own plugins, resolved when its plugins change.
package protocol ConsentCategoriesListener: Plugin {
    /// The categories now in force (`nil`: none stamped); called on the executor, after the
    /// change, before any later event.
    func consentCategoriesChanged(to preferences: [String: Bool]?)
}

extension Timeline {
    /// Tells the destinations that listen that the consent categories are now `preferences`.
    package func consentCategoriesChanged(to preferences: [String: Bool]?) {
        for listener in consentListeners { listener.consentCategoriesChanged(to: preferences) }
    }

    /// Whether analytics data may be collected now: no consent plugin means yes.
    package var collectsAnalytics: Bool { privacyGate?.collectsAnalytics ?? true }

    /// `values` scrubbed as events are, when scrubbing is on.
    package func scrubbedForExport(_ values: [String: JSON]) -> [String: JSON] {
        scrubbing?.scrubbedForExport(values) ?? values
    }

    /// `text` scrubbed as event values are, when scrubbing is on.
    package func scrubbedForExport(_ text: String) -> String {
        scrubbing?.scrubbedForExport(text) ?? text
    }
}
