// Package version holds what this binary is: its release version, the
// commit it was built from and the Go version that built it.
//
// Release builds set Version and Commit with -ldflags:
//
//	-X github.com/setpoint-dev/setpoint/pkg/version.Version=v0.2.0
//	-X github.com/setpoint-dev/setpoint/pkg/version.Commit=<sha>
//
// Other builds (go build, go install, go run) fall back to what the Go
// toolchain embedded in the binary (debug.ReadBuildInfo).
package version

import (
	"fmt"
	"runtime"
	"runtime/debug"
)

// Set by -ldflags -X in release builds; empty otherwise.
var (
	Version string
	Commit  string
)

// unknown stands for a value neither -ldflags nor the build info knows.
const unknown = "unknown"

// Info is what `setpoint --version` prints and setpoint_build_info labels.
type Info struct {
	Version   string
	Commit    string
	GoVersion string
}

// String is the one-line form printed by --version.
func (i Info) String() string {
	return fmt.Sprintf("setpoint %s (commit %s, %s)", i.Version, i.Commit, i.GoVersion)
}

// Get returns this binary's Info.
func Get() Info {
	bi, _ := debug.ReadBuildInfo()
	return resolve(Version, Commit, bi)
}

// resolve prefers the -ldflags values and falls back to the build info:
// the main module's version (set by `go install module@version`) and the
// vcs.revision stamped by `go build` in a Git work tree.
func resolve(ldVersion, ldCommit string, bi *debug.BuildInfo) Info {
	info := Info{Version: ldVersion, Commit: ldCommit, GoVersion: runtime.Version()}
	if bi != nil {
		info.GoVersion = bi.GoVersion
		if info.Version == "" && bi.Main.Version != "" && bi.Main.Version != "(devel)" {
			info.Version = bi.Main.Version
		}
		if info.Commit == "" {
			info.Commit = setting(bi, "vcs.revision")
			if info.Commit != "" && setting(bi, "vcs.modified") == "true" {
				info.Commit += "-dirty"
			}
		}
	}
	if info.Version == "" {
		info.Version = "(devel)"
	}
	if info.Commit == "" {
		info.Commit = unknown
	}
	return info
}

func setting(bi *debug.BuildInfo, key string) string {
	for _, s := range bi.Settings {
		if s.Key == key {
			return s.Value
		}
	}
	return ""
}
