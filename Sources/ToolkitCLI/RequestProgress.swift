import ToolkitCore

/// "12/98 requests" on stderr while a write is sent, redrawn from the run's request count
/// (`ToolContext.requestsSent`) ten times a second and cleared before anything else is said: a
/// long sort or add is not silent for minutes. A `ProgressLine`, so only where one may be drawn;
/// the count includes the reads that prove the write, and stops at the planned total.
package struct RequestProgress {
    private let drawing: Task<Void, Never>

    /// `planned`: the write's requests; plans of a page or less (`shownAbove`) draw nothing.
    package init(_ context: ToolContext, planned: Int, shownAbove: Int = 3) {
        let (enabled, stderr, clock) = (ProgressLine.mayDraw(context), context.stderr, context.clock)
        let sent = context.requestsSent
        let start = sent.withLock { $0 }
        drawing = Task {
            let line = ProgressLine(
                enabled: enabled, stderr: stderr, clock: clock, noun: "requests", shownAbove: shownAbove)
            while !Task.isCancelled {
                line.update(done: min(max(0, sent.withLock { $0 } - start), planned), total: planned)
                try? await Task.sleep(nanoseconds: 100_000_000)
            }
            line.clear()
        }
    }

    /// Stops drawing and clears the line; call before saying anything on stderr.
    package func end() async {
        drawing.cancel()
        await drawing.value
    }
}
