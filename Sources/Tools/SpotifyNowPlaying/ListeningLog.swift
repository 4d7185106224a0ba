import SpotifyClient
import ToolkitCLI
import ToolkitCore

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The listening log: `played` records, one a line, in
/// `$XDG_DATA_HOME/spotify-toolkit/listening-log.jsonl` (0600; `AppendLog` writes each batch with
/// one write on an O_APPEND descriptor). Whoever adds plays (history sync, history import, the
/// watch) holds the lock beside it while it reads what the log holds and appends what it lacks, so
/// writers at once never add one play twice. Nothing trims it: it grows with the user's listening.
struct ListeningLog {
    static let fileName = "listening-log.jsonl"

    let log: AppendLog
    let lock: InterProcessLock

    init(environment: ToolEnvironment) {
        let directory = PrivateDirectory(environment.dataDirectory)
        log = AppendLog(directory: directory, name: Self.fileName)
        lock = InterProcessLock(path: directory.file(Self.fileName + ".lock"))
    }

    var path: String { log.path }

    /// One line of the log, read back: what telling plays apart needs, scanned (not parsed).
    struct Entry {
        var number: Int
        var line: Substring
        var fields: PlayRecordFields
        var time: Double
    }

    /// Every line of the log, in the order written. A line that is not a played record with a
    /// played_at time is an error naming the file and line (65), unless `skippingDamaged`: then it
    /// is left out and counted. The file itself is never changed here.
    func entries(skippingDamaged: Bool = false) throws -> (entries: [Entry], damaged: Int) {
        var entries: [Entry] = []
        var damaged = 0
        for (index, line) in try log.lines().enumerated() {
            var bytes = line
            let fields = bytes.withUTF8 { try? PlayRecordFields.extract(from: UnsafeRawBufferPointer($0)) }
            guard let fields, let playedAt = fields.playedAt, let time = parseISOTimestamp(playedAt) else {
                if skippingDamaged {
                    damaged += 1
                    continue
                }
                throw ToolError.dataError(
                    """
                    \(path): line \(index + 1): not a played record with a played_at time; the log was left as it is \
                    (correct or delete that line)
                    """
                )
            }
            entries.append(Entry(number: index + 1, line: line, fields: fields, time: time))
        }
        return (entries, damaged)
    }

    /// Appends the records of `batches` the log does not hold yet (`ListeningHistory.newRecords`),
    /// under the log's lock. Returns how many were added and how many it held already.
    /// `skippingDamaged`: a damaged line does not stop the write (the watch must not lose a play
    /// to it); otherwise it is an error and nothing is written.
    func add(_ batches: [[JSONObject]], skippingDamaged: Bool = false) throws -> (added: Int, known: Int) {
        try log.directory.create()
        return try lock.withLockBlocking {
            let held = try entries(skippingDamaged: skippingDamaged).entries
            let known = ListeningHistory.PlayIndex(held.compactMap { ListeningHistory.Play($0.fields) })
            let (new, already) = ListeningHistory.newRecords(batches, known: known)
            try append(new.map { JSONValue.object($0).serialized() })
            return (new.count, already)
        }
    }

    /// Writes `lines` in writes of about a megabyte, each whole lines.
    func append(_ lines: [String]) throws {
        var chunk = ""
        for line in lines {
            if !chunk.isEmpty { chunk += "\n" }
            chunk += line
            if chunk.utf8.count >= 1 << 20 {
                try log.append(chunk)
                chunk = ""
            }
        }
        if !chunk.isEmpty { try log.append(chunk) }
    }

    /// The newest played_at a sync took from Spotify: everything Spotify listed up to then is in
    /// the log already. nil when no sync has run.
    static func syncedUntil(_ entries: [Entry]) -> Double? {
        entries.filter { $0.fields.loggedFrom == ListeningHistory.Origin.recentlyPlayed.rawValue }.map(\.time).max()
    }

    /// A file named on the command line, read whole: missing or unreadable is 66.
    static func readFile(_ path: String) throws -> [UInt8] {
        let descriptor = try InputFile.openForReading(path)
        defer { close(descriptor) }
        var data: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 1 << 16)
        while true {
            let count = buffer.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
            if count < 0 && errno == EINTR { continue }
            if count < 0 { throw ToolError.noInput("cannot read '\(path)': \(systemErrorMessage(errno))") }
            if count == 0 { break }
            data.append(contentsOf: buffer[0..<count])
        }
        return data
    }
}

/// The watch's part in the log: each song it sees played to its end is added as it ends. A log
/// that cannot be written is said once on stderr; the watch goes on.
struct WatchLog {
    let log: ListeningLog
    var playedThrough = ListeningHistory.PlayedThrough()
    var failed = false

    init(log: ListeningLog) {
        self.log = log
    }

    mutating func observe(_ record: NowPlayingRecord, at time: Double, _ context: ToolContext) {
        guard !record.final, let played = playedThrough.observe(record.observation, at: time) else { return }
        do {
            _ = try log.add([[played]], skippingDamaged: true)
        } catch {
            if !failed {
                let message = (error as? ToolError)?.message ?? "\(error)"
                context.warn("cannot add what plays to the listening log (the watch goes on): \(message)")
            }
            failed = true
        }
    }
}
