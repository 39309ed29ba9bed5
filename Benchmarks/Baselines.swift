import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

// MARK: - AlamofireStyleQuery

/// The query builder Alamofire ships, rebuilt on `addingPercentEncoding` as the baseline for the
/// nested-dictionary rows: per-pair tuples, string interpolation, `joined`, top-level keys sorted.
struct AlamofireStyleQuery {
    let allowed: CharacterSet

    func escape(_ string: String) -> String {
        string.addingPercentEncoding(withAllowedCharacters: allowed) ?? string
    }

    func queryComponents(fromKey key: String, value: Any) -> [(String, String)] {
        var components: [(String, String)] = []
        switch value {
        case let dictionary as [String: Any]:
            for (nestedKey, value) in dictionary {
                components += queryComponents(fromKey: "\(key)[\(nestedKey)]", value: value)
            }
        case let array as [Any]:
            for value in array {
                components += queryComponents(fromKey: "\(key)[]", value: value)
            }
        case is NSNull:
            // Dropped, as `URLEncoding`'s default `nilEncoding` drops it, so both write the same.
            break
        case let bool as Bool:
            components.append((escape(key), escape(bool ? "1" : "0")))
        default:
            components.append((escape(key), escape("\(value)")))
        }
        return components
    }

    func query(_ parameters: [String: Any]) -> String {
        var components: [(String, String)] = []
        for key in parameters.keys.sorted(by: <) {
            if let value = parameters[key] {
                components += queryComponents(fromKey: key, value: value)
            }
        }
        return components.map { "\($0)=\($1)" }.joined(separator: "&")
    }

    /// Alamofire's GET path: the query appended through `URLComponents`.
    func encodeGET(_ request: URLRequest, with parameters: [String: Any]) -> URLRequest {
        var request = request
        if let url = request.url, var components = URLComponents(url: url, resolvingAgainstBaseURL: false), !parameters.isEmpty {
            let percentEncodedQuery = (components.percentEncodedQuery.map { $0 + "&" } ?? "") + query(parameters)
            components.percentEncodedQuery = percentEncodedQuery
            request.url = components.url
        }
        return request
    }

    /// Alamofire's body path.
    func encodeBody(_ request: URLRequest, with parameters: [String: Any]) -> URLRequest {
        var request = request
        if request.value(forHTTPHeaderField: "Content-Type") == nil {
            request.setValue("application/x-www-form-urlencoded; charset=utf-8", forHTTPHeaderField: "Content-Type")
        }
        request.httpBody = Data(query(parameters).utf8)
        return request
    }
}

// MARK: - URLComponents flat query

/// `URLComponents.queryItems` for a flat dictionary, keys sorted.
func urlComponentsQuery(_ parameters: [String: String]) -> String {
    var components = URLComponents()
    components.queryItems = parameters.keys.sorted().map { URLQueryItem(name: $0, value: parameters[$0]) }
    return components.percentEncodedQuery ?? ""
}
