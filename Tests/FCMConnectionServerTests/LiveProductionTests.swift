import FCMConnectionServer
import FCMEngine
import Foundation
import Testing

/// Production's policies on a served device, through its real sockets: what an app
/// server sees over HTTP.
@Suite("Production policies on loopback", .serialized)
struct LiveProductionTests {
    typealias Live = LiveHTTPTests

    func v1(_ token: String, bearer: String) -> String {
        Live.request(
            "POST", "/v1/projects/p7/messages:send", headers: ["authorization: Bearer \(bearer)"],
            body: #"{"message":{"token":"\#(token)","data":{"k":"v"}}}"#)
    }

    @Test("the 241st message in a minute to one Android phone is refused on legacy and on v1, naming the switch")
    func theDeviceRateIsRefusedOnEveryHTTPAPI() async throws {
        let log = Live.Log()
        let (server, port, token) = try await LiveHTTPTests().start(log: log)
        let client = try RawClient(port: port)
        // The sends go one after another on one connection (a pipeline would do too).
        for _ in 0..<DeviceLimits.perMinute {
            client.write(Live.legacySend(to: token))
            #expect(await client.reply(until: "]}").contains(#""success":1"#))
        }
        client.write(Live.legacySend(to: token))
        let legacy = await client.reply(until: "]}")
        #expect(legacy.contains(#""error":"DeviceMessageRateExceeded""#), "\(legacy)")
        let bearer = try await Live.grantBearer(port: port, project: "p7")
        client.write(v1(token, bearer: bearer))
        let refused = await client.reply(until: "]}}")
        #expect(refused.hasPrefix("HTTP/1.1 429"), "\(refused)")
        #expect(refused.contains(#""errorCode":"QUOTA_EXCEEDED""#))
        #expect(refused.contains("--no-device-limits"))
        try await server.stop()
    }

    @Test("v1 answers a malformed token and an unregistered one in Google's words")
    func v1SpeaksGooglesWords() async throws {
        let log = Live.Log()
        let (server, port, token) = try await LiveHTTPTests().start(log: log)
        let bearer = try await Live.grantBearer(port: port, project: "p7")
        let client = try RawClient(port: port)
        client.write(v1("not-a-token", bearer: bearer))
        let invalid = await client.reply(until: "]}}")
        #expect(invalid.hasPrefix("HTTP/1.1 400"))
        #expect(invalid.contains("The registration token is not a valid FCM registration token"), "\(invalid)")
        _ = server.host.submit { _, time in [.input(.on(.refreshToken(sender: nil)), at: time)] }
        client.write(v1(token, bearer: bearer))
        let gone = await client.reply(until: "]}}")
        #expect(gone.hasPrefix("HTTP/1.1 404"))
        #expect(gone.contains("Requested entity was not found."), "\(gone)")
        try await server.stop()
    }
}
