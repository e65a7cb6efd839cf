import FCMEngine
import FCMHTTPPort
import FCMJSON

/// The legacy API's answers, shaped as the real ones.
public enum LegacyReply {
    /// What a dry run returns in place of a message id.
    public static let dryRunMessageID = "fake_message_id"

    /// 200 with `multicast_id`, counts and one result per target, in request order.
    public static func json(_ results: [Result<String, DownstreamError>], dryRun: Bool, multicastID: Int64) -> HTTPReply
    {
        var success = 0
        var items: [JSONValue] = []
        items.reserveCapacity(results.count)
        for result in results {
            switch result {
            case .success(let id):
                success += 1
                items.append(.members(["message_id": .string(dryRun ? dryRunMessageID : id)]))
            case .failure(let error):
                items.append(.members(["error": .string(error.legacyName)]))
            }
        }
        let body = JSONValue.members([
            "multicast_id": .int(dryRun ? -1 : multicastID), "success": .int(success),
            "failure": .int(results.count - success), "canonical_ids": .int(0), "results": .array(items),
        ])
        return .json(200, body.json)
    }

    /// A message to a topic or a condition: `{"message_id": N}` with a number, or
    /// `{"error": Name}`.
    public static func topic(_ result: Result<String, DownstreamError>, dryRun: Bool) -> HTTPReply {
        switch result {
        case .success(let id):
            let number: JSONValue = dryRun ? .int(-1) : Int64(id) != nil ? .number(id) : .string(id)
            return .json(200, JSONValue.members(["message_id": number]).json)
        case .failure(let error):
            return .json(200, JSONValue.members(["error": .string(error.legacyName)]).json)
        }
    }

    /// A message to a notification key: `success` and `failure` counts, the members
    /// that failed, and no `multicast_id` (how clients tell it from a token reply).
    public static func group(_ delivery: GroupDelivery) -> HTTPReply {
        var body = JSONObject([
            (key: "success", value: .int(delivery.success)), (key: "failure", value: .int(delivery.failed.count)),
        ])
        if !delivery.failed.isEmpty {
            body.members.append((key: "failed_registration_ids", value: .strings(delivery.failed)))
        }
        return .json(200, JSONValue.object(body).json)
    }

    /// The plain-text API: `id=…` or `Error=Name`.
    public static func plainText(_ result: Result<String, DownstreamError>, dryRun: Bool) -> HTTPReply {
        switch result {
        case .success(let id): .text(200, "id=\(dryRun ? dryRunMessageID : id)\n")
        case .failure(let error): .text(200, "Error=\(error.legacyName)\n")
        }
    }
}
