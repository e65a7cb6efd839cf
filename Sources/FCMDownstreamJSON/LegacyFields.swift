import FCMEngine
import Foundation

/// The downstream fields that XMPP (CCS) and the HTTP legacy API share, read from a
/// parsed JSON object with the service's strict types. Targets (`to`,
/// `registration_ids`) differ between the two and are left to the caller.
public enum LegacyFields {
    /// A field of the wrong type, worded as the service words it.
    public struct TypeError: Error, CustomStringConvertible, Equatable {
        public var description: String

        public init(_ description: String) {
            self.description = description
        }
    }

    /// `JSON_TYPE_ERROR : Field "x" must be a JSON java.lang.T: value`
    public static func typeError(_ field: String, _ type: String, _ value: Any) -> TypeError {
        TypeError("InvalidJson: JSON_TYPE_ERROR : Field \"\(field)\" must be a JSON java.lang.\(type): \(value)")
    }

    /// Parses UTF-8 JSON text into an object, or nil when it is not one.
    public static func object(_ bytes: some Collection<UInt8>) -> [String: Any]? {
        guard let parsed = try? JSONSerialization.jsonObject(with: Data(bytes), options: [.fragmentsAllowed]) else {
            return nil
        }
        return parsed as? [String: Any]
    }

    /// Reads every non-target field into a request for `sender`.
    public static func request(_ fields: [String: Any], sender: String, messageID: String?) throws(TypeError)
        -> DownstreamRequest
    {
        var request = DownstreamRequest(sender: sender, to: nil, messageID: messageID)
        request.collapseKey = try string(fields, "collapse_key")
        request.priority = try string(fields, "priority")
        if let ttl = fields["time_to_live"] {
            guard let number = ttl as? NSNumber, !isBoolean(number) else {
                throw typeError("time_to_live", "Number", ttl)
            }
            request.timeToLive = number.int64Value
        }
        request.deliveryReceiptRequested = try bool(fields, "delivery_receipt_requested")
        request.dryRun = try bool(fields, "dry_run")
        request.contentAvailable = try bool(fields, "content_available")
        request.mutableContent = try bool(fields, "mutable_content")
        if let data = fields["data"] { request.data = try pairs("data", data) }
        if let notification = fields["notification"] { request.notification = try pairs("notification", notification) }
        return request
    }

    public static func string(_ fields: [String: Any], _ name: String) throws(TypeError) -> String? {
        guard let value = fields[name] else { return nil }
        guard let text = value as? String else { throw typeError(name, "String", value) }
        return text
    }

    static func bool(_ fields: [String: Any], _ name: String) throws(TypeError) -> Bool {
        guard let value = fields[name] else { return false }
        guard let number = value as? NSNumber, isBoolean(number) else { throw typeError(name, "Boolean", value) }
        return number.boolValue
    }

    /// A JSON object as sorted key-value pairs, values turned into strings.
    static func pairs(_ name: String, _ value: Any) throws(TypeError) -> [KeyValue] {
        guard let map = value as? [String: Any] else { throw typeError(name, "Object", value) }
        return map.keys.sorted().map { KeyValue($0, stringValue(map[$0]!)) }
    }

    /// JSON true and false arrive as NSNumber of type code `c`.
    public static func isBoolean(_ number: NSNumber) -> Bool {
        number.objCType.pointee == CChar(UInt8(ascii: "c"))
    }

    /// The service turns data values into strings.
    public static func stringValue(_ value: Any) -> String {
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
