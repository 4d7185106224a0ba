import Testing

@testable import ToolkitCLI
@testable import ToolkitCore

/// The settings for tests and benchmarks: read once, each checked, a bad one named (exit 78).
@Suite(.tags(.small)) struct DeveloperSettingsTests {
    static func settings(_ variables: [String: String]) throws(ToolError) -> DeveloperSettings {
        try DeveloperSettings(environment: ToolEnvironment(variables))
    }

    @Test func unsetOrEmptyIsWhatUsersGet() throws {
        let defaults = DeveloperSettings(settlePause: 1, requestTimeout: 30, tunnelsPlainHTTP: false, timeScale: 1)
        #expect(try Self.settings([:]) == defaults)
        #expect(try Self.settings(["SPOTIFY_TOOLKIT_TIME_SCALE": "", "SPOTIFY_TOOLKIT_PROXY_TUNNEL": ""]) == defaults)
    }

    @Test func eachVariableSetsItsOwnSetting() throws {
        let settings = try Self.settings([
            "SPOTIFY_TOOLKIT_SETTLE_PAUSE": "0.05", "SPOTIFY_TOOLKIT_REQUEST_TIMEOUT": "2",
            "SPOTIFY_TOOLKIT_PROXY_TUNNEL": "1", "SPOTIFY_TOOLKIT_TIME_SCALE": "60",
        ])
        #expect(
            settings == DeveloperSettings(settlePause: 0.05, requestTimeout: 2, tunnelsPlainHTTP: true, timeScale: 60))
        #expect(try Self.settings(["SPOTIFY_TOOLKIT_SETTLE_PAUSE": "0"]).settlePause == 0)
        #expect(try Self.settings(["SPOTIFY_TOOLKIT_PROXY_TUNNEL": "0"]).tunnelsPlainHTTP == false)
        #expect(try Self.settings(["SPOTIFY_TOOLKIT_TIME_SCALE": " 10000 "]).timeScale == 10_000)
    }

    @Test(arguments: [
        ("SPOTIFY_TOOLKIT_SETTLE_PAUSE", ["-1", "61", "nan", "inf", "soon"]),
        ("SPOTIFY_TOOLKIT_REQUEST_TIMEOUT", ["0", "-2", "301", "1e9", "nan", "2s"]),
        ("SPOTIFY_TOOLKIT_TIME_SCALE", ["0", "-1", "nan", "inf", "1e9", "x"]),
        ("SPOTIFY_TOOLKIT_PROXY_TUNNEL", ["yes", "2", "true"]),
    ])
    func aBadValueIsAConfigurationErrorNamingTheVariable(variable: String, values: [String]) {
        for value in values {
            let error = #expect(throws: ToolError.self) { try Self.settings([variable: value]) }
            #expect(error?.exitCode == .config, "\(variable)=\(value)")
            #expect(error?.message.hasPrefix("\(variable) must be ") == true, "\(error?.message ?? "")")
            #expect(error?.message.hasSuffix("not '\(value)'") == true, "\(error?.message ?? "")")
        }
    }
}

/// The runner reads them before the command runs, so a bad one stops every tool at once.
@Suite(.tags(.medium)) struct DeveloperSettingsRunTests {
    @Test func aBadValueStopsAToolBeforeItReadsAnything() async throws {
        let run = try await InProcess.run(
            "songcount", [], stdin: #"{"duration_ms":180000}"# + "\n",
            environment: ["SPOTIFY_TOOLKIT_SETTLE_PAUSE": "soon"])
        #expect(run.status == 78)
        #expect(run.stdout.isEmpty)
        #expect(
            run.stderr
                == "songcount: SPOTIFY_TOOLKIT_SETTLE_PAUSE must be a number of seconds from 0 to 60, such as 0.05, "
                + "not 'soon'\n")
        let fine = try await InProcess.run(
            "songcount", [], stdin: #"{"duration_ms":180000}"# + "\n",
            environment: ["SPOTIFY_TOOLKIT_SETTLE_PAUSE": "0.05"])
        #expect(fine.status == 0, "\(fine.stderr)")
    }
}
