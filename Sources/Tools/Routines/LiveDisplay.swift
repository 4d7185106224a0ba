import SpotifyClient
import ToolkitCLI
import ToolkitCore

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// The current song and the running count on stderr, redrawn in place, when stderr is a
/// terminal. Fed the watch's now_playing records as they pass through routine-link.
final class LiveDisplay: Sendable {
    let enabled: Bool
    let stderr: DiagnosticStream
    /// The user's time zone, for the time of each line.
    let zone: LocalZone
    private let state = Locked(State())

    private struct State {
        var counter = SongCounter()
        var drawn = false
    }

    init(enabled: Bool, stderr: DiagnosticStream, zone: LocalZone = .system) {
        self.zone = zone
        self.enabled = enabled
        self.stderr = stderr
    }

    func show(_ line: String) {
        guard enabled, let record = try? JSONValue.parse(line), record.objectValue != nil else { return }
        let text: String = state.withLock { state in
            var bytes = Array(line.utf8)
            if let fields = bytes.withUnsafeBytes({ try? SongRecordFields.extract(from: $0) }), fields.isSong,
                let duration = fields.durationMs, duration > 0
            {
                state.counter.add(
                    SongObservation(
                        key: fields.songKey, durationMs: duration, progressMs: fields.progressMs,
                        isPlaying: fields.isPlaying ?? true))
            }
            bytes.removeAll()
            state.drawn = true
            return (NowPlayingRecord(reading: record)?.timedHumanLine(in: zone) ?? "") + " · "
                + songLabel(state.counter.result.songs)
                + " so far"
        }
        stderr.write("\r\(TerminalText.clean(String(text.prefix(200))))\u{1B}[K")
    }

    func clear() {
        if state.withLock({ $0.drawn }) { stderr.write("\r\u{1B}[K") }
    }
}
