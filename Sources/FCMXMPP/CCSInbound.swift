import FCMEngine
import Foundation

/// What an app server sent inside `<gcm xmlns="google:mobile:data">`.
public enum CCSInbound: Sendable, Equatable {
    /// A downstream message for a device.
    case downstream(DownstreamRequest, messageID: String)
    /// The app server acknowledges an upstream message or a receipt.
    case ack(messageID: String)
    /// A message CCS refuses with a nack (INVALID_JSON, BAD_ACK …).
    case refused(messageID: String, error: String, description: String)
    /// So broken that it cannot be nacked: answered with a stanza error.
    case unreadable(description: String)
}

/// Reads the JSON of a CCS message with the service's strict types.
public enum CCSReader {
    public static func read(_ json: String, sender: String) -> CCSInbound {
        guard let data = json.data(using: .utf8),
            let object = try? JSONSerialization.jsonObject(with: data, options: [.fragmentsAllowed]),
            let fields = object as? [String: Any]
        else {
            return .unreadable(description: "InvalidJson: JSON_PARSING_ERROR : the payload is not a JSON object")
        }
        guard let messageID = fields["message_id"] as? String, !messageID.isEmpty else {
            return .unreadable(description: "InvalidJson: JSON_PARSING_ERROR : Missing Required Field: message_id")
        }
        if let type = fields["message_type"] {
            guard let type = type as? String else {
                return .refused(
                    messageID: messageID, error: "INVALID_JSON", description: typeError("message_type", "String", type))
            }
            switch type {
            case "ack", "nack": return .ack(messageID: messageID)
            default:
                return .refused(
                    messageID: messageID, error: "BAD_ACK",
                    description: "message_type \"\(type)\" is not one an app server sends (ack or nack)")
            }
        }
        do {
            return .downstream(try request(fields, sender: sender, messageID: messageID), messageID: messageID)
        } catch let error as FieldError {
            return .refused(messageID: messageID, error: "INVALID_JSON", description: error.description)
        } catch {
            return .refused(messageID: messageID, error: "INVALID_JSON", description: "InvalidJson: \(error)")
        }
    }

    struct FieldError: Error, CustomStringConvertible {
        var description: String
    }

    static func typeError(_ field: String, _ type: String, _ value: Any) -> String {
        "InvalidJson: JSON_TYPE_ERROR : Field \"\(field)\" must be a JSON java.lang.\(type): \(value)"
    }

    static func request(_ fields: [String: Any], sender: String, messageID: String) throws -> DownstreamRequest {
        var request = DownstreamRequest(sender: sender, to: nil, messageID: messageID)
        func string(_ name: String) throws -> String? {
            guard let value = fields[name] else { return nil }
            guard let text = value as? String else { throw FieldError(description: typeError(name, "String", value)) }
            return text
        }
        func bool(_ name: String) throws -> Bool {
            guard let value = fields[name] else { return false }
            guard let number = value as? NSNumber, isBoolean(number) else {
                throw FieldError(description: typeError(name, "Boolean", value))
            }
            return number.boolValue
        }
        request.to = try string("to")
        if request.to == nil, fields["condition"] != nil || fields["registration_ids"] != nil {
            throw FieldError(description: "InvalidJson: only \"to\" with a registration token is supported here")
        }
        request.collapseKey = try string("collapse_key")
        request.priority = try string("priority")
        if let ttl = fields["time_to_live"] {
            guard let number = ttl as? NSNumber, !isBoolean(number) else {
                throw FieldError(description: typeError("time_to_live", "Number", ttl))
            }
            request.timeToLive = number.int64Value
        }
        request.deliveryReceiptRequested = try bool("delivery_receipt_requested")
        request.dryRun = try bool("dry_run")
        request.contentAvailable = try bool("content_available")
        request.mutableContent = try bool("mutable_content")
        if let data = fields["data"] {
            guard let map = data as? [String: Any] else {
                throw FieldError(description: typeError("data", "Object", data))
            }
            request.data = map.keys.sorted().map { KeyValue($0, stringValue(map[$0]!)) }
        }
        if let notification = fields["notification"] {
            guard let map = notification as? [String: Any] else {
                throw FieldError(description: typeError("notification", "Object", notification))
            }
            request.notification = map.keys.sorted().map { KeyValue($0, stringValue(map[$0]!)) }
        }
        return request
    }

    /// JSON true and false arrive as NSNumber of type code `c`.
    static func isBoolean(_ number: NSNumber) -> Bool {
        number.objCType.pointee == CChar(UInt8(ascii: "c"))
    }

    /// The service turns data values into strings.
    static func stringValue(_ value: Any) -> String {
        if let text = value as? String { return text }
        if let number = value as? NSNumber {
            return isBoolean(number) ? (number.boolValue ? "true" : "false") : number.stringValue
        }
        if let data = try? JSONSerialization.data(withJSONObject: value, options: [.fragmentsAllowed]) {
            return String(decoding: data, as: UTF8.self)
        }
        return "\(value)"
    }
}
