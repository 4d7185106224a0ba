import ToolkitCore

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A table for people on a terminal, written row by row (a 10,000-row playlist streams like its
/// JSON Lines do). Column widths are fixed up front: fixed columns get their width, flexible ones
/// share what is left of the terminal; longer cells are cut with "…".
package struct TextTable: Sendable {
    package enum Alignment: Sendable { case left, right }

    package struct Column: Sendable {
        package var title: String
        package var alignment: Alignment
        /// nil: flexible, sharing the remaining width by `weight`.
        package var width: Int?
        package var weight: Int

        package static func fixed(_ title: String, width: Int, alignment: Alignment = .left) -> Column {
            Column(title: title, alignment: alignment, width: max(width, DisplayWidth.of(title)), weight: 0)
        }

        package static func flexible(_ title: String, weight: Int = 1) -> Column {
            Column(title: title, alignment: .left, width: nil, weight: max(weight, 1))
        }
    }

    package let columns: [Column]
    /// The resolved width of each column.
    package let widths: [Int]
    static let gap = "  "
    static let minimumFlexibleWidth = 8

    package init(_ columns: [Column], totalWidth: Int) {
        self.columns = columns
        let fixed = columns.compactMap(\.width).reduce(0, +)
        let gaps = Self.gap.count * max(columns.count - 1, 0)
        let weights = columns.filter { $0.width == nil }.map(\.weight).reduce(0, +)
        let spare = max(totalWidth - fixed - gaps, 0)
        widths = columns.map { column in
            if let width = column.width { return width }
            return max(Self.minimumFlexibleWidth, spare * column.weight / max(weights, 1))
        }
    }

    package var header: String { line(columns.map(\.title)) }

    /// One row; cells beyond the columns are ignored, missing ones are blank.
    package func line(_ cells: [String]) -> String {
        var parts: [String] = []
        for (index, column) in columns.enumerated() {
            let cell = index < cells.count ? Self.clean(cells[index]) : ""
            let width = widths[index]
            // Columns on the screen, not characters: a CJK name takes two per character.
            let cut =
                DisplayWidth.of(cell) > width ? DisplayWidth.prefix(cell, fitting: max(width - 1, 0)) + "…" : cell
            let padding = String(repeating: " ", count: max(width - DisplayWidth.of(cut), 0))
            let isLast = index == columns.count - 1
            switch column.alignment {
            case .left: parts.append(isLast ? cut : cut + padding)
            case .right: parts.append(padding + cut)
            }
        }
        return parts.joined(separator: Self.gap)
    }

    /// Control characters (a newline in a name) would break the layout; the core's sanitiser is
    /// the one place that decides what is unsafe.
    package static func clean(_ text: String) -> String {
        TerminalText.clean(text)
    }

    /// The terminal's width: `COLUMNS`, else the window size of `output` (the run's stdout), else 80.
    static func terminalWidth(environment: ToolEnvironment, output: Int32) -> Int {
        if let text = environment["COLUMNS"], let columns = Int(text), columns > 0, columns < 10_000 { return columns }
        var size = winsize()
        if ioctl(output, UInt(TIOCGWINSZ), &size) == 0, size.ws_col > 0 { return Int(size.ws_col) }
        return 80
    }
}

/// "1,250/10,000 items" on stderr, redrawn in place and cleared at the end, for long fetches.
/// Drawn only when it cannot glue itself into another tool's output: stderr is a terminal and
/// stdout is a terminal or a regular file. When stdout is a pipe, the reader downstream (`| jq
/// -r .name | head`) writes to the same terminal at any moment, and a line redrawn with `\r`
/// would run into its output. Never in logs or CI. A signal that ends the run clears the line
/// first, so the shell's prompt does not follow a half-drawn count.
package final class ProgressLine {
    let enabled: Bool
    let noun: String
    let shownAbove: Int
    let stderr: DiagnosticStream
    let clock: @Sendable () -> Double
    private var lastDraw = 0.0
    private var drawn = false

    /// `shownAbove`: totals up to this (one page) never show a line.
    package convenience init(_ context: ToolContext, noun: String = "items", shownAbove: Int) {
        self.init(
            enabled: Self.mayDraw(context), stderr: context.stderr, clock: context.clock, noun: noun,
            shownAbove: shownAbove)
    }

    init(
        enabled: Bool, stderr: DiagnosticStream, clock: @escaping @Sendable () -> Double, noun: String,
        shownAbove: Int
    ) {
        self.enabled = enabled
        self.stderr = stderr
        self.clock = clock
        self.noun = noun
        self.shownAbove = shownAbove
    }

    /// Whether this run's streams let a line be drawn (see the type's comment).
    static func mayDraw(_ context: ToolContext) -> Bool {
        context.terminal.stderrIsTerminal
            && (context.terminal.stdoutIsTerminal || DescriptorKind(context.stdout.fileDescriptor) == .regularFile)
    }

    /// Redraws at most ten times a second; lists that fit in one page never show a line.
    /// `lists`: for a run over several lists, how many are done of how many
    /// ("3,250/21,898 items, 14/151 playlists").
    package func update(done: Int, total: Int, lists: (done: Int, total: Int, noun: String)? = nil) {
        guard enabled, total > shownAbove else { return }
        let now = clock()
        guard now - lastDraw >= 0.1 || done >= total else { return }
        lastDraw = now
        if !drawn { ProgressClearing.arm(stderr.fileDescriptor) }
        drawn = true
        var text = "\(groupedThousands(done))/\(groupedThousands(total)) \(noun)"
        if let lists, lists.total > 1 {
            text += ", \(groupedThousands(lists.done))/\(groupedThousands(lists.total)) \(lists.noun)"
        }
        stderr.write("\r" + text + "\u{1B}[K")
    }

    package func clear() {
        guard drawn else { return }
        drawn = false
        stderr.write("\r\u{1B}[K")
    }
}

/// Clears a drawn progress line when SIGINT, SIGTERM or SIGHUP ends the run, then lets the
/// signal end it as it would have. Armed once, and only for a real terminal (never in a test
/// process, whose stderr is a file). The handler only writes and re-raises: both are
/// async-signal-safe.
enum ProgressClearing {
    nonisolated(unsafe) static var fileDescriptor: Int32 = -1
    static let armed = Locked(false)

    static func arm(_ fileDescriptor: Int32) {
        guard isatty(fileDescriptor) == 1 else { return }
        let first = armed.withLock { armed -> Bool in
            defer { armed = true }
            return !armed
        }
        guard first else { return }
        Self.fileDescriptor = fileDescriptor
        for number in [SIGINT, SIGTERM, SIGHUP] {
            let previous = signal(number, clearProgressThenDie)
            // Ignored, or someone else's handler (a deferral, the watch's stop): leave it alone.
            if let previous, unsafeBitCast(previous, to: Int.self) != unsafeBitCast(SIG_DFL, to: Int.self) {
                signal(number, previous)
            }
        }
    }
}

private func clearProgressThenDie(_ number: Int32) {
    let clear: [UInt8] = [13, 27, 91, 75]  // "\r\e[K"
    _ = clear.withUnsafeBytes { write(ProgressClearing.fileDescriptor, $0.baseAddress, 4) }
    signal(number, SIG_DFL)
    kill(getpid(), number)
}
