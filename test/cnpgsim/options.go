package cnpgsim

import (
	"os/exec"
	"path/filepath"
	"strings"
	"time"
)

// Options tune a Simulator. The zero value is usable: one Postgres server
// per Cluster, data in a fresh temporary directory, no host-map file.
type Options struct {
	// HostMapFile, when set, is where the host map (service "host:port" →
	// loopback "127.0.0.1:port") is published as JSON, rewritten atomically
	// whenever it changes.
	HostMapFile string
	// Dir holds every server's data directory. Empty means a fresh directory
	// under os.TempDir(), removed by Run when it returns.
	Dir string
	// SharedBackend serves every Cluster from one Postgres server (see the
	// package documentation for what that changes).
	SharedBackend bool
	// HealthyDelay is how long a Cluster stays in "Setting up primary" after
	// its server accepts connections, as a slow start would.
	HealthyDelay time.Duration
	// ResizeDelay is how long a volume resize takes after spec.storage.size
	// grows: the PVCs are listed in status.resizingPVC meanwhile.
	ResizeDelay time.Duration
	// MajorUpgradeDuration is how long a major-upgrade Job runs before it
	// ends (Complete, or Failed after FailMajorUpgrade); zero means 2 s.
	MajorUpgradeDuration time.Duration
	// PostgresBinDir holds initdb and postgres. Empty means `pg_config
	// --bindir`, then /usr/lib/postgresql/15/bin.
	PostgresBinDir string
	// Workers is the number of workers per kind; default 4.
	Workers int
	// Selector, a label selector, restricts the CNPG objects (Clusters,
	// Databases, Poolers, ScheduledBackups) the Simulator acts on, so that
	// two Simulators can share a control plane. Empty means all.
	Selector string
	// FieldManager names the Simulator in managedFields; default "cnpgsim".
	FieldManager string
	// SecretRace plays real CNPG's race between a new DatabaseRole and the
	// instance Role that must name its password Secret: the first attempt
	// is forbidden to read the Secret and, unless the object changes, is
	// tried again only after CNPG's 30 s (databaserole_rbac.go). Off, a
	// role is applied at once, as the stand-in's own tests expect.
	SecretRace bool
}

const defaultBinDir = "/usr/lib/postgresql/15/bin"

func (o Options) withDefaults() Options {
	if o.Workers <= 0 {
		o.Workers = 4
	}
	if o.FieldManager == "" {
		o.FieldManager = "cnpgsim"
	}
	if o.PostgresBinDir == "" {
		o.PostgresBinDir = findBinDir()
	}
	return o
}

// findBinDir asks pg_config first because Debian installs several major
// versions side by side; the fixed path is the one the machine image has.
func findBinDir() string {
	out, err := exec.Command("pg_config", "--bindir").Output()
	if err == nil {
		dir := strings.TrimSpace(string(out))
		if _, statErr := exec.LookPath(filepath.Join(dir, "initdb")); statErr == nil {
			return dir
		}
	}
	return defaultBinDir
}
