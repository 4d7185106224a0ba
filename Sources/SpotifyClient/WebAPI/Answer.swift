import HTTPClient

/// What `SpotifyWebAPI.perform` read from an answer, or the refusal itself when its status was
/// one the caller explains in its own words (`passing`: a playlist's 403 or 404).
package enum Answer<Value: Sendable>: Sendable {
    case value(Value)
    case refused(HTTPResult)
}
