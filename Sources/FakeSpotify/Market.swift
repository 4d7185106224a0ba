import LoopbackHTTP
import ToolkitCore

/// Spotify says whether a track or an episode plays in the user's country (`is_playable`, and
/// `restrictions` when it does not) only when the request names a market (`market=from_token` or a
/// country code): without one, both are left out of the answer, as
/// Spotify's Web API reference describes its `market` parameter.
extension FakeSpotifyService {
    /// The route's answer as Spotify would send it for this request's market.
    static func marketed(_ response: HTTPResponse, _ request: HTTPRequest) -> HTTPResponse {
        guard request.method == "GET", response.status == 200, request.queryValue("market") == nil,
            contains(response.body, playableKey), let value = try? JSONValue.parse(response.body)
        else { return response }
        var answer = response
        answer.body = Array(withoutMarketFields(value).serialized().utf8)
        return answer
    }

    static let playableKey = Array(#""is_playable""#.utf8)

    static func withoutMarketFields(_ value: JSONValue) -> JSONValue {
        switch value {
        case .array(let elements): return .array(elements.map(withoutMarketFields))
        case .object(let object):
            var kept = JSONObject()
            for (key, member) in object where key != "is_playable" && key != "restrictions" {
                kept[key] = withoutMarketFields(member)
            }
            return .object(kept)
        default: return value
        }
    }

    static func contains(_ bytes: [UInt8], _ needle: [UInt8]) -> Bool {
        guard bytes.count >= needle.count, let first = needle.first else { return false }
        var index = 0
        while index <= bytes.count - needle.count {
            if bytes[index] == first && bytes[index..<index + needle.count].elementsEqual(needle) { return true }
            index += 1
        }
        return false
    }
}
