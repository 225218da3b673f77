import Foundation

/// What delivery does with the outcome of one batch, row by row of the seed's table: the
/// engine's own classification, richer than a format's ``DeliveryVerdict`` (it also covers
/// transport failures and the statuses that disable the client), onto which that verdict maps.
package enum ResponseVerdict: Sendable, Hashable {
    /// 2xx: the batch is delivered; the breaker closes.
    case delivered
    /// 5xx, 408, network error, timeout: keep the batch at the head, count a breaker failure,
    /// retry after a delay.
    case retry
    /// 429: like `retry`, waiting at least `retryAfter` seconds when the server said so.
    case throttled(retryAfter: TimeInterval?)
    /// 413: halve the batch size and retry; a single event that is too large is dropped.
    case tooLarge
    /// 400, 422, other 4xx: drop this batch, carry on; `reason` is the format's, when it gave one.
    case rejected(status: Int, reason: String? = nil)
    /// 401, 403, 404: the write key or endpoint is wrong; disable the client.
    case fatal(status: Int)
}

/// Maps HTTP outcomes to ``ResponseVerdict``s.
package enum ResponseClassifier {
    /// The longest a `Retry-After` makes delivery wait, in seconds: a server's answer is
    /// hostile input, and one `Retry-After: 999999999` must not stall an instance for years.
    /// Longer values, and values no clock can reach, wait this long.
    package static let retryAfterCeiling: TimeInterval = 300

    /// The verdict for a response, or for the error that prevented one.
    package static func verdict(for outcome: Result<TransportResponse, any Error>, now: Date) -> ResponseVerdict {
        switch outcome {
        case .failure:
            return .retry
        case .success(let response):
            switch response.status {
            case 200..<300: return .delivered
            case 401, 403, 404: return .fatal(status: response.status)
            case 408: return .retry
            case 413: return .tooLarge
            case 429: return .throttled(retryAfter: response.headers["retry-after"].flatMap { retryAfter($0, now: now) })
            case 400..<500: return .rejected(status: response.status)
            default: return .retry
            }
        }
    }

    /// The outcome in words for a log line: `status 503`, `network error (…)`.
    static func cause(of outcome: Result<TransportResponse, any Error>) -> String {
        switch outcome {
        case .success(let response): return "status \(response.status)"
        case .failure(let error): return "network error (\(error.localizedDescription))"
        }
    }

    /// Seconds to wait from a `Retry-After` value: delta-seconds or an HTTP-date, as the
    /// server said it (an endless value as `.infinity`); the uploader applies
    /// ``retryAfterCeiling``.
    package static func retryAfter(_ value: String, now: Date) -> TimeInterval? {
        let trimmed = value.trimmingCharacters(in: .whitespaces)
        if let seconds = Double(trimmed), !seconds.isNaN, seconds >= 0 { return seconds }
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "GMT")
        formatter.dateFormat = "EEE, dd MMM yyyy HH:mm:ss zzz"
        guard let date = formatter.date(from: trimmed) else { return nil }
        return max(0, date.timeIntervalSince(now))
    }
}
