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
            profile: profile, inputs: [.input(.push(push), at: 1_500), .input(.on(.setNetwork(.offline)), at: 2_000)])
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

    @Test func playedStepsAreWrittenAsTheyWereWithNotesAndExpectations() throws {
        let source = """
            version: 1
            description: the source
            device: { name: Pixel, platform: android, seed: 5 }
            senders:
              - { id: "111", key: k1 }
              - { id: "222", key: k2 }
            timeline:
              - at: 1s
                push: { sender: "111", to: previous, token_of: "222", id: m-1, data: { a: "1" } }
                note: "A push to the other sender's older token: \\"quoted\\"."
              - at: 2s
                expect: { event: downstreamRejected, side: server, id: m-1, error: [x, y] }
              - at: 3s
                expect_none: { event: onMessageReceived, data: { a: "1" } }
                note: nothing arrives
            """
        let profile = try ProfileParser.parse(source, file: "source.yaml")
        let yaml = ProfileWriter.yaml(
            profile: profile, played: profile.steps, inputs: [.input(.on(.setNetwork(.offline)), at: 4_000)])
        let back = try ProfileParser.parse(yaml, file: "saved.yaml")
        #expect(back.steps.count == 4)
        #expect(back.steps.map(\.note) == profile.steps.map(\.note) + [nil])
        #expect(back.description?.hasPrefix("source.yaml played to step 3 of 3, then continued by hand") == true)
        guard case .push(let push) = back.steps[0].action, case .expect(let expectation) = back.steps[1].action,
            case .expectNone(let none) = back.steps[2].action
        else {
            Issue.record("the steps came back as other actions: \(back.steps.map(\.action))")
            return
        }
        #expect(push.target == .previous)
        #expect(push.tokenOwner == "222")
        #expect(expectation.summary == "downstreamRejected side=server id=m-1 error=[x,y]")
        #expect(none.summary == "onMessageReceived data={a:1}")
        // Written again, the file is the same: nothing is lost on the way.
        #expect(
            ProfileWriter.yaml(profile: back, played: back.steps, inputs: []).contains("note: \"nothing arrives\""))
    }

    @Test("a session whose inputs no step can say saves a timeline that parses, with comments where it matters")
    func whatNoStepCanSayIsLeftOutAndTheFileStillParses() throws {
        let profile = try ProfileParser.parse(
            "version: 1\nsenders: [{ id: \"111\", key: k }]\n", file: "p.yaml")
        let inputs: [JournalEntry] = [
            .input(.send([SendOrder(DownstreamRequest(sender: "111", to: "fid-1"), byInstallation: true)]), at: 5),
            .input(.push(DownstreamRequest(sender: "111", to: nil)), at: 6),
            .advance(to: 7),
        ]
        let yaml = ProfileWriter.yaml(profile: profile, inputs: inputs)
        #expect(yaml.contains("timeline: []"), "\(yaml)")
        #expect(yaml.contains("# a message to installation fid-1 is not saved"))
        #expect(yaml.contains("# a push that named no token"))
        #expect(try ProfileParser.parse(yaml, file: "saved.yaml").steps.isEmpty)
    }

    @Test func anAppServersWebPushIsSavedAsTheStepTheEngineReadsItAsOrLeftOutWithAComment() throws {
        let profile = try ProfileParser.parse(
            "version: 1\ndevices: [{ name: chrome, platform: web, app: \"https://a.example\" }, { name: pixel }]\n"
                + "senders: [{ id: \"111\", key: k }]\n", file: "p.yaml")
        let request = WebPushRequest(subscription: "s-1", host: "127.0.0.1:1", ttl: "60")
        let inputs: [JournalEntry] = [
            .input(.webPush(request), at: 5), .input(.webPush(WebPushRequest(subscription: "gone", host: "")), at: 6),
        ]
        let yaml = ProfileWriter.yaml(profile: profile, inputs: inputs) { request in
            request.subscription == "s-1" ? ("chrome", WebPushStep(data: "hi", ttl: 60, topic: "t")) : nil
        }
        #expect(yaml.contains(#"device: "chrome""#), "\(yaml)")
        #expect(yaml.contains(#"web_push: { data: "hi", ttl: 60, topic: "t" }"#), "\(yaml)")
        #expect(
            yaml.contains(
                "# a Web Push to a subscription no emulated browser holds now (gone, or a real client's) is not saved"))
        let steps = try ProfileParser.parse(yaml, file: "saved.yaml").steps
        guard case .command(.on("chrome", .webPush(let step))) = steps.first?.action else {
            Issue.record("no web_push step: \(yaml)")
            return
        }
        #expect(step == WebPushStep(data: "hi", ttl: 60, topic: "t"))
    }

    @Test func aReinstallOnAnotherPlatformChecksLaterExpectationsAgainstItsNames() throws {
        let text = """
            version: 1
            device: { platform: android, seed: 3 }
            senders: [{ id: "1234", key: k }]
            timeline:
              - at: 1s
                reinstall: { platform: ios }
              - at: 1s
                expect: { event: didReceiveRegistrationToken }
            """
        let profile = try ProfileParser.parse(text, file: "p.yaml")
        #expect(Replayer.run(profile).passed)
        let written = ProfileWriter.yaml(profile: profile, played: profile.steps, inputs: [])
        #expect(written.contains("reinstall: { platform: ios, sdk: fcm }"))
        #expect(try ProfileParser.parse(written, file: "w.yaml").steps.count == 2)
        let wrong = text.replacingOccurrences(of: "didReceiveRegistrationToken", with: "onNewToken")
        #expect(throws: ProfileError.self) { try ProfileParser.parse(wrong, file: "p.yaml") }
    }
}
