import Testing

@testable import ToolkitCLI
@testable import ToolkitCore
@testable import Tools

/// routine-link's options, read and checked before any routine is: each family's usage errors.
@Suite(.tags(.small)) struct RoutineLinkOptionsTests {
    func parsed(_ arguments: [String]) throws -> ParsedCommand {
        try CommandLineParser.parse(arguments, spec: RoutineLink.spec)
    }

    func usageMessage(_ body: () throws -> Void) -> String? {
        do {
            try body()
            return nil
        } catch let error as ToolError {
            return error.exitCode == .usage ? error.message : "exit \(error.exitCode.rawValue): \(error.message)"
        } catch {
            return "\(error)"
        }
    }

    @Test func addAndEditCheckTheirDurationsAndAskForAChange() throws {
        let add = try RoutineLink.AddOptions(parsed(["add", "m", "--duration", "15m", "--note", "n", "--json"]))
        #expect(add.name == "m" && add.durationMs == 900_000 && add.note == "n" && add.json)
        #expect(
            usageMessage { _ = try RoutineLink.AddOptions(parsed(["add", "m", "--duration", "0s"])) }
                == "--duration must be longer than 0")
        let edit = try RoutineLink.EditOptions(parsed(["edit", "m", "--duration", "none", "--note", " "]))
        #expect(edit.change == RoutineEdit(durationMs: .clear, note: .clear))
        #expect(
            usageMessage { _ = try RoutineLink.EditOptions(parsed(["edit", "m", "-d", "5m", "--no-duration"])) }
                == "--duration and --no-duration cannot be used together")
        #expect(
            usageMessage { _ = try RoutineLink.EditOptions(parsed(["edit", "m"])) }?.hasPrefix("nothing to change")
                == true)
    }

    @Test func startAndRunTakeADeviceOnlyWithPlay() throws {
        let run = try RoutineLink.RunOptions(parsed(["run", "m", "--for", "90s", "--play", "--device", "Kitchen"]))
        #expect(run.watchMs == 90_000 && run.playback.play && run.playback.device == "Kitchen" && !run.json)
        #expect(
            usageMessage { _ = try RoutineLink.StartOptions(parsed(["start", "m", "--device", "Kitchen"])) }
                == "--device goes with --play (it names the device to play on)")
        #expect(
            usageMessage { _ = try RoutineLink.RunOptions(parsed(["run", "m", "--for", "0s"])) }
                == "--for must be longer than 0")
    }

    @Test func fitChoosesFromOneSourceAndNamesItsPlaylist() throws {
        let fit = try RoutineLink.FitOptions(parsed(["fit", "m", "--liked", "--name", "Fifteen"]))
        #expect(fit.from == nil && fit.playlistName == "Fifteen")
        #expect(
            usageMessage { _ = try RoutineLink.FitOptions(parsed(["fit", "m"])) }
                == "fit chooses from one source: --from PLAYLIST or --liked")
        #expect(
            usageMessage { _ = try RoutineLink.FitOptions(parsed(["fit", "m", "--from", "x", "--liked"])) }
                == "fit chooses from one source: --from PLAYLIST or --liked")
        #expect(
            usageMessage { _ = try RoutineLink.FitOptions(parsed(["fit", "m", "--liked", "--name", ""])) }
                == "--name must not be empty")
    }

    @Test func linkTellsAnArgumentFromStandardInput() throws {
        let given = try RoutineLink.LinkOptions(parsed(["link", "m", "spotify:playlist:3cEYpjA9oz9GiPac4AsH4n"]))
        #expect(given.playlist == "spotify:playlist:3cEYpjA9oz9GiPac4AsH4n" && !given.saysStandardInput)
        let dash = try RoutineLink.LinkOptions(parsed(["link", "m", "-"]))
        #expect(dash.playlist == nil && dash.saysStandardInput)
        let none = try RoutineLink.LinkOptions(parsed(["link", "m"]))
        #expect(none.playlist == nil && !none.saysStandardInput)
    }
}

@Suite(.tags(.small)) struct FittedTableTests {
    @Test func columnsAreAsWideAsTheirWidestCellAndLinesEndWithoutSpaces() {
        let table = TextTable.fitted(header: ["NAME", "NOTE"], rows: [["morning", ""], ["a", "stretch"]])
        #expect(table == "NAME     NOTE\nmorning\na        stretch\n")
    }

    @Test func trailingSpacesGoAndOtherSpacesStay() {
        #expect("a b  ".trimmingTrailingSpaces() == "a b")
        #expect("   ".trimmingTrailingSpaces() == "")
        #expect(" a\t".trimmingTrailingSpaces() == " a\t")
    }
}
