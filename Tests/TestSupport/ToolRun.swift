/// What a tool run did, in process or spawned: the three things a user sees.
package struct ToolRun: Sendable {
    package var status: Int32
    package var stdout: String
    package var stderr: String

    package init(status: Int32, stdout: String, stderr: String) {
        self.status = status
        self.stdout = stdout
        self.stderr = stderr
    }

    package var stdoutLines: [String] {
        stdout.split(separator: "\n", omittingEmptySubsequences: false).dropLast().map(String.init)
    }
}
