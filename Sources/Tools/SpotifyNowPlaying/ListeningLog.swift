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
/// watch) holds the lock beside it while it reads what the log holds (the watch: what was appended
/// since its last add) and appends what it lacks, so writers at once never add one play twice.
/// Nothing trims it: it grows with the user's listening.
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
        try scan(try log.lines(), after: 0, skippingDamaged: skippingDamaged)
    }

    /// `lines` as entries, numbered from `after + 1` (`entries` says what a damaged line does).
    func scan(_ lines: [Substring], after: Int, skippingDamaged: Bool) throws -> (entries: [Entry], damaged: Int) {
        var entries: [Entry] = []
        var damaged = 0
        for (index, line) in lines.enumerated() {
            var bytes = line
            let fields = bytes.withUTF8 { try? PlayRecordFields.extract(from: UnsafeRawBufferPointer($0)) }
            guard let fields, let playedAt = fields.playedAt, let time = parseISOTimestamp(playedAt) else {
                if skippingDamaged {
                    damaged += 1
                    continue
                }
                throw ToolError.dataError(
                    """
                    \(path): line \(after + index + 1): not a played record with a played_at time; the log was left \
                    as it is (correct or delete that line)
                    """
                )
            }
            entries.append(Entry(number: after + index + 1, line: line, fields: fields, time: time))
        }
        return (entries, damaged)
    }

    /// The plays a writer knows the log holds, and how far it has read it. A long-lived writer (the
    /// watch) keeps one between adds, so each add reads only what was appended since the last one,
    /// by itself or any other process; a log replaced or cut short is read whole again.
    struct Known {
        var plays = ListeningHistory.PlayIndex()
        var position: AppendLog.Position?
        /// The log's lines read so far (what a damaged line's number counts from).
        var lines = 0
        /// Plays that ended before this are read but not kept: a writer that adds only plays ending
        /// later than a minute after it (the watch) never matches them, and need not hold years of them.
        var keepingFrom = -Double.infinity
        /// The log ended in a line without its newline at the last read (it is known, not counted
        /// as read: the next read begins with it).
        var unterminated = false

        /// Reads what the log gained since the last call (all of it the first time). Nothing
        /// changes when it throws: a damaged line (unless `skippingDamaged`) or a failed read.
        mutating func catchUp(_ log: ListeningLog, skippingDamaged: Bool) throws {
            let appended = try log.log.lines(after: position)
            let after = appended.restarted ? 0 : lines
            // The unterminated line is checked and known as `entries` has it, though read again next time.
            let scanned = try log.scan(
                appended.lines + (appended.unterminated.map { [$0] } ?? []), after: after,
                skippingDamaged: skippingDamaged
            ).entries
            if appended.restarted { plays = ListeningHistory.PlayIndex() }
            for entry in scanned {
                if let play = ListeningHistory.Play(entry.fields), play.time >= keepingFrom { plays.insert(play) }
            }
            position = appended.position
            lines = after + appended.lines.count
            unterminated = appended.unterminated != nil
        }
    }

    /// Appends the records of `batches` the log does not hold yet (`ListeningHistory.newRecords`),
    /// under the log's lock. Returns how many were added and how many it held already.
    /// `skippingDamaged`: a damaged line does not stop the write (the watch must not lose a play
    /// to it); otherwise it is an error and nothing is written.
    func add(_ batches: [[JSONObject]], skippingDamaged: Bool = false) throws -> (added: Int, known: Int) {
        var known = Known()
        return try add(batches, skippingDamaged: skippingDamaged, known: &known)
    }

    /// `add`, reading only what the log gained since `known` was last brought up to date (what
    /// this add writes is read back at the next, like any other writer's lines).
    func add(
        _ batches: [[JSONObject]], skippingDamaged: Bool = false, known: inout Known
    ) throws -> (added: Int, known: Int) {
        try log.directory.create()
        return try lock.withLockBlocking {
            try known.catchUp(self, skippingDamaged: skippingDamaged)
            let (new, already) = ListeningHistory.newRecords(batches, known: known.plays)
            var lines = new.map { JSONValue.object($0).serialized() }
            // A line someone left without its newline must not swallow the first one added.
            if known.unterminated, !lines.isEmpty { lines[0] = "\n" + lines[0] }
            try append(lines)
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
    /// What the log holds, read once and then only what is appended (a log of years of listening
    /// must not be read whole at every song's end).
    var known = ListeningLog.Known()
    var failed = false

    init(log: ListeningLog) {
        self.log = log
    }

    static let keptBeforeStart = 86_400.0

    mutating func observe(_ record: NowPlayingRecord, at time: Double, _ context: ToolContext) {
        // What the watch adds ends after it began, and matches only plays a minute from it: the
        // log's older plays need not be kept (a day of margin, for the clocks' disagreements).
        if known.keepingFrom == -.infinity { known.keepingFrom = time - Self.keptBeforeStart }
        guard !record.final, let played = playedThrough.observe(record.observation, at: time) else { return }
        do {
            _ = try log.add([[played]], skippingDamaged: true, known: &known)
        } catch {
            if !failed {
                let message = (error as? ToolError)?.message ?? "\(error)"
                context.warn("cannot add what plays to the listening log (the watch goes on): \(message)")
            }
            failed = true
        }
    }
}
