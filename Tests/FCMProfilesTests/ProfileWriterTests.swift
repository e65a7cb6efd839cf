import FCMEngine
import FCMProfiles
import Testing

@Suite("Profile writer")
struct ProfileWriterTests {
    @Test func awkwardTextSurvivesAWriteAndARead() throws {
        let profile = try ProfileParser.parse("version: 1\nsenders: [{ id: \"1\", key: k }]\n", file: "p.yaml")
        let awkward = "quote \" backslash \\ newline \n tab \t bell \u{7} é 日本 🎉 # not a comment: {x}"
        let push = DownstreamRequest(
            sender: "1", to: "tok", messageID: "id-1", data: [KeyValue("k\"ey", awkward)],
            notification: [KeyValue("title", awkward)])
        let yaml = ProfileWriter.yaml(
            profile: profile, actions: [(1_500, .push(push)), (2_000, .setNetwork(.offline))])
        let back = try ProfileParser.parse(yaml, file: "saved.yaml")
        #expect(back.steps.count == 2)
        #expect(back.steps[0].at == 1_500)
        guard case .push(let step) = back.steps[0].action else {
            Issue.record("the first step is not a push")
            return
        }
        #expect(step.request.data == [KeyValue("k\"ey", awkward)])
        #expect(step.request.notification == [KeyValue("title", awkward)])
        #expect(step.target == .literal("tok"))
    }
}
