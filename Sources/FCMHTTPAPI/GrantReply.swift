import FCMCredentials
import FCMHTTPPort
import FCMJSON

extension GrantError {
    /// The token endpoint's answer: 400 with the OAuth2 error (RFC 6749 §5.2).
    public var reply: HTTPReply {
        .json(400, JSONValue.members(["error": .string(code), "error_description": .string(description)]).json)
    }
}
