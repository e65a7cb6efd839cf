import CTerminalSignals
import FCMDoor
import FCMEngine
import FCMProfiles
import FCMTerminalUI
import Foundation

/// Runs the TUI: the engine on the real clock, keys in, frames out. It redraws
/// only when something changed, and sleeps until the next key, the next thing the
/// engine has scheduled, or the next second of the header clock.
public enum TUIRunner {
    /// Runs until the user quits (returns 0) or a termination signal arrives
    /// (returns 128 plus its number); the terminal is restored either way.
    /// With a `door` (a served session's), app servers' traffic shows up as it
    /// happens and the TUI's actions reach them; without, the TUI runs the device
    /// itself. `saveFolder` is where `w` offers to save the session.
    /// `note` is said in the status line as the screen opens.
    public static func run(
        profile: Profile, door: (any DeviceDoor)? = nil, saveFolder: String? = nil, note: String? = nil
    ) -> Int32 {
        // Without a served session, the TUI runs one itself on the real clock.
        let door = door ?? SessionDoor.own(starting: profile.configuration, time: .real)
        var model = TUIModel(profile: profile, door: door)
        if let saveFolder { model.setSaveFolder(saveFolder) }
        if let note { model.note(note) }
        return run(model, clock: door.clock, listening: door.summary != nil)
    }

    /// Play mode: `profile`'s timeline in the TUI on a virtual clock, paused at +0.
    public static func run(playing profile: Profile, saveFolder: String? = nil) -> Int32 {
        var model = TUIModel(playing: profile)
        if let saveFolder { model.setSaveFolder(saveFolder) }
        return run(model, clock: nil, listening: false)
    }

    /// `clock` is the session's, when it keeps its own (on the real time); without
    /// one (play mode) the runner keeps a real clock for the model's. `listening`: the
    /// session has listeners, whose traffic arrives without a key.
    static func run(_ start: TUIModel, clock sessionClock: SessionClock?, listening: Bool) -> Int32 {
        let useColor = ProcessInfo.processInfo.environment["NO_COLOR"].map(\.isEmpty) ?? true
        let screen = CursesScreen(useColor: useColor)
        defer { screen.close() }
        var model = start
        let clock = sessionClock ?? SessionClock()
        func elapsed() -> Millis { clock.now }
        var dirty = true
        while true {
            let signal = fcm_termination_signal()
            if signal != 0 { return 128 + signal }
            let realNow = elapsed()
            if model.tick(now: realNow) { dirty = true }
            if dirty {
                model.setScreenHeight(screen.height)
                screen.paint(View.render(model, width: screen.width, height: screen.height))
                dirty = false
            }
            let nextSecond = 1_000 - (realNow % 1_000)
            let nextEvent = model.nextWake.map { max(1, $0 - realNow) } ?? nextSecond
            // Network traffic arrives without a key press: look at least 10 times a second.
            var timeout = Int(min(nextSecond, nextEvent, listening ? 100 : Millis.max))
            // A virtual clock moves by real time between ticks: play smoothly.
            if model.hasVirtualClock { timeout = model.isPlaying ? 50 : 250 }
            guard let input = screen.readKey(timeout: timeout) else {
                dirty = realNow / 1_000 != elapsed() / 1_000 || dirty
                continue
            }
            dirty = true
            switch input {
            case .resize:
                screen.measure()
                screen.invalidate()
            case .key(let key):
                var effects: [Effect] = []
                let at = elapsed()
                // The session's effects performed by the model's door; the rest here.
                effects = model.press(key, at: at)
                for effect in effects {
                    switch effect {
                    case .submit, .moveSessionClock: break
                    case .quit: return 0
                    case .moveClock(let span): clock.moveOn(by: span)
                    case .copyToClipboard(let text): screen.copyToClipboard(text)
                    case .writeFile(let path, let contents):
                        do {
                            try contents.write(toFile: path, atomically: true, encoding: .utf8)
                        } catch {
                            model.report("could not write \(path): \(error.localizedDescription)")
                        }
                    case .saveProfile(let path, let contents, let replacing):
                        if !replacing, FileManager.default.fileExists(atPath: path) {
                            model.saveFound(existing: path)
                            continue
                        }
                        do {
                            let folder = URL(fileURLWithPath: path).deletingLastPathComponent()
                            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
                            try contents.write(toFile: path, atomically: true, encoding: .utf8)
                        } catch {
                            model.report("could not write \(path): \(error.localizedDescription)")
                        }
                    }
                }
            }
        }
    }
}
