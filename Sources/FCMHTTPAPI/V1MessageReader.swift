import FCMDownstreamJSON
import FCMEngine
import Foundation

/// Reads an HTTP v1 `{"message": {…}, "validate_only": …}` body into one order,
/// applying the override block of the device's platform (`android` or `apns`).
public enum V1MessageReader {
    public static func read(_ body: [UInt8], sender: String, platform: Platform, now: Date = Date())
        -> Result<SendOrder, V1Error>
    {
        let root: JSONObject
        switch LegacyFields.object(body) {
        case .success(let object): root = object
        case .failure(let problem): return .failure(.invalidArgument("Invalid JSON payload received. \(problem)"))
        }
        do {
            return .success(try order(root, sender: sender, platform: platform, now: now))
        } catch let error as V1Error {
            return .failure(error)
        } catch {
            return .failure(.invalidArgument("\(error)"))
        }
    }

    static func order(_ root: JSONObject, sender: String, platform: Platform, now: Date) throws -> SendOrder {
        guard case .object(let message) = root["message"] else {
            throw V1Error.invalidArgument("Invalid JSON payload received. \"message\" must be an object.")
        }
        var request = DownstreamRequest(sender: sender, to: nil)
        if let validate = root["validate_only"] {
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
            request.notification = LegacyFields.stringPairs(try object(notification, at: "message.notification"))
        }
        switch platform {
        case .android:
            if let android = message["android"] { try applyAndroid(android, to: &request) }
        case .ios:
            if let apns = message["apns"] { try applyAPNs(apns, to: &request, now: now) }
        }
        return SendOrder(request, byInstallation: targets.first == "fid")
    }

    static func applyAndroid(_ value: JSONValue, to request: inout DownstreamRequest) throws {
        let android = try object(value, at: "message.android")
        request.collapseKey = try string(android, "collapse_key", at: "message.android") ?? request.collapseKey
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
        if let data = try stringMap(android["data"], at: "message.android.data") { request.data = data }
        if let notification = android["notification"] {
            let fields = LegacyFields.stringPairs(try object(notification, at: "message.android.notification"))
            request.notification = merged(request.notification ?? [], fields)
        }
    }

    static func applyAPNs(_ value: JSONValue, to request: inout DownstreamRequest, now: Date) throws {
        let apns = try object(value, at: "message.apns")
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
                    request.timeToLive = expiry == 0 ? 0 : max(0, expiry - Int64(now.timeIntervalSince1970))
                default: break
                }
            }
        }
        guard let payloadValue = apns["payload"] else { return }
        let payload = try object(payloadValue, at: "message.apns.payload")
        guard let apsValue = payload["aps"] else { return }
        let aps = try object(apsValue, at: "message.apns.payload.aps")
        if let alert = aps["alert"] {
            var fields: [KeyValue] = []
            if case .string(let text) = alert {
                fields = [KeyValue("body", text)]
            } else {
                let map = try object(alert, at: "message.apns.payload.aps.alert")
                fields = LegacyFields.stringPairs(map).filter { map[$0.key]?.string != nil }
            }
            request.notification = merged(request.notification ?? [], fields)
        }
        request.contentAvailable = request.contentAvailable || aps["content-available"]?.int64 == 1
        request.mutableContent = request.mutableContent || aps["mutable-content"]?.int64 == 1
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

    /// `base` with `overrides` replacing fields of the same name.
    static func merged(_ base: [KeyValue], _ overrides: [KeyValue]) -> [KeyValue] {
        let replaced = Set(overrides.map(\.key))
        return (base.filter { !replaced.contains($0.key) } + overrides).sorted { $0.key < $1.key }
    }
}
