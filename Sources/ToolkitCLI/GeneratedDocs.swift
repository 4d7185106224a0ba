/// Every file generated from the command specs: man pages and completion scripts.
/// `toolkit-docs` writes them; a test fails when a committed copy differs.
package enum GeneratedDocs {
    package struct File: Sendable, Equatable {
        package var path: String
        package var contents: String
    }

    package static func files(for specs: [CommandSpec]) -> [File] {
        specs.flatMap { spec in
            [File(path: "man/man1/\(spec.name).1", contents: ManPageRenderer.render(spec, version: Toolkit.version))]
                + Shell.allCases.map {
                    File(path: $0.scriptPath(for: spec.name), contents: CompletionRenderer.render(spec, for: $0))
                }
        }
    }
}
