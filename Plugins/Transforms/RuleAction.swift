import Foundation
import MetaRouterCore

/// What a rule does to an event it matches. Paths are split field paths (`FieldPath.split`).
package enum RuleAction: Sendable, Hashable {
    /// Drop the event.
    case drop
    /// Keep `percent` (0–100) of events: deterministic by the value at `by` (same value, same
    /// verdict; raising the percentage never drops what a lower one kept), or random without it.
    case sample(percent: Double, by: [String]?)
    /// Set the value at a path to an expression's value (missing parents are created; a missing
    /// value removes the field).
    case set([String], Expression)
    /// Copy a value (missing source: nothing happens).
    case copy(from: [String], to: [String])
    /// Move a value, removing the source (missing source: nothing happens).
    case move(from: [String], to: [String])
    /// Remove a field.
    case delete([String])
    /// Keep only `keys` of the object at a path (or of each object in the array there).
    case allow([String], keys: [String])
    /// Remove `keys` from the object at a path (or from each object in the array there).
    case remove([String], keys: [String])
    /// Turn a number, Boolean or null into its JSON text.
    case toString([String])
    /// Segment's `map_properties`: every read sees the event before this step; a target whose
    /// parent is missing is skipped.
    case map([MapEntry])

    /// One target of `map`.
    package struct MapEntry: Sendable, Hashable {
        /// Where the result goes.
        package var target: [String]
        /// A literal to write.
        package var set: JSON?
        /// Copy from here.
        package var copy: [String]?
        /// Move from here.
        package var move: [String]?
        /// Stringify the result.
        package var toString: Bool

        /// An entry.
        package init(target: [String], set: JSON? = nil, copy: [String]? = nil, move: [String]? = nil, toString: Bool = false) {
            self.target = target
            self.set = set
            self.copy = copy
            self.move = move
            self.toString = toString
        }
    }
}

/// A compiled action: returns `false` to drop the event. It throws only ``RuleRuntimeError``,
/// but its type says untyped `throws`: a typed-throws function *type* stored as a value needs
/// runtime support that Apple platforms have only from iOS 18 / macOS 15, above our floor.
typealias CompiledAction = @Sendable (inout Event, ReadCache) throws -> Bool

/// An action compiled, with whether it can fail.
struct CompiledForm {
    /// The action.
    let action: CompiledAction
    /// Whether the action cannot fail: its closure throws nothing, though its type allows it, so
    /// that every action has one closure type. Several such actions edit an event in place one
    /// after another, with no copy kept to roll back to.
    let cannotFail: Bool

    /// An action that cannot fail.
    static func inPlace(_ action: @escaping CompiledAction) -> CompiledForm { CompiledForm(action: action, cannotFail: true) }

    /// An action that may throw.
    static func mayThrow(_ action: @escaping CompiledAction) -> CompiledForm { CompiledForm(action: action, cannotFail: false) }
}

extension RuleAction {
    /// Whether the action has changed nothing when it throws, so a rule made of it alone may
    /// edit the event in place instead of a copy kept for rolling back.
    var changesNothingWhenItFails: Bool {
        switch self {
        case .drop, .sample, .set, .copy, .delete, .toString: return true
        case .allow(let path, _), .remove(let path, _): return !path.isEmpty
        case .move, .map: return false
        }
    }

    /// The action compiled; the keys `plan` caches are read once per rule-set call. It cannot
    /// fail when its target is resolved now — one key of an object field, or an object field's
    /// keys — or when it only decides (`drop`, `sample`); any other path is walked when the rule
    /// runs and may meet something that is not an object.
    func form(plan: ReadPlan = .none) -> CompiledForm {
        func reader(_ path: [String]) -> EventAccess.Reader { EventAccess.reader(path, plan: plan) }
        switch self {
        case .drop:
            return .inPlace { _, _ throws in false }
        case .sample(let percent, let path):
            guard let path else { return .inPlace { _, _ throws in Double.random(in: 0..<100) < percent } }
            let read = reader(path)
            return .inPlace { event, cache throws in Sampling.bucket(of: read(event, cache)) < percent }
        case .set(let path, let expression):
            let value = Evaluator.compile(expression, plan: plan)
            if let target = ObjectKeyPath(path) {
                return .inPlace { event, cache throws in
                    target.write(value(event, cache), in: &event, createParents: true)
                    return true
                }
            }
            return .mayThrow { event, cache throws in
                try EventAccess.write(value(event, cache), at: path, in: &event, createParents: true)
                return true
            }
        case .copy(let source, let target), .move(let source, let target):
            let read = reader(source)
            let removesSource = { if case .move = self { return true } else { return false } }()
            if !removesSource, let target = ObjectKeyPath(target) {
                return .inPlace { event, cache throws in
                    guard let value = read(event, cache) else { return true }
                    target.write(value, in: &event, createParents: true)
                    return true
                }
            }
            return .mayThrow { event, cache throws in
                guard let value = read(event, cache) else { return true }
                if removesSource { try EventAccess.write(nil, at: source, in: &event, createParents: false) }
                try EventAccess.write(value, at: target, in: &event, createParents: true)
                return true
            }
        case .delete(let path):
            if let target = ObjectKeyPath(path) {
                return .inPlace { event, _ throws in
                    target.write(nil, in: &event, createParents: false)
                    return true
                }
            }
            return .mayThrow { event, _ throws in
                try EventAccess.write(nil, at: path, in: &event, createParents: false)
                return true
            }
        case .allow(let path, let keys):
            return KeyFilter(allowing: keys).form(at: path)
        case .remove(let path, let keys):
            return KeyFilter(removing: keys).form(at: path)
        case .toString(let path):
            let read = reader(path)
            return .mayThrow { event, cache throws in
                guard let value = read(event, cache) else { return true }
                try EventAccess.write(Functions.stringValue(value), at: path, in: &event, createParents: false)
                return true
            }
        case .map(let entries):
            let readers = entries.map { entry in (entry, (entry.copy ?? entry.move).map { reader($0) }, reader(entry.target)) }
            return .mayThrow { event, cache throws in
                let before = event
                for (entry, read, readTarget) in readers {
                    var value: JSON?
                    if let read {
                        value = read(before, cache)
                        guard value != nil else { continue }
                        if let source = entry.move, entry.copy == nil {
                            try EventAccess.write(nil, at: source, in: &event, createParents: false)
                        }
                    } else if let literal = entry.set {
                        value = literal
                    }
                    if entry.toString, let current = value ?? readTarget(before, cache) {
                        value = Functions.stringValue(current)
                    }
                    guard let value else { continue }
                    try EventAccess.write(value, at: entry.target, in: &event, createParents: false)
                }
                return true
            }
        }
    }
}

/// Deterministic sampling buckets.
enum Sampling {
    /// A stable bucket in `0..<100` for a value: FNV-1a 64 of its canonical JSON (sorted keys),
    /// the same on every platform and in every process. Missing counts as `null`.
    static func bucket(of value: JSON?) -> Double {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in JSONWriter.bytes(value ?? .null) {
            hash ^= UInt64(byte)
            hash = hash &* 0x0000_0100_0000_01b3
        }
        return Double(hash % 1_000_000) / 10_000
    }
}
