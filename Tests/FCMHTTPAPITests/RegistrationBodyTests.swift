import FCMJSON
import Testing

@testable import FCMHTTPAPI

/// A real client's Installations and registrations bodies are read as Google reads
/// them: a misspelled name or a value of another type is 400 in Google's words.
@Suite("Registration bodies")
struct RegistrationBodyTests {
    func refusal(_ json: String, _ schema: String) -> String? {
        guard case .failure(let error) = HTTPSendService.registrationBody(Array(json.utf8), schema) else { return nil }
        #expect(error.reply.status == 400)
        return error.reply.body
    }

    @Test func whatAClientSendsIsTaken() {
        #expect(
            refusal(
                #"{"appId":"1:1:web:1","authVersion":"FIS_v2","fid":"f","sdkVersion":"w:0.6.6"}"#,
                "CreateInstallationRequest") == nil)
        #expect(
            refusal(
                #"{"web":{"applicationPubKey":null,"auth":"a","endpoint":"e","p256dh":"p"}}"#,
                "CreateRegistrationRequest") == nil)
    }

    @Test func aMisspelledNameAWrongTypeOrNoJSONIsRefusedSayingWhere() {
        #expect(
            refusal(#"{"appId":"1","fidd":"f"}"#, "CreateInstallationRequest")?
                .contains(#"Unknown name \"fidd\": Cannot find field."#) == true)
        #expect(
            refusal(#"{"fid":123}"#, "CreateInstallationRequest")?.contains("Invalid value at 'fid' (TYPE_STRING)")
                == true)
        #expect(
            refusal(#"{"web":{"p256dh":"p","authh":"a"}}"#, "CreateRegistrationRequest")?
                .contains(#"Unknown name \"authh\" at 'web'"#) == true)
        #expect(refusal("{", "CreateRegistrationRequest")?.contains("Invalid JSON payload received.") == true)
    }
}
