import Foundation
import MetaRouterCore

/// A pattern of its own to scrub from string values: every match of `expression` (an
/// `NSRegularExpression`) is replaced by `replacement`.
public struct PIIPattern: Sendable, Hashable {
    /// The regular expression.
    package var expression: String
    /// What each match becomes, e.g. `"<ssn>"`.
    package var replacement: String

    /// A pattern and its replacement.
    ///
    /// - Parameters:
    ///   - expression: The regular expression a value is matched against.
    ///   - replacement: What a match is replaced with.
    public init(_ expression: String, replacement: String) {
        self.expression = expression
        self.replacement = replacement
    }
}

/// What the scrubber looks for besides email addresses and payment card numbers.
public struct PIIScrubbingOptions: Sendable, Hashable {
    /// Keys whose values are replaced by `"<redacted>"` wherever they appear (at any depth,
    /// matched without regard to case), e.g. `["password", "ssn"]`.
    public var redactedKeys: Set<String>
    /// Patterns of its own, applied to every string value after the built-in ones.
    public var patterns: [PIIPattern]
    /// Whether `identify` and `group` traits are scrubbed too. Off by default: an email trait
    /// is the point of `identify`.
    public var scrubsTraits: Bool
    /// Whether event names, screen and page names, and the ids a call carries (`userId`,
    /// `groupId`, `previousId`, a per-call `anonymousId`) are scanned too. Off by default: they
    /// are the keys a warehouse joins on, and an app that puts an email address in one usually
    /// means to.
    public var scrubsNamesAndIds: Bool

    /// Options with nothing beyond the built-in detection.
    ///
    /// - Parameters:
    ///   - redactedKeys: Keys whose values are always masked.
    ///   - patterns: The patterns values are scrubbed with.
    ///   - scrubsTraits: Whether traits are scrubbed as well as properties.
    ///   - scrubsNamesAndIds: Whether event names and ids are scrubbed too.
    public init(redactedKeys: Set<String> = [], patterns: [PIIPattern] = [], scrubsTraits: Bool = false, scrubsNamesAndIds: Bool = false) {
        self.redactedKeys = redactedKeys
        self.patterns = patterns
        self.scrubsTraits = scrubsTraits
        self.scrubsNamesAndIds = scrubsNamesAndIds
    }
}

/// Replaces personal data in JSON values: email addresses become `<email>`, payment card
/// numbers — 13 to 19 digits, spaces or hyphens between them allowed, that pass the Luhn
/// check (so order numbers and timestamps mostly stay) — become `<card>`, credentials (the
/// token after `Bearer `, the value of a URL query parameter such as `token`, `access_token`,
/// `api_key`, `password`, `sig`) become `<token>`, values under a
/// redacted key become `<redacted>`, and custom patterns are applied. Only strings are
/// scanned; numbers, Booleans and keys are left as they are.
///
/// The walk is bounded: values nested deeper than ``maximumDepth`` are replaced by
/// `<redacted>` rather than walked, so no input can exhaust the stack.
package struct PIIScrubber: Sendable {
    /// Nesting below which values are redacted whole instead of walked.
    package static let maximumDepth = 64
    /// What an email address becomes.
    package static let emailReplacement = "<email>"
    /// What a payment card number becomes.
    package static let cardReplacement = "<card>"
    /// What a credential becomes: a `Bearer` token, a URL query value named like a secret.
    package static let tokenReplacement = "<token>"
    /// What the value of a redacted key becomes.
    package static let redactedReplacement = "<redacted>"

    private let redactedKeys: Set<String>
    private let patterns: [(expression: NSRegularExpression, replacement: String)]

    /// A scrubber for `options`; patterns that do not compile are returned in `invalidPatterns`.
    package init(options: PIIScrubbingOptions = PIIScrubbingOptions()) {
        redactedKeys = Set(options.redactedKeys.map { $0.lowercased() })
        var compiled: [(NSRegularExpression, String)] = []
        var invalid: [String] = []
        for pattern in options.patterns {
            if let expression = try? NSRegularExpression(pattern: pattern.expression) {
                compiled.append((expression, pattern.replacement))
            } else {
                invalid.append(pattern.expression)
            }
        }
        patterns = compiled
        invalidPatterns = invalid
    }

    /// Patterns from the options that are not valid regular expressions (and are ignored).
    package let invalidPatterns: [String]

    /// The object with personal data replaced, and how many values were changed.
    package func scrub(_ object: [String: JSON]) -> (object: [String: JSON], scrubbed: Int) {
        var count = 0
        let result = scrubObject(object, depth: 1, count: &count)
        return (result, count)
    }

    private func scrubObject(_ object: [String: JSON], depth: Int, count: inout Int) -> [String: JSON] {
        var result = object
        for (key, value) in object {
            if !redactedKeys.isEmpty, redactedKeys.contains(key.lowercased()) {
                if value != .string(Self.redactedReplacement) {
                    result[key] = .string(Self.redactedReplacement)
                    count += 1
                }
                continue
            }
            if let changed = scrubValue(value, depth: depth, count: &count) { result[key] = changed }
        }
        return result
    }

    /// The value scrubbed, or `nil` when nothing in it changed (so unchanged containers are
    /// not rebuilt).
    private func scrubValue(_ value: JSON, depth: Int, count: inout Int) -> JSON? {
        switch value {
        case .string(let text):
            guard let scrubbed = scrubString(text) else { return nil }
            count += 1
            return .string(scrubbed)
        case .object(let object):
            guard depth < Self.maximumDepth else {
                count += 1
                return .string(Self.redactedReplacement)
            }
            let before = count
            let result = scrubObject(object, depth: depth + 1, count: &count)
            return count == before ? nil : .object(result)
        case .array(let array):
            guard depth < Self.maximumDepth else {
                count += 1
                return .string(Self.redactedReplacement)
            }
            var result = array
            var changed = false
            for (index, element) in array.enumerated() {
                if let scrubbed = scrubValue(element, depth: depth + 1, count: &count) {
                    result[index] = scrubbed
                    changed = true
                }
            }
            return changed ? .array(result) : nil
        case .null, .bool, .int, .uint, .double:
            return nil
        }
    }

    /// The string with personal data replaced, or `nil` when it has none.
    func scrubString(_ text: String) -> String? {
        var result: String?
        if let builtIn = PIIDetector.replacing(in: text) { result = builtIn }
        for pattern in patterns {
            let current = result ?? text
            let range = NSRange(current.startIndex..<current.endIndex, in: current)
            guard pattern.expression.firstMatch(in: current, range: range) != nil else { continue }
            let template = NSRegularExpression.escapedTemplate(for: pattern.replacement)
            result = pattern.expression.stringByReplacingMatches(in: current, range: range, withTemplate: template)
        }
        return result
    }
}
