import CTerminalSignals
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
    public static func run(profile: Profile) -> Int32 {
        let useColor = ProcessInfo.processInfo.environment["NO_COLOR"].map(\.isEmpty) ?? true
        let screen = CursesScreen(useColor: useColor)
        defer { screen.close() }
        var model = TUIModel(profile: profile)
        let clock = ContinuousClock()
        let started = clock.now
        func elapsed() -> Millis {
            let span = clock.now - started
            return span.components.seconds * 1_000 + span.components.attoseconds / 1_000_000_000_000_000
        }
        var dirty = true
        while true {
            let signal = fcm_termination_signal()
            if signal != 0 { return 128 + signal }
            let realNow = elapsed()
            if model.tick(realElapsed: realNow) { dirty = true }
            if dirty {
                screen.paint(View.render(model, width: screen.width, height: screen.height))
                dirty = false
            }
            let nextSecond = 1_000 - (realNow % 1_000)
            let nextEvent = model.nextWake(realElapsed: realNow).map { max(1, $0 - realNow) } ?? nextSecond
            let timeout = Int(min(nextSecond, nextEvent))
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
                let effects = model.handle(key, at: elapsed() + model.clockOffset)
                for effect in effects {
                    switch effect {
                    case .quit: return 0
                    case .copyToClipboard(let text): screen.copyToClipboard(text)
                    case .writeFile(let path, let contents):
                        do {
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
