import FCMEngine

/// The stanzas the emulated connection server writes, in CCS's own forms.
public enum CCSOutbound {
    static func gcm(_ json: String, prefixed: Bool = false, attributes: String = "") -> String {
        let body = XMLEscape.text(json)
        if prefixed {
            return "<message\(attributes)><data:gcm xmlns:data=\"google:mobile:data\">\(body)</data:gcm></message>"
        }
        return "<message\(attributes)><gcm xmlns=\"google:mobile:data\">\(body)</gcm></message>"
    }

    /// `{"from":TOKEN,"message_id":ID,"message_type":"ack"}`
    public static func ack(messageID: String, from token: String) -> String {
        gcm(
            JSONValue.members([
                "from": .string(token), "message_id": .string(messageID), "message_type": .string("ack"),
            ])
            .json,
            attributes: " id=\"\"")
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
