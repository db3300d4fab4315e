package nodeimages

import (
	"context"
	"debug/elf"
	"fmt"
	"os"
	"os/exec"
)

// goBuild compiles pkg, from the module in dir, into a static
// linux/amd64 binary at out and returns its bytes. Everything that could
// differ between machines or runs is pinned: no cgo, no paths, no build
// ID, no VCS stamp, the baseline amd64 level, go.mod as it is.
func goBuild(ctx context.Context, dir, pkg, out string) ([]byte, error) {
	cmd := exec.CommandContext(ctx, "go", "build", "-trimpath", "-buildvcs=false",
		"-ldflags=-s -w -buildid=", "-o", out, pkg)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "CGO_ENABLED=0", "GOOS=linux", "GOARCH=amd64", "GOAMD64=v1",
		"GOFLAGS=-mod=readonly")
	if msg, err := cmd.CombinedOutput(); err != nil {
		return nil, fmt.Errorf("go build %s in %s: %w\n%s", pkg, dir, err, msg)
	}
	bin, err := os.ReadFile(out)
	if err != nil {
		return nil, err
	}
	return bin, requireStatic(out)
}

// requireStatic fails when the ELF file at p wants a dynamic loader: it
// would not start in an image without libc.
func requireStatic(p string) error {
	f, err := elf.Open(p)
	if err != nil {
		return fmt.Errorf("%s: %w", p, err)
	}
	defer f.Close()
	for _, prog := range f.Progs {
		if prog.Type == elf.PT_INTERP {
			return fmt.Errorf("%s is dynamically linked", p)
		}
	}
	return nil
}
