import Foundation

/// A value that could not be represented in JSON and was left out of an event.
package struct ConversionIssue: Sendable, Equatable, CustomStringConvertible {
    /// Where the value sat, e.g. `properties.items[2].price`.
    package let keyPath: String
    /// Why it was dropped.
    package let reason: String
    /// The stable code of the problem.
    package let code: InputProblem.Code

    /// `issues` by key path, with why each value was dropped (the first reason for a path).
    package static func byKeyPath(_ issues: [ConversionIssue]) -> [String: String] {
        Dictionary(issues.map { ($0.keyPath, $0.reason) }, uniquingKeysWith: { first, _ in first })
    }

    /// An issue.
    package init(keyPath: String, reason: String, code: InputProblem.Code = .propertyNotEncodable) {
        self.keyPath = keyPath
        self.reason = reason
        self.code = code
    }

    /// `dropped properties.x: reason`.
    package var description: String { "dropped \(keyPath): \(reason)" }

    /// The issue as an input problem.
    package var problem: InputProblem { InputProblem(code: code, keyPath: keyPath, message: description) }
}

/// Converts the `[String: Any]` values callers pass into ``JSON``.
///
/// Supported: `String`, `Bool`, every integer and floating type, `Decimal`, `Date`
/// (ISO-8601 with milliseconds), `URL`, `UUID`, `Data` (base64), arrays, dictionaries with
/// string keys, `JSON`, any other `Encodable`, and `nil` / `NSNull` as `null`. A value that
/// cannot be represented (NaN, infinity, an unsupported type, nesting deeper than
/// ``maximumDepth``) is left out and reported; its siblings are kept.
package enum ValueConverter {
    /// Containers nested deeper than this are dropped.
    package static let maximumDepth = 32

    /// Converts a dictionary whose key path starts at `root` (e.g. `properties`).
    package static func convert(_ dictionary: [String: Any], root: String) -> (value: [String: JSON], issues: [ConversionIssue]) {
        if let converted = convertedWithoutProblems(dictionary) { return (converted, []) }
        var issues: [ConversionIssue] = []
        let value = convertDictionary(dictionary, path: root, depth: 1, issues: &issues)
        return (value, issues)
    }

    /// The dictionary converted, when no value in it is dropped or reported. Nearly always every
    /// value converts as it is: the result then keeps the dictionary's own hash table
    /// (`mapValues` hashes no key). Otherwise `nil`, and the caller converts it again key by key
    /// to name each problem by its path (at most twice the work, and only for bad input).
    private static func convertedWithoutProblems(_ dictionary: [String: Any]) -> [String: JSON]? {
        var clean = true
        var unreported: [ConversionIssue] = []
        let mapped = dictionary.mapValues { raw -> JSON in
            // Depth 2: the values of the top-level dictionary, as `convertDictionary` passes them.
            guard clean, let value = convertValue(raw, path: ValuePath(""), depth: 2, issues: &unreported), unreported.isEmpty else {
                clean = false
                return .null
            }
            return value
        }
        return clean ? mapped : nil
    }

    /// `members` (an event's context, integrations or values given as ``JSON``) without the
    /// values JSON cannot carry or the writer must not walk: containers nested deeper than
    /// ``maximumDepth`` and non-finite numbers, each left out and reported. Walks once and
    /// copies nothing when nothing is wrong.
    package static func checked(_ members: [String: JSON], root: String) -> (value: [String: JSON], issues: [ConversionIssue]) {
        guard !members.values.allSatisfy({ isSendable($0, depth: 2) }) else { return (members, []) }
        var issues: [ConversionIssue] = []
        var kept: [String: JSON] = [:]
        for (key, member) in members {
            if let value = limitDepth(member, path: "\(root).\(key)", depth: 2, readsMarks: false, issues: &issues) { kept[key] = value }
        }
        return (kept, issues)
    }

    private static func isSendable(_ value: JSON, depth: Int) -> Bool {
        switch value {
        case .object(let members): return depth <= maximumDepth && members.values.allSatisfy { isSendable($0, depth: depth + 1) }
        case .array(let items): return depth <= maximumDepth && items.allSatisfy { isSendable($0, depth: depth + 1) }
        case .double(let number): return number.isFinite
        default: return true
        }
    }

    /// Converts any `Encodable` value that encodes as a JSON object.
    package static func convert<Value: Encodable>(encodable: Value, root: String) -> (value: [String: JSON], issues: [ConversionIssue]) {
        var issues: [ConversionIssue] = []
        guard let json = ownJSON(encodable) ?? encode(encodable, path: root, issues: &issues) else { return ([:], issues) }
        guard let object = json.objectValue else {
            return ([:], [ConversionIssue(keyPath: root, reason: "\(Value.self) does not encode as a JSON object")])
        }
        var checked: [String: JSON] = [:]
        for (key, member) in object {
            if let kept = limitDepth(member, path: "\(root).\(key)", depth: 2, issues: &issues) { checked[key] = kept }
        }
        return (checked, issues)
    }

    private static func convertDictionary(_ dictionary: [String: Any], path: String, depth: Int, issues: inout [ConversionIssue]) -> [String: JSON] {
        var result: [String: JSON] = [:]
        result.reserveCapacity(dictionary.count)
        for (key, raw) in dictionary {
            if let value = convertValue(raw, path: ValuePath(path, key: key), depth: depth + 1, issues: &issues) {
                result[key] = value
            }
        }
        return result
    }

    private static func convertValue(_ raw: Any, path: ValuePath, depth: Int, issues: inout [ConversionIssue]) -> JSON? {
        // Exact-type checks first: comparing metatypes is far cheaper than trying one dynamic
        // cast after another, and these are what callers pass nearly always.
        let valueType = type(of: raw)
        if valueType == String.self, let text = raw as? String { return .string(text) }
        if valueType == Int.self, let number = raw as? Int { return .int(Int64(number)) }
        if valueType == Double.self, let number = raw as? Double { return finite(number, path: path, issues: &issues) }
        if valueType == Bool.self, let flag = raw as? Bool { return .bool(flag) }
        // Foundation numbers before the casts below: casting one to Bool or Int would bridge 1
        // into `true`.
        if valueType is NSNumber.Type, let number = raw as? NSNumber {
            if let decimal = number as? NSDecimalNumber { return convertDecimal(decimal.decimalValue, path: path, issues: &issues) }
            return convertNumber(number, path: path, issues: &issues)
        }
        switch raw {
        case let value as JSON: return limitDepth(value, path: path.text, depth: depth, issues: &issues)
        case let dictionary as [String: Any]:
            guard depth <= maximumDepth else { return tooDeep(path.text, &issues) }
            return .object(convertDictionary(dictionary, path: path.text, depth: depth, issues: &issues))
        case let array as [Any]:
            guard depth <= maximumDepth else { return tooDeep(path.text, &issues) }
            var items: [JSON] = []
            items.reserveCapacity(array.count)
            let base = path.text
            for (index, element) in array.enumerated() {
                if let item = convertValue(element, path: ValuePath(base, index: index), depth: depth + 1, issues: &issues) {
                    items.append(item)
                }
            }
            return .array(items)
        case let text as String: return .string(text)
        case let flag as Bool: return .bool(flag)
        case let date as Date:
            guard Timestamp.isWritable(date) else { return unwritable(date.timeIntervalSince1970, path.text, &issues) }
            return .string(Timestamp.string(from: date))
        case let url as URL: return .string(url.absoluteString)
        case let uuid as UUID: return .string(uuid.uuidString.lowercased())
        case let data as Data: return .string(data.base64EncodedString())
        case is NSNull: return .null
        case let number as Int8: return .int(Int64(number))
        case let number as Int16: return .int(Int64(number))
        case let number as Int32: return .int(Int64(number))
        case let number as Int64: return .int(number)
        case let number as UInt: return unsigned(UInt64(number))
        case let number as UInt8: return .int(Int64(number))
        case let number as UInt16: return .int(Int64(number))
        case let number as UInt32: return .int(Int64(number))
        case let number as UInt64: return unsigned(number)
        case let number as Float:
            // The shortest text of a Float reads back as the Double a person expects: 19.99f → 19.99.
            guard number.isFinite else { return nonFinite(path, &issues) }
            return .double(Double(number.description) ?? Double(number))
        case let number as Decimal:
            return convertDecimal(number, path: path, issues: &issues)
        case let dictionary as [AnyHashable: Any]:
            guard depth <= maximumDepth else { return tooDeep(path.text, &issues) }
            var strings: [String: Any] = [:]
            let base = path.text
            for (key, value) in dictionary {
                guard let name = key.base as? String else {
                    issues.append(ConversionIssue(keyPath: "\(base).\(key)", reason: "dictionary key is not a String", code: .propertyKeyNotString))
                    continue
                }
                strings[name] = value
            }
            return .object(convertDictionary(strings, path: base, depth: depth, issues: &issues))
        // Only reached when Foundation did not bridge them to the Swift cases above; the Swift
        // containers they are copied into match those cases, so this recurses once at most.
        case let array as NSArray:
            return convertValue(array.map { $0 } as [Any], path: path, depth: depth, issues: &issues)
        case let dictionary as NSDictionary:
            var members: [AnyHashable: Any] = [:]
            for (key, value) in dictionary { if let key = key as? AnyHashable { members[key] = value } }
            return convertValue(members, path: path, depth: depth, issues: &issues)
        case let encodable as any Encodable:
            var local: [ConversionIssue] = []
            let base = path.text
            guard let json = encode(encodable, path: base, issues: &local) else {
                issues.append(contentsOf: local)
                return nil
            }
            return limitDepth(json, path: base, depth: depth, issues: &issues)
        default:
            if var unwrapped = unwrapOptional(raw) {
                // Peel every Optional layer here, and pass on the payload itself: wrapping it
                // in `Any` again would give back an Optional and recurse forever.
                var layers = 1
                while true {
                    guard let payload = unwrapped.value else { return .null }
                    guard let inner = unwrapOptional(payload) else {
                        return convertValue(payload, path: path, depth: depth, issues: &issues)
                    }
                    layers += 1
                    guard layers <= maximumDepth else { return tooDeep(path.text, &issues) }
                    unwrapped = inner
                }
            }
            issues.append(ConversionIssue(keyPath: path.text, reason: "unsupported type \(type(of: raw))"))
            return nil
        }
    }

    private static func convertNumber(_ number: NSNumber, path: ValuePath, issues: inout [ConversionIssue]) -> JSON? {
        switch String(cString: number.objCType) {
        case "c" where String(describing: type(of: number)).hasSuffix("Boolean"), "B":
            // Both Foundations box Booleans in a `…Boolean` subclass; a plain Int8 is "c" too.
            return .bool(number.boolValue)
        case "f", "d":
            return finite(number.doubleValue, path: path, issues: &issues)
        case "Q", "L", "I", "S", "C":
            return unsigned(number.uint64Value)
        default:
            return .int(number.int64Value)
        }
    }

    /// A decimal keeps its own digits: integers stay exact, and a fraction is written as the
    /// shortest double that reads back as the decimal's text (exact up to 15 significant digits).
    private static func convertDecimal(_ number: Decimal, path: ValuePath, issues: inout [ConversionIssue]) -> JSON? {
        guard !number.isNaN else { return nonFinite(path, &issues) }
        let text = number.description
        if let integer = Int64(text) { return .int(integer) }
        guard let double = Double(text), double.isFinite else { return nonFinite(path, &issues) }
        return .double(double)
    }

    private static func unsigned(_ number: UInt64) -> JSON {
        if let signed = Int64(exactly: number) { return .int(signed) }
        return .uint(number)
    }

    private static func finite(_ number: Double, path: ValuePath, issues: inout [ConversionIssue]) -> JSON? {
        guard number.isFinite else { return nonFinite(path, &issues) }
        return .double(number)
    }

    private static func nonFinite(_ path: ValuePath, _ issues: inout [ConversionIssue]) -> JSON? {
        issues.append(ConversionIssue(keyPath: path.text, reason: "NaN or infinity cannot be sent as JSON", code: .propertyNotFinite))
        return nil
    }

    /// A date the wire's timestamps cannot carry is left out and reported, never moved into range.
    private static func unwritable(_ seconds: Double, _ path: String, _ issues: inout [ConversionIssue]) -> JSON? {
        issues.append(ConversionIssue(
            keyPath: path, reason: "date \(seconds) s since 1970 is outside years 0000–9999, which an ISO 8601 timestamp on the wire cannot carry"))
        return nil
    }

    /// What `encode` writes for a value JSON cannot carry (NaN, an infinity, a date outside years
    /// 0000–9999), so the walk after it drops that value alone and names it: a prefix of private-use
    /// characters no text an app sends starts with.
    private static let unsendable = "\u{10FFFD}\u{E000}metarouter-unsendable:"

    private static func tooDeep(_ path: String, _ issues: inout [ConversionIssue]) -> JSON? {
        issues.append(ConversionIssue(keyPath: path, reason: "nested deeper than \(maximumDepth) levels", code: .propertiesTooDeep))
        return nil
    }

    /// Drops containers of an already-typed value that sit deeper than the limit, and
    /// non-finite numbers; with `readsMarks`, also the values `encode` marked unsendable (a value
    /// the app gave as ``JSON`` was never through `encode`, and its text is kept as it is).
    private static func limitDepth(_ value: JSON, path: String, depth: Int, readsMarks: Bool = true, issues: inout [ConversionIssue]) -> JSON? {
        switch value {
        case .object(let members):
            guard depth <= maximumDepth else { return tooDeep(path, &issues) }
            var kept: [String: JSON] = [:]
            for (key, member) in members {
                if let child = limitDepth(member, path: "\(path).\(key)", depth: depth + 1, readsMarks: readsMarks, issues: &issues) { kept[key] = child }
            }
            return .object(kept)
        case .array(let items):
            guard depth <= maximumDepth else { return tooDeep(path, &issues) }
            var kept: [JSON] = []
            for (index, item) in items.enumerated() {
                if let child = limitDepth(item, path: "\(path)[\(index)]", depth: depth + 1, readsMarks: readsMarks, issues: &issues) { kept.append(child) }
            }
            return .array(kept)
        case .double(let number) where !number.isFinite:
            return nonFinite(ValuePath(path), &issues)
        case .string(let text) where readsMarks && text.hasPrefix(unsendable):
            let what = text.dropFirst(unsendable.count)
            if what.hasPrefix("date:") { return unwritable(Double(what.dropFirst(5)) ?? .nan, path, &issues) }
            return nonFinite(ValuePath(path), &issues)
        default:
            return value
        }
    }

    /// This SDK's own ``JSON`` (or a dictionary of it), taken as it is: no `JSONEncoder` and no
    /// re-parse. Its depth and its numbers are checked like any other value's. Exact type
    /// checks: no dynamic casts are tried for other types.
    private static func ownJSON<Value: Encodable>(_ value: Value) -> JSON? {
        if Value.self == JSON.self, let json = value as? JSON { return json }
        if Value.self == [String: JSON].self, let members = value as? [String: JSON] { return .object(members) }
        return nil
    }

    private static func encode(_ value: any Encodable, path: String, issues: inout [ConversionIssue]) -> JSON? {
        let encoder = JSONEncoder()
        encoder.dateEncodingStrategy = .custom { date, encoder in
            var container = encoder.singleValueContainer()
            try container.encode(Timestamp.isWritable(date) ? Timestamp.string(from: date) : "\(unsendable)date:\(date.timeIntervalSince1970)")
        }
        // NaN and the infinities become a marked string, dropped alone by `limitDepth` with the
        // reason, rather than failing the whole value (which the plan would call "missing").
        encoder.nonConformingFloatEncodingStrategy = .convertToString(
            positiveInfinity: unsendable + "number", negativeInfinity: unsendable + "number", nan: unsendable + "number")
        do {
            let data = try encoder.encode(value)
            // Levels past the limit sit inside a container `limitDepth` drops and names: read
            // them as null rather than failing the whole value at the parser's own limit.
            return try JSONParser.parse([UInt8](data), nullingDeeperThan: maximumDepth)
        } catch {
            issues.append(ConversionIssue(keyPath: path, reason: "\(type(of: value)) failed to encode: \(error)"))
            return nil
        }
    }

    /// Where a value sits: its container's path and its key or index, joined into text only when
    /// a problem is reported. (A closure here would be specialised once per call site.)
    private struct ValuePath {
        let container: String
        let key: String?
        let index: Int

        init(_ text: String) { (container, key, index) = (text, nil, -1) }
        init(_ container: String, key: String) { (self.container, self.key, index) = (container, key, -1) }
        init(_ container: String, index: Int) { (self.container, key, self.index) = (container, nil, index) }

        var text: String {
            if let key { return "\(container).\(key)" }
            return index >= 0 ? "\(container)[\(index)]" : container
        }
    }

    /// One level of an `Optional` taken off: `value` is its payload, `nil` for `.none`.
    private struct OptionalPayload {
        let value: Any?
    }

    private static func unwrapOptional(_ raw: Any) -> OptionalPayload? {
        let mirror = Mirror(reflecting: raw)
        guard mirror.displayStyle == .optional else { return nil }
        return OptionalPayload(value: mirror.children.first.map { $0.value })
    }
}
