import FCMEngine

/// The legacy API's answers, shaped as the real ones.
public enum LegacyReply {
    /// What a dry run returns in place of a message id.
    public static let dryRunMessageID = "fake_message_id"

    /// 200 with `multicast_id`, counts and one result per target, in request order.
    public static func json(_ results: [Result<String, DownstreamError>], dryRun: Bool, multicastID: Int64) -> HTTPReply
    {
        let success = results.count { if case .success = $0 { true } else { false } }
        // Written straight as bytes: it is the reply to every legacy send.
        var out: [UInt8] = []
        out.reserveCapacity(96 + 64 * results.count)
        out += #"{"multicast_id":"#.utf8
        JSONText.appendInt(dryRun ? -1 : multicastID, to: &out)
        out += #","success":"#.utf8
        JSONText.appendInt(Int64(success), to: &out)
        out += #","failure":"#.utf8
        JSONText.appendInt(Int64(results.count - success), to: &out)
        out += #","canonical_ids":0,"results":["#.utf8
        for (index, result) in results.enumerated() {
            if index > 0 { out.append(UInt8(ascii: ",")) }
            switch result {
            case .success(let id):
                out += #"{"message_id":"#.utf8
                JSONText.appendString(dryRun ? dryRunMessageID : id, to: &out)
            case .failure(let error):
                out += #"{"error":"#.utf8
                JSONText.appendString(error.legacyName, to: &out)
            }
            out.append(UInt8(ascii: "}"))
        }
        out += "]}".utf8
        return .json(200, String(decoding: out, as: UTF8.self))
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
