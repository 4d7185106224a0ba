import Testing

// Every suite carries one size (docs/ARCHITECTURE.md, "Tests"); SizeTagTests checks it.
// `swift test` cannot select by tag (Swift Testing's --filter matches test IDs only), so
// `make test-small` and `make test-medium` turn the tags into an ID filter (scripts/test-size.sh).
extension Tag {
    /// Pure: values in, values out; no files, sockets, clock or processes.
    @Tag package static var small: Self
    /// In this process, with I/O: files, loopback sockets, fake-spotify in process (`InProcessFake`).
    @Tag package static var medium: Self
    /// Spawns processes: the built tools, fake-spotify, shells.
    @Tag package static var large: Self
}
