import FCMEngine
import Foundation
import SwiftProtobuf

/// Android check-in's protobuf bodies: the request a client posts, read into the
/// engine's terms, and the response written from the engine's answer.
public enum CheckinCodec {
    /// The check-in a body asks for, or nil when it is not an `AndroidCheckinRequest`
    /// (not protobuf, or with no `checkin` device block).
    public static func read(_ body: [UInt8]) -> ReceiverRequest? {
        guard let request = try? CheckinRequest(serializedBytes: body), request.hasCheckin else { return nil }
        return
            .checkin(
                androidID: request.hasID ? UInt64(bitPattern: request.id) : nil,
                securityToken: request.hasSecurityToken ? request.securityToken : nil)
    }

    /// The `AndroidCheckinResponse` for a device's pair (`unixMillis`: the server's time).
    public static func response(androidID: UInt64, securityToken: UInt64, unixMillis: Int64) -> [UInt8] {
        var response = CheckinResponse()
        response.statsOk = true
        response.timeMsec = unixMillis
        response.androidID = androidID
        response.securityToken = securityToken
        response.versionInfo = "fcm-device"
        response.settingsDiff = false
        return (try? response.serializedBytes()) ?? []
    }
}
