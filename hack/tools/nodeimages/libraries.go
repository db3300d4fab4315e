package nodeimages

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
)

// copyLibraries adds the shared libraries ldd lists for every ELF file
// of the image's tree under dir (binaries and loadable modules), with the
// dynamic loader.
func (r *rootFS) copyLibraries(ctx context.Context, dir string) error {
	elves, err := r.elfFiles(dir)
	if err != nil {
		return err
	}
	return r.addHostLibraries(ctx, elves, func(string) bool { return true })
}

// addHostLibraries adds the host libraries ldd lists for the host files
// elves, those that want says yes to.
func (r *rootFS) addHostLibraries(ctx context.Context, elves []string, want func(lib string) bool) error {
	libs, err := lddLibraries(ctx, elves)
	if err != nil {
		return err
	}
	for _, l := range libs {
		if !want(l) {
			continue
		}
		if err := r.copyFile(l); err != nil {
			return fmt.Errorf("library %s: %w", l, err)
		}
	}
	return nil
}

// elfFiles lists the host paths of the tree's regular ELF files under dir.
func (r *rootFS) elfFiles(dir string) ([]string, error) {
	var out []string
	for p, e := range r.entries {
		if e.kind == fileEntry && strings.HasPrefix(p, dir+"/") && bytes.HasPrefix(e.data, []byte("\x7fELF")) {
			out = append(out, p)
		}
	}
	sort.Strings(out)
	return out, nil
}

// lddLibraries runs ldd once over files and returns the libraries it
// resolved, the loader included. "not found" fails: the image would not
// start.
func lddLibraries(ctx context.Context, files []string) ([]string, error) {
	cmd := exec.CommandContext(ctx, "ldd", files...)
	cmd.Env = append(os.Environ(), "LC_ALL=C")
	out, err := cmd.Output()
	if err != nil && len(out) == 0 {
		return nil, fmt.Errorf("ldd: %w", err)
	}
	set := map[string]bool{}
	for _, line := range strings.Split(string(out), "\n") {
		line = strings.TrimSpace(line)
		if strings.Contains(line, "not found") {
			return nil, fmt.Errorf("ldd: %s", line)
		}
		f := strings.Fields(line)
		switch {
		case len(f) >= 3 && f[1] == "=>" && filepath.IsAbs(f[2]):
			set[f[2]] = true
		case len(f) >= 1 && filepath.IsAbs(f[0]) && !strings.HasSuffix(f[0], ":"):
			set[f[0]] = true // the loader: "/lib64/ld-linux-x86-64.so.2 (0x...)"
		}
	}
	libs := make([]string, 0, len(set))
	for l := range set {
		libs = append(libs, l)
	}
	sort.Strings(libs)
	return libs, nil
}
