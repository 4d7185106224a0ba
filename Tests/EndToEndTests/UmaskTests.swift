import Foundation
import Testing

/// Whatever the umask, nothing the tools create is wider than 0700 (directories, missing parents
/// included) or 0600 (files). Tried in a shell of its own: the umask belongs to a process, and
/// this test process creates directories in many tests at once.
@Suite(.tags(.large)) struct UmaskTests {
    func mode(_ path: String) -> Int {
        ((try? FileManager.default.attributesOfItem(atPath: path)[.posixPermissions]) as? Int) ?? -1
    }

    @Test func aPermissiveUmaskMakesNothingWider() throws {
        let home = try TemporaryDirectory()
        let data = home.path + "/deep/data"  // two missing parents
        let record = #"{"type":"track","uri":"spotify:track:4iV5W9uYEdYUVa79Axb7Rh","name":"x","duration_ms":1000}"#
        let result = try ToolProcess.shell(
            "umask 000; echo '\(record)' | spotify-playlists local create Mix && routine-link add morning",
            environment: ["XDG_DATA_HOME": data])
        #expect(result.status == 0, "\(result.stderr)")
        for directory in [home.path + "/deep", data, data + "/spotify-toolkit"] {
            #expect(mode(directory) == 0o700, "\(directory)")
        }
        for file in ["local-playlists.json", "routines.json"] {
            #expect(mode(data + "/spotify-toolkit/" + file) == 0o600, "\(file)")
        }
    }
}
