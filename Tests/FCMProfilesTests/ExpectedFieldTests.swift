import FCMEngine
import FCMProfiles
import Testing

/// An expectation cannot pass, or fail mutely, by a typo in a field's name: every
/// field an `expect` or `expect_none` names must be one its event carries.
@Suite("Expectations name real fields")
struct ExpectedFieldTests {
    func error(_ step: String) -> ProfileError? {
        do {
            _ = try ProfileParser.parse(
                ProfileErrorTests.header + "timeline:\n  - at: 0s\n    " + step + "\n", file: "p.yaml")
            return nil
        } catch {
            return error
        }
    }

    @Test("an expect_none naming a field its event never carries is an error at the field, with the fields it has")
    func expectNoneWithATypoIsAnError() throws {
        let problem = try #require(error("expect_none: { event: onMessageReceived, idd: m-1 }"))
        #expect(problem.location.line == 7, "\(problem)")
        #expect(problem.location.column == 46, "\(problem)")
        #expect(problem.message.contains("onMessageReceived has no field idd; did you mean id?"), "\(problem)")
        #expect(problem.message.contains("it has "), "\(problem)")
        #expect(problem.message.contains("data"), "\(problem)")
    }

    @Test("an expect naming a field its event never carries is an error too")
    func expectWithATypoIsAnError() throws {
        let problem = try #require(error("expect: { event: downstreamAccepted, collapse: score }"))
        #expect(problem.message.contains("downstreamAccepted has no field collapse; did you mean"), "\(problem)")
        #expect(problem.message.contains("collapse_key"), "\(problem)")
    }

    @Test("fields an event does carry, device included, are taken")
    func realFieldsAreTaken() {
        #expect(error("expect: { event: onMessageReceived, id: m-1, from: \"123\", data: { k: v } }") == nil)
        #expect(error("expect_none: { event: onSendError, error: TooManyMessages }") == nil)
        #expect(error("expect: { event: onNewToken, device: phone, sender: \"123\" }") == nil)
    }

    @Test("every event the vocabulary has declares its fields each once")
    func everyEventDeclaresItsFieldsOnce() {
        for kind in EventName.allCases {
            #expect(Set(kind.fields).count == kind.fields.count, "\(kind.rawValue) declares a field twice")
        }
    }
}

@Suite("Did you mean")
struct CloseNameTests {
    @Test("a word cut and finished another way is suggested, as a misspelling is")
    func aWordFinishedAnotherWayIsSuggested() {
        #expect(CloseNames.suggestion(among: ["granted", "denied", "default"], to: "deny") == "; did you mean denied?")
        #expect(
            CloseNames.suggestion(among: ["online", "offline"], to: "ofline") == "; did you mean online or offline?")
        #expect(CloseNames.suggestion(among: ["granted", "denied", "default"], to: "maybe") == "")
    }
}
