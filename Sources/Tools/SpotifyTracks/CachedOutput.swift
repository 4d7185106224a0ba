import SpotifyClient
import ToolkitCore

extension SpotifyTracks.Output {
    /// Writes a cached copy's lines as JSON Lines: the stored record (or, with --raw, the stored
    /// entry) bytes as they are, kept or skipped by kind like `write(_:)` does with pages.
    mutating func write(kind: PlaylistEntry.Kind, record: UnsafeRawBufferPointer, entry: UnsafeRawBufferPointer) throws
    {
        if kind == .unavailable && !selection.raw { unavailable += 1 }
        guard selection.keeps(kind) else { return }
        if let export {
            try export.write(recordBytes: record)
        } else {
            try context.stdout.writeLine(selection.raw ? entry : record)
        }
        written += 1
    }
}
