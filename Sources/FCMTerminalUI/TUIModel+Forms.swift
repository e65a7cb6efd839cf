import FCMEngine
import FCMProfiles
import Foundation

/// Opening, validating and submitting the forms.
extension TUIModel {
    var senderChoices: [String] { shown.senders.map(\.id) }

    mutating func openCompose() {
        guard let sender = selectedSender else { return say("no sender: add one with a") }
        if let why = refusalOnThePhoneShown(.send(UpstreamRequest(to: "", messageID: ""))) {
            return say(why, .refusal)
        }
        overlay = .form(
            Form(
                purpose: .compose,
                fields: [
                    FormField(.sender, sender.id, choices: senderChoices),
                    FormField(.messageID, suggestMessageID()),
                    FormField(.upstreamTTL, "86400"),
                    FormField(.dataKey(1), "hello"),
                    FormField(.dataValue(1), "world"),
                ]))
    }

    /// `w`: the save form, on a file in the save folder (the state folder's
    /// `sessions`, unless the shell named another).
    mutating func openSaveProfile() {
        replaceConfirmed = nil
        let folder = saveFolder.hasSuffix("/") ? String(saveFolder.dropLast()) : saveFolder
        overlay = .form(Form(purpose: .saveProfile, fields: [FormField(.file, folder + "/session.yaml")]))
    }

    /// The shell found a file where the session was to be saved, and wrote nothing:
    /// the form opens again and says so; Enter on the same path replaces it.
    public mutating func saveFound(existing path: String) {
        var form = Form(purpose: .saveProfile, fields: [FormField(.file, path)])
        form.fields[0].prefilled = false
        form.fail(.file, "a file is there already: Enter replaces it, or give another name")
        replaceConfirmed = path
        overlay = .form(form)
        statusLine = nil
    }

    mutating func openPush() {
        guard let sender = selectedSender else { return say("no sender: add one with a") }
        overlay = .form(
            Form(
                purpose: .push,
                fields: [
                    FormField(.sender, sender.id, choices: senderChoices),
                    FormField(.messageID, suggestPushID()),
                    FormField(.notificationTitle, "Hello"),
                    FormField(.notificationBody, "from the app server"),
                    FormField(.collapseKey),
                    FormField(.priority, "default", choices: ["default", "high", "normal"]),
                    FormField(.pushTTL),
                    FormField(.deliveryReceipt, "no", choices: ["no", "yes"]),
                    FormField(.contentAvailable, "no", choices: ["no", "yes"]),
                    FormField(.mutableContent, "no", choices: ["no", "yes"]),
                    FormField(.dataKey(1)),
                    FormField(.dataValue(1)),
                    FormField(.target, "token", choices: ["token", "topic", "condition"]),
                    FormField(.topicOrCondition),
                ]))
    }

    /// Subscribes the selected sender's token to a topic, or unsubscribes it.
    mutating func openTopic() {
        guard let sender = selectedSender else { return say("no sender: add one with a") }
        if let why = refusalOnThePhoneShown(.subscribe(topic: "", sender: nil)) { return say(why, .refusal) }
        overlay = .form(
            Form(
                purpose: .topic,
                fields: [
                    FormField(.topic, "news"),
                    FormField(.change, "subscribe", choices: ["subscribe", "unsubscribe"]),
                    FormField(.sender, sender.id, choices: senderChoices),
                ]))
    }

    /// Installs the app anew on another platform or with another SDK.
    mutating func openReinstallAs() {
        let device = shown.settings
        overlay = .form(
            Form(
                purpose: .reinstallAs,
                fields: [
                    FormField(.platform, device.platform.rawValue, choices: Platform.allCases.map(\.rawValue)),
                    FormField(.sdk, device.sdk.rawValue, choices: SDK.allCases.map(\.rawValue)),
                ]))
    }

    mutating func openAddSender() {
        senderCounter += 1
        overlay = .form(
            Form(
                purpose: .addSender,
                fields: [
                    FormField(.senderID, String(100_000_000_000 + senderCounter)),
                    FormField(.serverKey, "key-\(senderCounter)"),
                    FormField(.project),
                ]))
    }

    mutating func handleForm(_ form: inout Form, _ key: Key, at time: Millis) -> [Effect] {
        switch form.handle(key) {
        case .cancel:
            overlay = nil
            return []
        case .editing:
            overlay = .form(form)
            return []
        case .submit:
            // Judged afresh: what an earlier Enter said no longer stands.
            form.error = nil
            for index in form.fields.indices { form.fields[index].error = nil }
            let effects = submit(&form, at: time)
            overlay = form.hasErrors ? .form(form) : nil
            return effects
        }
    }

    mutating func submit(_ form: inout Form, at time: Millis) -> [Effect] {
        switch form.purpose {
        case .compose:
            let id = form.value(.messageID)
            if id.isEmpty { form.fail(.messageID, "a message id is needed") }
            let ttl = DurationText.seconds(form.value(.upstreamTTL))
            if ttl == nil || ttl! < 0 { form.fail(.upstreamTTL, "seconds, or a duration such as 90s, 2h or 3d") }
            let pairs = form.dataPairs()
            guard !form.hasErrors, let ttl else { return [] }
            let sender = form.value(.sender)
            let request = UpstreamRequest(
                to: UpstreamRequest.address(sender: sender, sdk: shown.settings.sdk), messageID: id,
                timeToLive: ttl, data: pairs.map { DataItem($0.key, .string($0.value)) })
            used(suggested: id)
            run(.send(request), at: time)
        case .push:
            var ttl: Int64?
            let ttlText = form.value(.pushTTL)
            if !ttlText.isEmpty {
                ttl = DurationText.seconds(ttlText)
                if ttl == nil {
                    form.fail(.pushTTL, "seconds or a duration such as 3d, or empty for 4 weeks")
                }
            }
            let target = form.value(.target)
            let named = form.value(.topicOrCondition)
            if target != "token", named.allSatisfy(\.isWhitespace) {
                form.fail(
                    .topicOrCondition,
                    target == "topic" ? "name the topic, such as news" : "such as 'news' in topics")
            }
            let pairs = form.dataPairs()
            let title = form.value(.notificationTitle)
            let body = form.value(.notificationBody)
            let notification = [KeyValue("title", title), KeyValue("body", body)].filter { !$0.value.isEmpty }
            if notification.isEmpty && pairs.isEmpty { form.error = "give a notification title or body, or data" }
            guard !form.hasErrors else { return [] }
            let sender = form.value(.sender)
            let id = form.value(.messageID)
            let priority = form.value(.priority)
            let collapse = form.value(.collapseKey)
            var request = DownstreamRequest(
                sender: sender, to: shown.issuedTokens[sender]?.last, messageID: id.isEmpty ? nil : id,
                data: pairs.map { KeyValue($0.key, $0.value) },
                notification: notification.isEmpty ? nil : notification, collapseKey: collapse.isEmpty ? nil : collapse,
                priority: priority == "default" ? nil : priority, timeToLive: ttl,
                deliveryReceiptRequested: form.value(.deliveryReceipt) == "yes",
                contentAvailable: form.value(.contentAvailable) == "yes",
                mutableContent: form.value(.mutableContent) == "yes")
            switch target {
            case "topic": request.to = TopicName.prefix + TopicName.bare(named)
            case "condition":
                request.to = nil
                request.condition = named
            default: break
            }
            used(suggested: id)
            run(.push(request), at: time)
        case .addSender:
            let id = form.value(.senderID)
            if id.isEmpty || !id.allSatisfy(\.isNumber) { form.fail(.senderID, "a sender id is digits only") }
            if shown.senders.contains(where: { $0.id == id }) { form.fail(.senderID, "already registered") }
            let key = form.value(.serverKey)
            if key.isEmpty { form.fail(.serverKey, "app servers need a key to authenticate") }
            guard !form.hasErrors else { return [] }
            let project = form.value(.project)
            run(.addSender(SenderConfig(id: id, key: key, project: project.isEmpty ? nil : project)), at: time)
        case .saveProfile:
            let path = form.value(.file)
            if path.isEmpty { form.fail(.file, "a file name is needed") }
            guard !form.hasErrors else { return [] }
            say("saved: fcm-device replay \(Self.homeShortened(path))")
            let engine = device
            let yaml = ProfileWriter.yaml(
                profile: profile, played: playedSteps, inputs: recording, resumedFrom: resumedFrom,
                webPush: { engine.webPushStep(for: $0) })
            // A file already there is replaced only when asked twice for the same path.
            let replacing = replaceConfirmed == path
            replaceConfirmed = nil
            return [.saveProfile(path: path, contents: yaml, replacing: replacing)]
        case .goToTime:
            goToTime(&form)
        case .topic:
            let topic = TopicName.bare(form.value(.topic))
            if let problem = TopicName.problem(topic) { form.fail(.topic, problem) }
            guard !form.hasErrors else { return [] }
            let sender = form.value(.sender)
            let subscribe = form.value(.change) == "subscribe"
            let command: PhoneCommand =
                subscribe ? .subscribe(topic: topic, sender: sender) : .unsubscribe(topic: topic, sender: sender)
            run(command, at: time)
        case .addDevice:
            submitAddDevice(&form, at: time)
        case .reinstallAs:
            let platform = Platform(rawValue: form.value(.platform)) ?? shown.platform
            let sdk = SDK(rawValue: form.value(.sdk)) ?? shown.settings.sdk
            if run(.reinstallAs(platform: platform, sdk: sdk), at: time) {
                afterSubmit =
                    "reinstalled as \(platform.rawValue)/\(sdk.rawValue): a new installation with new tokens; "
                    + "callbacks now carry \(Self.callbackFamily(platform)) names"
            }
        }
        return []
    }

    /// What the engine would refuse the phone shown (a web app's send or topics), said
    /// before a form is filled in for nothing.
    func refusalOnThePhoneShown(_ command: PhoneCommand) -> String? {
        DeviceEngine.refusal(command, on: shown.platform).map { "Refused: " + $0 }
    }

    /// Whose callback names a platform's app hears, for messages.
    static func callbackFamily(_ platform: Platform) -> String {
        switch platform {
        case .android: "Android"
        case .ios: "iOS"
        case .web: "web SDK"
        }
    }
}

extension TUIModel {
    /// A path with the home folder written `~`, so that the command it is part of fits.
    static func homeShortened(_ path: String) -> String {
        guard let home = ProcessInfo.processInfo.environment["HOME"], !home.isEmpty, home != "/",
            path.hasPrefix(home + "/")
        else { return path }
        return "~" + path.dropFirst(home.count)
    }
}
