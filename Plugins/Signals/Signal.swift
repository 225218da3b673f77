import Foundation
import MetaRouterCore

/// The kinds of signal, as the Analytics Live seed names them.
public enum SignalType: String, Sendable, Hashable, CaseIterable {
    /// The user moved between screens or pages.
    case navigation
    /// The user touched a control.
    case interaction
    /// A request left or a response arrived.
    case network
    /// The app loaded, changed, saved or deleted data of its own.
    case localData
    /// An event the SDK sent, fed back as a signal (with `instrumentation` on).
    case instrumentation
    /// Anything else the app emits.
    case userDefined
}

/// A navigation signal's action.
public enum NavigationAction: String, Sendable, Hashable {
    /// Forward to a new screen.
    case forward
    /// Back to the previous screen.
    case backward
    /// A modal screen was shown.
    case modal
    /// A screen became visible.
    case entering
    /// A screen went away.
    case leaving
    /// A web page was shown.
    case page
    /// A popup was shown.
    case popup
}

/// A network signal's action.
public enum NetworkAction: String, Sendable, Hashable {
    /// A request was sent.
    case request
    /// A response arrived.
    case response
}

/// A local-data signal's action.
public enum LocalDataAction: String, Sendable, Hashable {
    /// Read.
    case loaded
    /// Changed.
    case updated
    /// Written.
    case saved
    /// Removed.
    case deleted
    /// Something else.
    case undefined
}

/// What the app emits; the instance adds the anonymousId, the time and the index.
public enum SignalContent: Sendable, Hashable {
    /// A screen was entered, left, presented…: `{action, screen}`.
    case navigation(NavigationAction, screen: String)
    /// A component was used: `{component, title?, data?}`.
    case interaction(component: String, title: String? = nil, data: [String: JSON]? = nil)
    /// A request went out or its response came back: `{action, url, statusCode?, data?}`.
    case network(NetworkAction, url: String, statusCode: Int? = nil, data: JSON? = nil)
    /// Local data was loaded, saved…: `{action, identifier, data?}`.
    case localData(LocalDataAction, identifier: String, data: JSON? = nil)
    /// Anything of the app's own: its data as given.
    case userDefined([String: JSON])

    /// The signal's type.
    package var type: SignalType {
        switch self {
        case .navigation: return .navigation
        case .interaction: return .interaction
        case .network: return .network
        case .localData: return .localData
        case .userDefined: return .userDefined
        }
    }

    /// The signal's `data` object.
    package var data: [String: JSON] {
        switch self {
        case .navigation(let action, let screen):
            return ["action": .string(action.rawValue), "screen": .string(screen)]
        case .interaction(let component, let title, let data):
            var object: [String: JSON] = ["component": .string(component)]
            if let title { object["title"] = .string(title) }
            if let data { object["data"] = .object(data) }
            return object
        case .network(let action, let url, let statusCode, let data):
            var object: [String: JSON] = ["action": .string(action.rawValue), "url": .string(url)]
            if let statusCode { object["statusCode"] = .int(Int64(statusCode)) }
            if let data { object["data"] = data }
            return object
        case .localData(let action, let identifier, let data):
            var object: [String: JSON] = ["action": .string(action.rawValue), "identifier": .string(identifier)]
            if let data { object["data"] = data }
            return object
        case .userDefined(let data):
            return data
        }
    }
}

/// One breadcrumb of app activity, as the buffer keeps it and broadcasters receive it.
public struct Signal: Sendable, Hashable {
    /// The instance's anonymousId when the signal was added.
    public var anonymousId: String
    /// When it was emitted.
    public var timestamp: Date
    /// Sequential per instance, from 0.
    public var index: Int
    /// Its kind.
    public var type: SignalType
    /// Its data (see ``SignalContent``; an instrumentation signal's is `{type, rawEvent}`).
    public var data: [String: JSON]

    /// Creates a signal.
    ///
    /// - Parameters:
    ///   - anonymousId: The device's anonymous id.
    ///   - timestamp: When it happened.
    ///   - index: Its place in the buffer.
    ///   - type: What kind of signal it is.
    ///   - data: Its JSON data.
    public init(anonymousId: String, timestamp: Date, index: Int, type: SignalType, data: [String: JSON]) {
        self.anonymousId = anonymousId
        self.timestamp = timestamp
        self.index = index
        self.type = type
        self.data = data
    }

    /// `{anonymousId, timestamp (ISO 8601 with milliseconds), index, type, data}`: what generator
    /// rules read and the webhook broadcaster sends.
    package var json: JSON {
        .object([
            "anonymousId": .string(anonymousId), "timestamp": .string(Timestamp.string(from: timestamp)),
            "index": .int(Int64(index)), "type": .string(type.rawValue), "data": .object(data),
        ])
    }
}
