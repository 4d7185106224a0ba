// Written by scripts/sync-version.sh from VERSION (`make` runs it); edit VERSION, not this.
package enum Toolkit {
    package static let version = "0.1.0"
}
