import FCMEngine
import FCMLegacyFields

/// Reads the JSON of a CCS message (what an app server sent inside
/// `<gcm xmlns="google:mobile:data">`) with the service's strict types.
public enum CCSReader {
    public static func read(_ json: String, sender: String, stanzaID: String? = nil) -> CCSMessage {
        guard case .success(let fields) = LegacyFields.object(json.utf8) else {
            return .unreadable(
                stanzaID: stanzaID, original: json,
                description: "InvalidJson: JSON_PARSING_ERROR : the payload is not a JSON object")
        }
        guard case .string(let messageID) = fields["message_id"], !messageID.isEmpty else {
            return .unreadable(
                stanzaID: stanzaID, original: json,
                description: "InvalidJson: JSON_PARSING_ERROR : Missing Required Field: message_id")
        }
        if let type = fields["message_type"] {
            guard case .string(let type) = type else {
                return .refused(
                    messageID: messageID, error: "INVALID_JSON",
                    description: LegacyFields.typeError("message_type", "String", type).description)
            }
            switch type {
            case "ack": return .ack(messageID: messageID)
            case "nack": return .nack(messageID: messageID)
            default:
                return .refused(
                    messageID: messageID, error: "BAD_ACK",
                    description: "message_type \"\(type)\" is not one an app server sends (ack or nack)")
            }
        }
        do throws(LegacyFields.TypeError) {
            var request = try LegacyFields.request(fields, sender: sender, messageID: messageID)
            request.to = try LegacyFields.string(fields, "to")
            request.condition = try LegacyFields.string(fields, "condition")
            if request.to == nil, request.condition == nil, fields["registration_ids"] != nil {
                throw LegacyFields.TypeError(ServiceLimits.ccsMulticastProblem)
            }
            return .downstream(request, messageID: messageID)
        } catch {
            return .refused(messageID: messageID, error: "INVALID_JSON", description: error.description)
        }
    }
}
