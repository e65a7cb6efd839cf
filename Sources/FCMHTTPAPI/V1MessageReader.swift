import FCMEngine
import FCMJSON
import FCMLegacyFields
import Foundation

/// Reads an HTTP v1 `{"message": {…}, "validate_only": …}` body into one order. The
/// `android` and `apns` blocks are read and checked here and kept on the order: the
/// engine applies the block of each phone's platform when a copy reaches it.
public enum V1MessageReader {
    public static func read(_ body: [UInt8], sender: String) -> Result<SendOrder, V1Error> {
        let root: JSONObject
        switch LegacyFields.object(body) {
        case .success(let object): root = object
        case .failure(let problem): return .failure(.invalidArgument("Invalid JSON payload received. \(problem)"))
        }
        do {
            return .success(try order(root, sender: sender))
        } catch let error as V1Error {
            return .failure(error)
        } catch {
            return .failure(.invalidArgument("\(error)"))
        }
    }

    static func order(_ root: JSONObject, sender: String) throws -> SendOrder {
        try V1SchemaCheck.check(root, against: "SendMessageRequest", at: "")
        guard case .object(let message) = root["message"] else {
            throw V1Error.invalidArgument("Invalid JSON payload received. \"message\" must be an object.")
        }
        try V1SchemaCheck.check(message, against: "Message", at: "message")
        var request = DownstreamRequest(sender: sender, to: nil)
        if let validate = V1SchemaCheck.member(root, "validate_only") {
            guard case .bool(let flag) = validate else {
                throw V1Error.invalidArgument("Invalid value at 'validate_only' (TYPE_BOOL), \(validate.text)")
            }
            request.dryRun = flag
        }
        let targets = ["token", "fid", "topic", "condition"].filter { message[$0] != nil }
        guard targets.count <= 1 else {
            throw V1Error.invalidArgument("Invalid value at 'message' (oneof), oneof field 'target' is already set.")
        }
        switch targets.first {
        case "topic":
            let topic = try string(message, "topic", at: "message") ?? ""
            request.to = TopicName.prefix + TopicName.bare(topic)
        case "condition": request.condition = try string(message, "condition", at: "message")
        case nil: throw V1Error.invalidArgument("Recipient of the message is not set.")
        default: request.to = try string(message, targets[0], at: "message")
        }
        request.data = try stringMap(message["data"], at: "message.data") ?? []
        if let notification = message["notification"] {
            let fields = try object(notification, at: "message.notification")
            try V1SchemaCheck.check(fields, against: "Notification", at: "message.notification")
            request.notification = LegacyFields.stringPairs(fields)
        }
        let android = try message["android"].map(readAndroid)
        let apns = try message["apns"].map(readAPNs)
        let overrides = android != nil || apns != nil ? PlatformOverrides(android: android, apns: apns) : nil
        return SendOrder(request, byInstallation: targets.first == "fid", overrides: overrides)
    }

    static func readAndroid(_ value: JSONValue) throws -> MessageOverride {
        let android = try object(value, at: "message.android")
        try V1SchemaCheck.check(android, against: "AndroidConfig", at: "message.android")
        var request = MessageOverride()
        request.collapseKey =
            try string(android, "collapse_key", at: "message.android")
            ?? string(android, "collapseKey", at: "message.android")
        if let priority = try string(android, "priority", at: "message.android") {
            switch priority.uppercased() {
            case "HIGH": request.priority = "high"
            case "NORMAL": request.priority = "normal"
            default:
                throw V1Error.invalidArgument(
                    "Invalid value at 'message.android.priority' (type.googleapis.com/google.firebase.fcm.v1.AndroidMessagePriority), \"\(priority)\""
                )
            }
        }
        if let ttl = try string(android, "ttl", at: "message.android") {
            guard let seconds = DurationText.protobufSeconds(ttl) else {
                throw V1Error.invalidArgument(
                    "Invalid value at 'message.android.ttl' (type.googleapis.com/google.protobuf.Duration), \"\(ttl)\"")
            }
            request.timeToLive = seconds
        }
        request.data = try stringMap(android["data"], at: "message.android.data")
        if let notification = android["notification"] {
            let fields = try object(notification, at: "message.android.notification")
            try V1SchemaCheck.check(fields, against: "AndroidNotification", at: "message.android.notification")
            request.notification = LegacyFields.stringPairs(fields)
        }
        return request
    }

    static func readAPNs(_ value: JSONValue) throws -> MessageOverride {
        let apns = try object(value, at: "message.apns")
        try V1SchemaCheck.check(apns, against: "ApnsConfig", at: "message.apns")
        var request = MessageOverride()
        if let headers = try stringMap(apns["headers"], at: "message.apns.headers") {
            for header in headers {
                switch header.key.lowercased() {
                case "apns-priority":
                    guard header.value == "10" || header.value == "5" else {
                        throw V1Error.invalidArgument("apns-priority must be \"10\" or \"5\", not \"\(header.value)\"")
                    }
                    request.priority = header.value == "10" ? "high" : "normal"
                case "apns-collapse-id": request.collapseKey = header.value
                case "apns-expiration":
                    guard let expiry = Int64(header.value) else {
                        throw V1Error.invalidArgument("apns-expiration must be a UNIX time in seconds")
                    }
                    request.expiresAtUnixSeconds = expiry
                default: break
                }
            }
        }
        guard let payloadValue = apns["payload"] else { return request }
        let payload = try object(payloadValue, at: "message.apns.payload")
        guard let apsValue = payload["aps"] else { return request }
        let aps = try object(apsValue, at: "message.apns.payload.aps")
        if let alert = aps["alert"] {
            var fields: [KeyValue] = []
            if case .string(let text) = alert {
                fields = [KeyValue("body", text)]
            } else {
                let map = try object(alert, at: "message.apns.payload.aps.alert")
                fields = LegacyFields.stringPairs(map).filter { map[$0.key]?.string != nil }
            }
            request.notification = fields
        }
        request.contentAvailable = aps["content-available"]?.int64 == 1
        request.mutableContent = aps["mutable-content"]?.int64 == 1
        return request
    }

    // MARK: Typed access

    static func object(_ value: JSONValue, at path: String) throws -> JSONObject {
        guard case .object(let map) = value else {
            throw V1Error.invalidArgument("Invalid value at '\(path)' (object), \(value.text)")
        }
        return map
    }

    static func string(_ map: JSONObject, _ key: String, at path: String) throws -> String? {
        guard let value = map[key] else { return nil }
        guard case .string(let text) = value else {
            throw V1Error.invalidArgument("Invalid value at '\(path).\(key)' (TYPE_STRING), \(value.text)")
        }
        return text
    }

    /// A map whose values must be strings, as v1's `data` and `headers` are.
    static func stringMap(_ value: JSONValue?, at path: String) throws -> [KeyValue]? {
        guard let value else { return nil }
        let map = try object(value, at: path)
        for member in map.members where member.value.string == nil {
            throw V1Error.invalidArgument(
                "Invalid value at '\(path)[\(member.key)].value' (TYPE_STRING), \(member.value.text)")
        }
        return LegacyFields.stringPairs(map)
    }
}
