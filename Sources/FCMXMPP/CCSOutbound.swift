import FCMEngine
import FCMJSON

/// The stanzas the emulated connection server writes, in CCS's own forms.
public enum CCSOutbound {
    static func gcm(_ json: String, prefixed: Bool = false, attributes: String = "") -> String {
        let body = XMLEscape.text(json)
        let (open, close) =
            prefixed
            ? ("><data:gcm xmlns:data=\"google:mobile:data\">", "</data:gcm></message>")
            : ("><gcm xmlns=\"google:mobile:data\">", "</gcm></message>")
        var stanza = "<message"
        stanza.reserveCapacity(64 + attributes.utf8.count + body.utf8.count)
        stanza += attributes
        stanza += open
        stanza += body
        stanza += close
        return stanza
    }

    /// `{"from":TOKEN,"message_id":ID,"message_type":"ack"}`
    /// Written in one string, the stanza every downstream message is answered with: no
    /// JSON value built, and the XML escape applied only when a value needs it.
    public static func ack(messageID: String, from token: String) -> String {
        var json = #"{"from":"#
        json.reserveCapacity(160 + token.utf8.count + messageID.utf8.count)
        JSONText.appendString(token, to: &json)
        json += #","message_id":"#
        JSONText.appendString(messageID, to: &json)
        json += #","message_type":"ack"}"#
        return gcm(json, attributes: " id=\"\"")
    }

    public static func nack(messageID: String, from token: String, error: String, description: String) -> String {
        gcm(
            JSONValue.members([
                "message_type": .string("nack"), "message_id": .string(messageID), "from": .string(token),
                "error": .string(error), "error_description": .string(description),
            ]).json, prefixed: true)
    }

    /// An upstream message from the device to the app server.
    public static func upstream(
        sender: String, domain: String, token: String, messageID: String, category: String, data: [KeyValue],
        timeToLive: Int64
    ) -> String {
        let json = JSONValue.members([
            "data": .strings(data), "time_to_live": .int(timeToLive), "from": .string(token),
            "message_id": .string(messageID), "category": .string(category),
        ]).json
        return gcm(
            json,
            attributes: " to=\"\(XMLEscape.attribute(sender))@\(domain)\" from=\"devices@\(domain)\" type=\"normal\"")
    }

    public static func receipt(
        originalID: String, token: String, category: String, sentAt: Int64, domain: String, sender: String
    ) -> String {
        let json = JSONValue.members([
            "message_type": .string("receipt"), "message_id": .string(OwedReceipt.idPrefix + originalID),
            "from": .string(domain), "category": .string(category),
            "data": .strings([
                KeyValue("message_status", "MESSAGE_SENT_TO_DEVICE"), KeyValue("original_message_id", originalID),
                KeyValue("device_registration_id", token), KeyValue("message_sent_timestamp", String(sentAt)),
            ]),
            "time_to_live": .int(0),
        ]).json
        return gcm(
            json, attributes: " to=\"\(XMLEscape.attribute(sender))@\(domain)\" from=\"\(domain)\" type=\"normal\"")
    }

    public static let draining = gcm(
        JSONValue.members(["message_type": .string("control"), "control_type": .string("CONNECTION_DRAINING")]).json,
        prefixed: true)

    /// A message that cannot even be nacked, echoed back with a stanza error.
    public static func stanzaError(id: String?, original: String, text: String) -> String {
        let idAttribute = id.map { " id=\"\(XMLEscape.attribute($0))\"" } ?? ""
        return
            "<message\(idAttribute) type=\"error\"><gcm xmlns=\"google:mobile:data\">\(XMLEscape.text(original))</gcm>"
            + "<error code=\"400\" type=\"modify\"><bad-request xmlns=\"urn:ietf:params:xml:ns:xmpp-stanzas\"/>"
            + "<text xmlns=\"urn:ietf:params:xml:ns:xmpp-stanzas\">\(XMLEscape.text(text))</text></error></message>"
    }
}
