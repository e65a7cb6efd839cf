import FCMEngine
import FCMHTTPPort
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
        if let label = try analyticsLabel(in: message, at: "message") {
            request.details = MessageDetails(analyticsLabel: label)
        }
        let overrides = try platformBlocks(of: message)
        return SendOrder(request, byInstallation: targets.first == "fid", overrides: overrides)
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
