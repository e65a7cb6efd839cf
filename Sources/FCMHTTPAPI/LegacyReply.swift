import FCMEngine

/// The legacy API's answers, shaped as the real ones.
public enum LegacyReply {
    /// What a dry run returns in place of a message id.
    public static let dryRunMessageID = "fake_message_id"

    /// 200 with `multicast_id`, counts and one result per target, in request order.
    public static func json(_ results: [Result<String, DownstreamError>], dryRun: Bool, multicastID: Int64) -> HTTPReply
    {
        var success = 0
        var items = ""
        for (index, result) in results.enumerated() {
            if index > 0 { items += "," }
            switch result {
            case .success(let id):
                success += 1
                items += #"{"message_id":"#
                JSONText.appendString(dryRun ? dryRunMessageID : id, to: &items)
                items += "}"
            case .failure(let error):
                items += #"{"error":"#
                JSONText.appendString(error.legacyName, to: &items)
                items += "}"
            }
        }
        let body =
            #"{"multicast_id":\#(dryRun ? -1 : multicastID),"success":\#(success),"failure":\#(results.count - success),"#
            + #""canonical_ids":0,"results":[\#(items)]}"#
        return .json(200, body)
    }

    /// The plain-text API: `id=…` or `Error=Name`.
    public static func plainText(_ result: Result<String, DownstreamError>, dryRun: Bool) -> HTTPReply {
        switch result {
        case .success(let id): .text(200, "id=\(dryRun ? dryRunMessageID : id)\n")
        case .failure(let error): .text(200, "Error=\(error.legacyName)\n")
        }
    }
}
