package nodeimages

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
)

// privateApt is an apt state of its own for one Debian suite: its own
// sources list, package lists, cache and (empty) dpkg status, all under
// dir. APT_CONFIG points apt at it before apt reads anything else (the
// host's apt.conf.d included), so the host's apt state is never read or
// written.
type privateApt struct {
	dir, mirror, suite string
}

func (a privateApt) path(p string) string { return filepath.Join(a.dir, p) }

// init writes the configuration and creates the state directories.
func (a privateApt) init() error {
	for _, d := range []string{"lists/partial", "cache/archives/partial", "parts", "prefs"} {
		if err := os.MkdirAll(a.path(d), 0o755); err != nil {
			return err
		}
	}
	sources := fmt.Sprintf("deb [signed-by=/usr/share/keyrings/debian-archive-keyring.gpg] %s %s main\n", a.mirror, a.suite)
	conf := fmt.Sprintf(`Dir::Etc::SourceList %[1]q;
Dir::Etc::SourceParts %[2]q;
Dir::Etc::Parts %[2]q;
Dir::Etc::Preferences %[3]q;
Dir::Etc::PreferencesParts %[4]q;
Dir::State::Lists %[5]q;
Dir::State::status %[6]q;
Dir::State::extended_states %[7]q;
Dir::Cache %[8]q;
APT::Architecture "amd64";
APT::Architectures { "amd64"; };
Acquire::Languages "none";
APT::Sandbox::User "root";
`, a.path("sources.list"), a.path("parts"), a.path("prefs/none"), a.path("prefs"), a.path("lists"),
		a.path("status"), a.path("extended_states"), a.path("cache"))
	files := map[string]string{"sources.list": sources, "apt.conf": conf, "status": ""}
	for name, content := range files {
		if err := writeIfChanged(a.path(name), []byte(content)); err != nil {
			return err
		}
	}
	return nil
}

// hasLists says whether an update already fetched the suite's index.
func (a privateApt) hasLists() bool {
	m, _ := filepath.Glob(a.path("lists/*_Packages*"))
	return len(m) > 0
}

// run runs an apt command against the private state, in dir.
func (a privateApt) run(ctx context.Context, dir string, name string, args ...string) ([]byte, error) {
	cmd := exec.CommandContext(ctx, name, args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "APT_CONFIG="+a.path("apt.conf"), "LC_ALL=C", "DEBIAN_FRONTEND=noninteractive")
	var stderr strings.Builder
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return nil, fmt.Errorf("%s %s: %w\n%s", name, strings.Join(args, " "), err, stderr.String())
	}
	return out, nil
}

// update fetches the suite's package lists from the mirror.
func (a privateApt) update(ctx context.Context) error {
	_, err := a.run(ctx, a.dir, "apt-get", "update", "-q")
	return err
}

// writeIfChanged leaves a file with the same content alone.
func writeIfChanged(p string, data []byte) error {
	if old, err := os.ReadFile(p); err == nil && string(old) == string(data) {
		return nil
	}
	return os.WriteFile(p, data, 0o644)
}
