import FCMCredentials
import FCMEngine
import FCMJSON
import Foundation

/// A request the authentication step refused, with the answer in its API's body.
public struct Refused: Error, Sendable {
    public var reply: HTTPReply

    public init(_ reply: HTTPReply) { self.reply = reply }
}

/// Who a caller of the HTTP port proved to be.
public enum Caller: Sendable, Equatable {
    /// An endpoint anyone may call.
    case anyone
    /// An app server of this sender.
    case sender(SenderConfig)
    /// A test suite on the control API.
    case controller
}

/// The one authentication step of the HTTP port: every route's credential
/// (`HTTPRoute.credential`) is checked here, against the senders the device has now
/// and the tokens the token endpoint issued, and a refusal is answered in the body of
/// the API it came to.
public struct HTTPAuthenticator: Sendable {
    /// The sender a request names, asked of the device at each request.
    let findSender: @Sendable (SenderLookup) -> SenderConfig?
    public let tokens: AccessTokens
    let clock: @Sendable () -> Date
    /// When set, every control call must carry `Authorization: Bearer TOKEN`.
    let controlToken: String?
    /// Why the control API is closed, when it is (listening beyond this machine
    /// without a token).
    let controlClosedBecause: String?

    public init(
        findSender: @escaping @Sendable (SenderLookup) -> SenderConfig?, tokens: AccessTokens = AccessTokens(),
        clock: @escaping @Sendable () -> Date = { Date() }, controlToken: String? = nil,
        controlClosedBecause: String? = nil
    ) {
        self.findSender = findSender
        self.tokens = tokens
        self.clock = clock
        self.controlToken = controlToken
        self.controlClosedBecause = controlClosedBecause
    }

    /// Who the request's caller is on `route`, or the refusal to answer with.
    public func authenticate(_ request: HTTPRequestParts, for route: HTTPRoute) -> Result<Caller, Refused> {
        switch route.credential {
        case .none: return .success(.anyone)
        case .serverKey:
            guard let sender = sender(byKey: request) else { return .failure(Refused(Self.legacyUnauthorized)) }
            return .success(.sender(sender))
        case .bearer(let project):
            return v1Sender(request, project: project).map(Caller.sender).mapError { Refused($0.reply) }
        case .serverKeyOrBearer:
            guard let sender = sender(byKey: request) ?? sender(byBearer: request) else {
                return .failure(Refused(Self.iidUnauthorized))
            }
            return .success(.sender(sender))
        case .controlToken:
            if let controlClosedBecause { return .failure(Refused(Self.controlError(403, controlClosedBecause))) }
            guard let controlToken else { return .success(.controller) }
            guard let presented = Self.bearer(request), ConstantTime.equals(presented, controlToken) else {
                return .failure(
                    Refused(
                        Self.controlError(
                            401, "the control API needs Authorization: Bearer CONTROL_TOKEN (--control-token)")))
            }
            return .success(.controller)
        }
    }

    /// The sender whose server key the `key=` header carries (compared in constant time).
    func sender(byKey request: HTTPRequestParts) -> SenderConfig? {
        guard let header = request.header("authorization"), header.utf8.count > 4,
            header.prefix(4).lowercased() == "key="
        else { return nil }
        return findSender(.key(HeaderText.trimmed(header.dropFirst(4))))
    }

    /// The sender of the project a valid bearer token was granted for.
    func sender(byBearer request: HTTPRequestParts) -> SenderConfig? {
        guard let bearer = Self.bearer(request), case .valid(let project) = tokens.check(bearer, now: clock()) else {
            return nil
        }
        return findSender(.project(project))
    }

    /// The sender a v1 call acts for: its bearer token must be valid and granted to
    /// `project` (or that sender's id).
    func v1Sender(_ request: HTTPRequestParts, project: String) -> Result<SenderConfig, V1Error> {
        guard let bearer = Self.bearer(request) else {
            return .failure(
                V1Error(
                    httpStatus: 401, status: "UNAUTHENTICATED",
                    message:
                        "Request is missing required authentication credential. Expected OAuth 2 access token from the emulator's token endpoint (POST /token)."
                ))
        }
        let granted: String
        switch tokens.check(bearer, now: clock()) {
        case .valid(let project): granted = project
        case .expired:
            return .failure(
                V1Error(
                    httpStatus: 401, status: "UNAUTHENTICATED",
                    message: "Request had invalid authentication credentials: the access token has expired.",
                    reason: "ACCESS_TOKEN_EXPIRED"
                ))
        case .unknown:
            return .failure(
                V1Error(
                    httpStatus: 401, status: "UNAUTHENTICATED",
                    message:
                        "Request had invalid authentication credentials: this access token was not issued by this emulator."
                ))
        }
        guard let sender = findSender(.project(project)), sender.isNamed(byProject: granted) else {
            return .failure(
                V1Error(
                    httpStatus: 403, status: "PERMISSION_DENIED",
                    message:
                        "Permission 'cloudmessaging.messages.create' denied on resource '//cloudresourcemanager.googleapis.com/projects/\(project)' (or it may not exist)."
                ))
        }
        return .success(sender)
    }

    /// The token of an `Authorization: Bearer TOKEN` header, if it is one.
    public static func bearer(_ request: HTTPRequestParts) -> String? {
        guard let header = request.header("authorization"), header.prefix(7).lowercased() == "bearer " else {
            return nil
        }
        return HeaderText.trimmed(header.dropFirst(7))
    }

    static let legacyUnauthorized = HTTPReply.text(
        401,
        "Unauthorized: the Authorization header must be key=SERVER_KEY, the key of a sender some phone registers with\n"
    )

    static let iidUnauthorized = HTTPReply.json(
        401,
        JSONValue.members([
            "error": .string("Unauthorized: send key=SERVER_KEY or a bearer token from the emulator's token endpoint")
        ]).json)

    /// A control API error, in its `{"error":{"code","message"}}` body.
    public static func controlError(_ status: Int, _ text: String) -> HTTPReply {
        .json(status, JSONValue.members(["error": .members(["code": .int(status), "message": .string(text)])]).json)
    }
}
