import Foundation

// MARK: - Freshness

/// How fresh a stored response is (RFC 9111 §4.2): its freshness lifetime from `max-age`,
/// `Expires` and `Date` or a heuristic, and its current age from `Age`, `Date` and the times
/// the cache asked and heard.
package struct Freshness: Sendable, Equatable {
    /// The longest heuristic freshness given: one day, however old `Last-Modified` is.
    package static let heuristicLimit: TimeInterval = 86_400
    /// The share of the time since `Last-Modified` taken as heuristic freshness (§4.2.2's 10%).
    package static let heuristicFraction = 0.1
    /// Status codes whose responses may be given heuristic freshness (RFC 9110 §15.1).
    package static let heuristicallyCacheable: Set<Int> = [200, 203, 204, 206, 300, 301, 308, 404, 405, 410, 414, 501]

    /// How long the response is fresh, counted from its generation (§4.2.1).
    package let lifetime: TimeInterval
    /// Whether `lifetime` is a heuristic (no explicit expiration time was given).
    package let isHeuristic: Bool
    /// The response's age when it arrived, corrected for the delay (§4.2.3's corrected_initial_age).
    package let initialAge: TimeInterval
    /// When the response arrived (response_time).
    package let responseTime: Date
    /// The response's `Cache-Control` directives, as read for its lifetime.
    package let control: CacheControl

    /// The freshness of a response.
    ///
    /// - Parameters:
    ///   - status: The response's status code.
    ///   - headers: The response's fields.
    ///   - requestTime: When the request that brought it was sent.
    ///   - responseTime: When the response arrived.
    package init(status: Int, headers: HTTPHeaders, requestTime: Date, responseTime: Date) {
        control = CacheControl(headers)
        // Date (date_value): the origin's clock; a response without one dates from its arrival.
        let dateValue = headers.value(for: "Date").flatMap { HTTPDate.parse($0, now: responseTime) } ?? responseTime
        if let maxAge = control.maxAge {
            lifetime = TimeInterval(maxAge)
            isHeuristic = false
        } else if let expires = headers.value(for: "Expires") {
            // An Expires that is not a date, "0" above all, is in the past (§5.3).
            let expiry = HTTPDate.parse(expires, now: responseTime) ?? .distantPast
            lifetime = max(0, expiry.timeIntervalSince(dateValue))
            isHeuristic = false
        } else if Self.heuristicallyCacheable.contains(status) || control.isPublic,
                  let modified = headers.value(for: "Last-Modified").flatMap({ HTTPDate.parse($0, now: responseTime) }) {
            lifetime = min(Self.heuristicLimit, max(0, dateValue.timeIntervalSince(modified) * Self.heuristicFraction))
            isHeuristic = true
        } else {
            lifetime = 0
            isHeuristic = false
        }
        // §4.2.3: apparent_age, corrected_age_value, corrected_initial_age.
        let ageValue = Self.ageValue(headers)
        let apparentAge = max(0, responseTime.timeIntervalSince(dateValue))
        let responseDelay = max(0, responseTime.timeIntervalSince(requestTime))
        initialAge = max(apparentAge, ageValue + responseDelay)
        self.responseTime = responseTime
    }

    /// The `Age` field's seconds (§5.1): the first line's first member when the field repeats or
    /// is a list (`Age: 7200, 0` is 7200); 0 without the field. A value that is not a non-negative
    /// integer (`abc`, `-7200`, `7200.0`, `7200s`) is ignored, as §5.1 says a cache should: the
    /// age is then what `Date` and the time on the way say (§4.2.3), as without the field.
    static func ageValue(_ headers: HTTPHeaders) -> TimeInterval {
        guard let field = headers.value(for: "Age") else { return 0 }
        let first = field.split(separator: ",", maxSplits: 1, omittingEmptySubsequences: false).first ?? ""
        let text = first.trimmingCharacters(in: .whitespaces)
        return TimeInterval(CacheControl.seconds(text) ?? 0)
    }

    /// The response's current age at `now` (§4.2.3's current_age).
    ///
    /// - Parameter now: The present.
    /// - Returns: The age in seconds.
    package func age(at now: Date) -> TimeInterval {
        initialAge + max(0, now.timeIntervalSince(responseTime))
    }

    /// How much longer the response stays fresh at `now`: negative once stale.
    ///
    /// - Parameter now: The present.
    /// - Returns: Seconds of freshness left.
    package func remaining(at now: Date) -> TimeInterval {
        lifetime - age(at: now)
    }
}
