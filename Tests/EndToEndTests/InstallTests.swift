import Foundation
import HTTPClient
import LoopbackHTTP
import SpotifyClient
import Testing
import ToolkitCLI
import ToolkitCore
import Tools

/// `make install` puts each shipped tool, its man page and its three completion scripts where
/// each program looks for them; `make uninstall` removes exactly that. Uses the debug build the
/// tests already have (the `install-files` half of `make install`).
@Suite struct InstallTests {
    static let repositoryRoot = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent().path

    func files(under root: String) -> Set<String> {
        let enumerator = FileManager.default.enumerator(atPath: root)
        var result = Set<String>()
        while let path = enumerator?.nextObject() as? String {
            var isDirectory: ObjCBool = false
            if FileManager.default.fileExists(atPath: root + "/" + path, isDirectory: &isDirectory),
                !isDirectory.boolValue
            {
                result.insert(path)
            }
        }
        return result
    }

    @Test func installsTheShippedToolsAndUninstallRemovesExactlyThat() throws {
        let destination = try TemporaryDirectory()
        let make = "make -s -C '\(Self.repositoryRoot)' DESTDIR='\(destination.path)' PREFIX=/opt/st"
        let install = try ToolProcess.shell("\(make) install-files BUILT='\(ToolProcess.binDirectory.path)'")
        #expect(install.status == 0, "\(install.stderr)")

        var expected = Set<String>()
        for tool in ToolCatalog.all.map(\.name) {
            expected.formUnion([
                "opt/st/bin/\(tool)",
                "opt/st/share/man/man1/\(tool).1",
                "opt/st/share/bash-completion/completions/\(tool)",
                "opt/st/share/zsh/site-functions/_\(tool)",
                "opt/st/share/fish/vendor_completions.d/\(tool).fish",
            ])
        }
        #expect(files(under: destination.path) == expected)
        #expect(!files(under: destination.path).contains { $0.contains("fake-spotify") || $0.contains("toolkit-docs") })
        let binary = destination.path + "/opt/st/bin/songcount"
        #expect(FileManager.default.isExecutableFile(atPath: binary))
        let version = try ToolProcess.shell("'\(binary)' --version")
        #expect(version.stdout.hasPrefix("songcount "))

        // Something of the user's own in the same directories survives uninstall.
        let mine = destination.path + "/opt/st/bin/mine"
        try "keep".write(toFile: mine, atomically: true, encoding: .utf8)
        let uninstall = try ToolProcess.shell("\(make) uninstall")
        #expect(uninstall.status == 0, "\(uninstall.stderr)")
        #expect(files(under: destination.path) == ["opt/st/bin/mine"])
    }
}
