import FCMEngine
import FCMHTTPPort
import FCMJSON
import FCMLegacyFields

/// A legacy `/fcm/send` body read into orders, one per target in request order.
public struct LegacyBatch: Sendable, Equatable {
    public var orders: [SendOrder]
    /// Form-encoded bodies get the old plain-text reply.
    public var plainText: Bool
}

/// A legacy body the service answers with 400 and this reason.
public struct LegacyBadRequest: Error, Equatable, CustomStringConvertible {
    public var description: String
}

/// Reads legacy send bodies: JSON, or the old form-encoded `registration_id=…&data.k=v`.
public enum LegacySendReader {
    public static func read(_ request: HTTPRequestParts, sender: String) -> Result<LegacyBatch, LegacyBadRequest> {
        switch request.mediaType {
        case "application/json": return json(request.body, sender: sender)
        case "application/x-www-form-urlencoded", "text/plain": return form(request.body, sender: sender)
        // GCM read a body without a Content-Type as a form; a refusal then says so.
        case nil: return form(request.body, sender: sender, note: noContentTypeNote)
        case let other?:
            return .failure(
                LegacyBadRequest(
                    description:
                        "Content-Type \(other) is not accepted: send application/json or application/x-www-form-urlencoded"
                ))
        }
    }

    static func json(_ body: [UInt8], sender: String) -> Result<LegacyBatch, LegacyBadRequest> {
        let fields: JSONObject
        switch LegacyFields.object(body) {
        case .success(let object): fields = object
        case .failure(let problem): return .failure(LegacyBadRequest(description: problem.description))
        }
        do {
            let template = try LegacyFields.request(fields, sender: sender, messageID: nil)
            let targets = try targets(fields)
            let orders = targets.map { token in
                var request = template
                request.to = token
                return SendOrder(request)
            }
            if let condition = try LegacyFields.string(fields, "condition") {
                guard targets == [nil] else {
                    throw LegacyBadRequest(description: "Must use either \"condition\" or \"to\", not both")
                }
                var request = template
                request.condition = condition
                return .success(LegacyBatch(orders: [SendOrder(request)], plainText: false))
            }
            return .success(LegacyBatch(orders: orders, plainText: false))
        } catch let error as LegacyFields.TypeError {
            return .failure(LegacyBadRequest(description: error.description))
        } catch let error as LegacyBadRequest {
            return .failure(error)
        } catch {
            return .failure(LegacyBadRequest(description: "\(error)"))
        }
    }

    /// The tokens a JSON body names: `to`, or each of `registration_ids`; `[nil]`
    /// when it names none (the result is then MissingRegistration).
    static func targets(_ fields: JSONObject) throws -> [String?] {
        let to = try LegacyFields.string(fields, "to")
        guard let ids = fields["registration_ids"] else { return [to] }
        guard to == nil else {
            throw LegacyBadRequest(description: "Must use either \"registration_ids\" field or \"to\", not both")
        }
        guard case .array(let tokens) = ids else { throw LegacyFields.typeError("registration_ids", "Array", ids) }
        if let problem = ServiceLimits.registrationIDsProblem(count: tokens.count) {
            throw LegacyBadRequest(description: problem)
        }
        return try tokens.map { token in
            guard case .string(let text) = token else {
                throw LegacyFields.typeError("registration_ids", "String", token)
            }
            return text
        }
    }

    static let noContentTypeNote =
        "the body was read as a form (registration_id=…&data.KEY=…) because no Content-Type was given; "
        + "a JSON body needs Content-Type: application/json"

    static func form(_ body: [UInt8], sender: String, note: String? = nil) -> Result<LegacyBatch, LegacyBadRequest> {
        var request = DownstreamRequest(sender: sender, to: nil)
        var data: [KeyValue] = []
        let fields: [(name: String, value: String)]
        switch FormDecoding.fields(body) {
        case .success(let decoded): fields = decoded
        case .failure(let problem): return .failure(LegacyBadRequest(description: problem.description))
        }
        for (name, value) in fields {
            switch name {
            case "registration_id": request.to = value
            case "collapse_key": request.collapseKey = value
            case "priority": request.priority = value
            case "time_to_live":
                guard let ttl = Int64(value) else {
                    return .failure(LegacyBadRequest(description: "time_to_live must be a whole number of seconds"))
                }
                request.timeToLive = ttl
            case "dry_run": request.dryRun = value == "1" || value == "true"
            case "delay_while_idle": break
            case "restricted_package_name": request.details = MessageDetails(restrictedPackageName: value)
            default:
                if name.hasPrefix("data."), name.count > 5 { data.append(KeyValue(String(name.dropFirst(5)), value)) }
            }
        }
        request.data = data
        if let note {
            request.details = (request.details ?? MessageDetails()).overlaid(by: MessageDetails(readNote: note))
        }
        return .success(LegacyBatch(orders: [SendOrder(request)], plainText: true))
    }
}
