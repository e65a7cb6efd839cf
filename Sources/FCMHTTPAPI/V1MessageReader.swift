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
        try V1SchemaCheck.validate(root, against: "SendMessageRequest")
        guard case .object(let message) = root["message"] else {
            throw V1Error.invalidArgument("Recipient of the message is not set.", field: "message")
        }
        var request = DownstreamRequest(sender: sender, to: nil)
        if case .bool(let flag) = V1SchemaCheck.member(root, "validate_only", "validateOnly") { request.dryRun = flag }
        let targets = ["token", "fid", "topic", "condition"].filter { message[$0]?.string != nil }
        guard targets.count <= 1 else {
            throw V1Error.invalidArgument(
                "Invalid value at 'message' (oneof), oneof field 'target' is already set. Cannot set '\(targets[1])'",
                field: "message")
        }
        switch targets.first {
        case "topic": request.to = TopicName.prefix + TopicName.bare(message["topic"]?.string ?? "")
        case "condition": request.condition = message["condition"]?.string
        case nil: throw V1Error.invalidArgument("Recipient of the message is not set.", field: "message")
        default: request.to = message[targets[0]]?.string
        }
        request.data = stringMap(message["data"]) ?? []
        if case .object(let fields) = message["notification"] {
            request.notification = LegacyFields.stringPairs(fields)
        }
        try checkAndroidV2(message)
        let android = try message["android"]?.object.map(readAndroid)
        let apns = try message["apns"]?.object.map(readAPNs)
        let overrides = android != nil || apns != nil ? PlatformOverrides(android: android, apns: apns) : nil
        return SendOrder(request, byInstallation: targets.first == "fid", overrides: overrides)
    }

    /// `androidV2` replaces `android` and may not come with it, and it carries exactly
    /// one of `remote_notification` and `background_sync` (Google's document and its
    /// Python client say so; FCM's own words for either are not established).
    static func checkAndroidV2(_ message: JSONObject) throws {
        guard case .object(let v2)? = V1SchemaCheck.member(message, "android_v2", "androidV2") else { return }
        if case .object? = message["android"] {
            throw V1Error.invalidArgument(
                "android and android_v2 are mutually exclusive: a message carries one of them", field: "message")
        }
        let kinds = [("remote_notification", "remoteNotification"), ("background_sync", "backgroundSync")].filter {
            if case .object? = V1SchemaCheck.member(v2, $0.0, $0.1) { return true }
            return false
        }
        guard kinds.count == 1 else {
            throw V1Error.invalidArgument(
                "android_v2 carries exactly one of remote_notification and background_sync, not "
                    + (kinds.isEmpty ? "neither" : "both"), field: "message.android_v2")
        }
    }

    /// The `android` block, already checked against `AndroidConfig`.
    static func readAndroid(_ android: JSONObject) throws -> MessageOverride {
        var request = MessageOverride()
        request.collapseKey = V1SchemaCheck.member(android, "collapse_key", "collapseKey")?.string
        if let priority = android["priority"].flatMap(V1Schema.androidPriority.enumValue) {
            request.priority = priority == "HIGH" ? "high" : "normal"
        }
        if let ttl = android["ttl"]?.string {
            guard let seconds = DurationText.protobufSeconds(ttl) else {
                throw V1Error.invalidArgument(
                    "Invalid value at 'message.android.ttl' (type.googleapis.com/google.protobuf.Duration), Field 'ttl', "
                        + "a time to live is 0 or more seconds, not \(ttl)", field: "message.android.ttl")
            }
            request.timeToLive = seconds
        }
        request.data = stringMap(android["data"])
        if case .object(let fields) = android["notification"] {
            // Proto names, whichever spelling came: the device reads `channel_id`, `tag`, …
            request.notification = LegacyFields.stringPairs(fields).map {
                KeyValue(V1SchemaCheck.protoName($0.key), $0.value)
            }
        }
        return request
    }

    /// The `apns` block, already checked against `ApnsConfig`.
    static func readAPNs(_ apns: JSONObject) throws -> MessageOverride {
        var request = MessageOverride()
        for header in stringMap(apns["headers"]) ?? [] {
            switch header.key.lowercased() {
            case "apns-priority":
                guard header.value == "10" || header.value == "5" else {
                    throw V1Error.invalidArgument(
                        "apns-priority must be \"10\" or \"5\", not \"\(header.value)\"", field: "message.apns.headers")
                }
                request.priority = header.value == "10" ? "high" : "normal"
            case "apns-collapse-id": request.collapseKey = header.value
            case "apns-expiration":
                guard let expiry = Int64(header.value) else {
                    throw V1Error.invalidArgument(
                        "apns-expiration must be a UNIX time in seconds", field: "message.apns.headers")
                }
                request.expiresAtUnixSeconds = expiry
            default: break
            }
        }
        guard case .object(let payload) = apns["payload"], let apsValue = payload["aps"] else { return request }
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
            throw V1Error.invalidArgument("Invalid value at '\(path)' (object), \(value.text)", field: path)
        }
        return map
    }

    /// A map of strings (`data`, `headers`), already checked to hold strings only.
    static func stringMap(_ value: JSONValue?) -> [KeyValue]? {
        guard case .object(let map)? = value else { return nil }
        return LegacyFields.stringPairs(map)
    }
}
