import FCMEngine
import FCMJSON

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
    public static func typeError(_ field: String, _ type: String, _ value: JSONValue) -> TypeError {
        TypeError("InvalidJson: JSON_TYPE_ERROR : Field \"\(field)\" must be a JSON java.lang.\(type): \(value.text)")
    }

    /// Parses UTF-8 JSON text into an object, or says why it is not one.
    public static func object(_ bytes: some Collection<UInt8>) -> Result<JSONObject, TypeError> {
        do {
            guard let object = try JSONParser.parse(bytes).object else {
                return .failure(TypeError("JSON_PARSING_ERROR: the payload is not a JSON object"))
            }
            return .success(object)
        } catch {
            return .failure(TypeError("JSON_PARSING_ERROR: \(error.description)"))
        }
    }

    /// Reads every non-target field into a request for `sender`.
    public static func request(_ fields: JSONObject, sender: String, messageID: String?) throws(TypeError)
        -> DownstreamRequest
    {
        var request = DownstreamRequest(sender: sender, to: nil, messageID: messageID)
        request.collapseKey = try string(fields, "collapse_key")
        request.priority = try string(fields, "priority")
        if let ttl = fields["time_to_live"] { request.timeToLive = try seconds(ttl, field: "time_to_live") }
        request.deliveryReceiptRequested = try bool(fields, "delivery_receipt_requested")
        request.dryRun = try bool(fields, "dry_run")
        request.contentAvailable = try bool(fields, "content_available")
        request.mutableContent = try bool(fields, "mutable_content")
        if let data = fields["data"] { request.data = try pairs("data", data) }
        if let notification = fields["notification"] { request.notification = try pairs("notification", notification) }
        if let package = try string(fields, "restricted_package_name") {
            request.details = MessageDetails(restrictedPackageName: package)
        }
        // A name the service does not know is taken as absent, as it was; the delivery
        // events list it (`ignored`), so a misspelt `time_to_live` is seen, not lost.
        let unknown = fields.keys.filter { !knownNames.contains($0) }.sorted()
        if !unknown.isEmpty {
            request.details = (request.details ?? MessageDetails()).overlaid(by: MessageDetails(ignored: unknown))
        }
        return request
    }

    /// Every top-level name of a legacy HTTP or CCS downstream message: the targets,
    /// the options, the payloads, and CCS's own.
    public static let knownNames: Set<String> = [
        "to", "registration_ids", "condition", "notification_key", "collapse_key", "priority", "time_to_live",
        "delivery_receipt_requested", "dry_run", "content_available", "mutable_content", "data", "notification",
        "restricted_package_name", "delay_while_idle", "direct_boot_ok", "message_id", "message_type",
    ]

    /// A JSON number as whole seconds; fractions are dropped, and numbers beyond
    /// 64 bits become the largest (which the TTL rule then refuses).
    static func seconds(_ value: JSONValue, field: String) throws(TypeError) -> Int64 {
        guard case .number(let text) = value else { throw typeError(field, "Number", value) }
        if let whole = Int64(text) { return whole }
        guard let number = Double(text), number.isFinite, abs(number) < 9.2e18 else {
            return text.hasPrefix("-") ? Int64.min : Int64.max
        }
        return Int64(number)
    }

    public static func string(_ fields: JSONObject, _ name: String) throws(TypeError) -> String? {
        guard let value = fields[name] else { return nil }
        guard case .string(let text) = value else { throw typeError(name, "String", value) }
        return text
    }

    static func bool(_ fields: JSONObject, _ name: String) throws(TypeError) -> Bool {
        guard let value = fields[name] else { return false }
        guard case .bool(let flag) = value else { throw typeError(name, "Boolean", value) }
        return flag
    }

    /// A JSON object as sorted key-value pairs, values turned into strings.
    static func pairs(_ name: String, _ value: JSONValue) throws(TypeError) -> [KeyValue] {
        guard case .object(let map) = value else { throw typeError(name, "Object", value) }
        return stringPairs(map)
    }

    /// Members as sorted key-value pairs, the service's way: values become text.
    public static func stringPairs(_ map: JSONObject) -> [KeyValue] {
        var latest: [String: String] = [:]
        for member in map.members { latest[member.key] = member.value.text }
        return latest.keys.sorted().map { KeyValue($0, latest[$0]!) }
    }
}
