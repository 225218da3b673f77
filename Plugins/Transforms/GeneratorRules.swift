import Foundation
import MetaRouterCore

/// Event generators written in the rule language: each fires on a signal of a type that matches
/// a condition, looks back through the signal buffer for related signals, and emits a `track`
/// or a `screen` with properties computed from them. The seed's "Add To Cart":
///
/// ```
/// generator "Add To Cart" {
///     on interaction when data.title = "Add To Cart"
///     find product: network where data.action = "response" and contains(data.url, "product")
///     track "Add To Cart"
///     set properties.price = product.data.data.content.price
///     set properties.currency = product.data.data.content.currency ?? "USD"
/// }
/// ```
///
/// Signals are JSON documents (`{anonymousId, timestamp, index, type, data}`): `when` and a
/// find's `where` read the signal they test (`data.title`); the name and `set` expressions read
/// `signal.…` (the new signal) and each find's name (`product.…`, missing when nothing was
/// found).
package struct GeneratorRule: Sendable, Hashable {
    /// A look-back: the most recent earlier signal of `type` for which `condition` holds.
    package struct Find: Sendable, Hashable {
        /// The name `set` expressions use.
        package var name: String
        /// The signal type looked for.
        package var type: String
        /// Over the candidate signal; every one of `type` without it.
        package var condition: DocumentExpression?
    }

    /// What the generator emits.
    package enum Output: Sendable, Hashable {
        /// A `track` whose name the expression gives.
        case track(DocumentExpression)
        /// A `screen` whose name the expression gives.
        case screen(DocumentExpression)
    }

    /// Shown in logs.
    package var name: String
    /// The signal type it fires on; `nil` for any.
    package var signalType: String?
    /// Over the new signal.
    package var condition: DocumentExpression?
    /// Look-backs, in order.
    package var finds: [Find]
    /// The event.
    package var output: Output
    /// `set properties.… = …`, in order.
    package var assignments: [Assignment]

    /// One `set`: a path inside `properties` and its value.
    package struct Assignment: Sendable, Hashable {
        /// The path below `properties`.
        package var path: [String]
        /// The value; a missing or null value sets nothing.
        package var value: DocumentExpression
    }

    /// The event for `signal`, or `nil` when the rule does not fire (another type, the
    /// condition does not hold, or the name is not a string). `lookBack(type, predicate)`
    /// returns the most recent earlier signal of `type` that satisfies `predicate`.
    package func event(for signal: JSON, at time: Date, lookBack: (String, (JSON) -> Bool) -> JSON?) -> Event? {
        if let signalType, signal["type"]?.stringValue != signalType { return nil }
        if let condition, !condition.matches(signal) { return nil }
        var document: [String: JSON] = ["signal": signal]
        for find in finds {
            document[find.name] = lookBack(find.type) { candidate in find.condition?.matches(candidate) ?? true }
        }
        let scope = JSON.object(document)
        var properties: JSON = .object([:])
        for assignment in assignments {
            guard let value = assignment.value.value(in: scope), value != .null else { continue }
            properties = (try? JSONEdit.setting(value, at: assignment.path[...], in: properties, createParents: true)) ?? properties
        }
        switch output {
        case .track(let name):
            guard case .string(let event)? = name.value(in: scope) else { return nil }
            return Event(type: .track, timestamp: time, event: event, properties: properties.objectValue ?? [:])
        case .screen(let name):
            guard case .string(let screen)? = name.value(in: scope) else { return nil }
            return Event(type: .screen, timestamp: time, name: screen, properties: properties.objectValue ?? [:])
        }
    }
}
