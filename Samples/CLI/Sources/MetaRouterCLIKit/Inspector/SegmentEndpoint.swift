import Foundation
import MetaRouter

/// The Segment HTTP API's ingestion paths, which every Segment-compatible SDK posts to: a batch
/// (`/v1/batch`, or `/v1/b` as analytics-swift and analytics-kotlin send it) or one call
/// (`/v1/track`, `/v1/identify`, `/v1/page`, `/v1/screen`, `/v1/group`, `/v1/alias`). The
/// prefix before the last component is the SDK's own (an `apiHost` with or without `/v1`).
enum SegmentEndpoint: Equatable {
    case batch
    case single(type: String)

    private static let singles: Set<String> = ["track", "identify", "page", "screen", "group", "alias"]

    init?(path: String) {
        let last = path.split(separator: "/").last.map(String.init) ?? ""
        if last == "batch" || last == "b" || last == "import" {
            self = .batch
        } else if Self.singles.contains(last) {
            self = .single(type: last)
        } else {
            return nil
        }
    }

    /// The events a body holds: its `batch` array, or the body itself for a single call (its
    /// `type` from the path when the body has none).
    func events(in body: JSON?) -> [JSON] {
        switch self {
        case .batch:
            return body?["batch"]?.arrayValue ?? []
        case .single(let type):
            guard case .object(var fields)? = body else { return [] }
            if fields["type"] == nil { fields["type"] = .string(type) }
            return [.object(fields)]
        }
    }

    /// What the body breaks of the Segment Spec outside its events (each event's own problems
    /// are the event's analysis).
    func problems(in body: JSON?) -> [String] {
        guard let body else { return ["body is not JSON"] }
        switch self {
        case .batch:
            return WireValidator.problems(in: body, rules: .segmentSpec).filter { !$0.hasPrefix("event ") }
        case .single:
            return body.objectValue == nil ? ["body is not a JSON object"] : []
        }
    }

    /// The write key of `Authorization: Basic base64(writeKey:)`, as Segment's libraries send it.
    static func basicAuthWriteKey(_ header: String?) -> String? {
        guard let header, header.lowercased().hasPrefix("basic "),
            let decoded = Data(base64Encoded: String(header.dropFirst(6)).trimmingCharacters(in: .whitespaces)),
            let text = String(data: decoded, encoding: .utf8)
        else { return nil }
        let key = text.split(separator: ":", maxSplits: 1, omittingEmptySubsequences: false).first.map(String.init) ?? ""
        return key.isEmpty ? nil : key
    }
}
