import FCMEngine
import FCMHTTPPort
import FCMJSON
import FCMLegacyFields

/// Device groups as app servers manage them (legacy): `POST /fcm/notification` with
/// `operation` create, add or remove, and `GET ?notification_key_name=N` to look a
/// key up. The `project_id` header names the sender; the key or a bearer token
/// authenticates as for the IID API. The device decides every answer.
extension HTTPSendService {
    func groups(_ request: HTTPRequestParts, sender: SenderConfig) async -> HTTPReply {
        guard let project = request.header("project_id"), !project.isEmpty else {
            return Self.iidError(400, "the project_id header (the sender ID) is missing")
        }
        guard sender.isNamed(byProject: project) else {
            return Self.iidError(401, "project_id \(project) is not the sender these credentials belong to")
        }
        if request.method == "GET" {
            guard let name = request.parameter("notification_key_name"), !name.isEmpty else {
                return Self.iidError(400, "notification_key_name is missing")
            }
            guard let key = await device.groupKey(sender.id, name) else {
                return Self.iidError(400, "notification_key not found")
            }
            return Self.keyReply(key)
        }
        let order: GroupOrder
        switch Self.groupOrder(request.body, sender: sender.id) {
        case .success(let read): order = read
        case .failure(let problem): return Self.iidError(400, problem.description)
        }
        switch await device.groups(order) {
        case .serviceDown: return Self.iidUnavailable
        case .refused(let why): return Self.iidError(400, why)
        case .key(let key): return Self.keyReply(key)
        }
    }

    static func keyReply(_ key: String) -> HTTPReply {
        .json(200, JSONValue.members(["notification_key": .string(key)]).json)
    }

    static func groupOrder(_ body: [UInt8], sender: String) -> Result<GroupOrder, LegacyBadRequest> {
        let fields: JSONObject
        switch LegacyFields.object(body) {
        case .success(let object): fields = object
        case .failure(let problem): return .failure(LegacyBadRequest(description: problem.description))
        }
        let choices = GroupOrder.Operation.allCases.map(\.rawValue).joined(separator: ", ")
        guard case .string(let text)? = fields["operation"], let operation = GroupOrder.Operation(rawValue: text)
        else {
            return .failure(LegacyBadRequest(description: "operation must be one of \(choices)"))
        }
        var tokens: [String] = []
        guard case .array(let items)? = fields["registration_ids"] else {
            return .failure(LegacyBadRequest(description: "registration_ids must be an array of registration tokens"))
        }
        for item in items {
            guard case .string(let token) = item else {
                return .failure(LegacyBadRequest(description: "registration_ids holds \(item.text), not a token"))
            }
            tokens.append(token)
        }
        return .success(
            GroupOrder(
                sender: sender, operation: operation, name: fields["notification_key_name"]?.string,
                key: fields["notification_key"]?.string, tokens: tokens))
    }
}
