import Testing

@testable import HTTPClient
@testable import LoopbackHTTP
@testable import SpotifyClient
@testable import ToolkitCLI
@testable import ToolkitCore
@testable import Tools

@Suite(.tags(.small)) struct ExitCodeTests {
    @Test func exitCodesFollowSysexits() {
        #expect(ExitCode.usage.rawValue == 64)
        #expect(ExitCode.dataError.rawValue == 65)
        #expect(ExitCode.noPermission.rawValue == 77)
        #expect(ExitCode.config.rawValue == 78)
        #expect(ToolError.usage("x").showsUsageHint)
        #expect(!ToolError.dataError("x").showsUsageHint)
    }
}
