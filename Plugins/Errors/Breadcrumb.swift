import Foundation
import MetaRouterCore

/// One entry of the trail of app activity that an error report carries: what happened just
/// before it.
public struct Breadcrumb: Sendable, Hashable {
    /// When.
    public var timestamp: Date
    /// A short grouping name, e.g. `"navigation"`, `"network"`, `"track"`.
    public var category: String
    /// How much it matters.
    public var level: LogLevel
    /// What happened.
    public var message: String
    /// Details, as JSON.
    public var data: [String: JSON]?

    /// A breadcrumb stamped `timestamp` (now by default).
    ///
    /// - Parameters:
    ///   - category: What kind of step it was (`navigation`, `network`, …).
    ///   - message: What happened.
    ///   - level: How serious it was.
    ///   - data: JSON details.
    ///   - timestamp: When it happened (now unless given).
    public init(category: String, message: String, level: LogLevel = .info, data: [String: JSON]? = nil, timestamp: Date = Date()) {
        self.timestamp = timestamp
        self.category = category
        self.level = level
        self.message = message
        self.data = data
    }

    /// The wire form: `{timestamp, category, level, message, data?}`.
    package var json: JSON {
        var object: [String: JSON] = [
            "timestamp": .string(Timestamp.string(from: timestamp)), "category": .string(category),
            "level": .string(level.wireName), "message": .string(message),
        ]
        if let data { object["data"] = .object(data) }
        return .object(object)
    }
}

extension LogLevel {
    /// The level's name on the wire: `debug`, `info`, `warning` or `error`.
    package var wireName: String {
        switch self {
        case .debug: "debug"
        case .info: "info"
        case .warning: "warning"
        case .error: "error"
        }
    }
}
