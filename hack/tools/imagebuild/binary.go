package imagebuild

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"

	v1 "github.com/google/go-containerregistry/pkg/v1"
)

// versionPkg receives the version and commit through -ldflags -X.
const versionPkg = "github.com/setpoint-dev/setpoint/pkg/version"

// buildBinary compiles a static cmd/setpoint for p and returns its bytes.
func buildBinary(ctx context.Context, o Options, p v1.Platform, dir string) ([]byte, error) {
	return BuildCommand(ctx, o, p, dir, "setpoint")
}

// BuildCommand compiles the operator module's cmd/<name> for p, static
// and reproducible like the operator's binary, and returns its bytes.
func BuildCommand(ctx context.Context, o Options, p v1.Platform, dir, name string) ([]byte, error) {
	out := filepath.Join(dir, name+"-"+p.OS+"-"+p.Architecture)
	ldflags := fmt.Sprintf("-s -w -buildid= -X %s.Version=%s -X %s.Commit=%s", versionPkg, o.Version, versionPkg, o.Commit)
	cmd := exec.CommandContext(ctx, "go", "build", "-trimpath", "-buildvcs=false", "-ldflags", ldflags,
		"-o", out, "./cmd/"+name)
	cmd.Dir = o.Root
	cmd.Env = append(os.Environ(),
		"CGO_ENABLED=0", // static: no libc in the image
		"GOOS="+p.OS, "GOARCH="+p.Architecture,
		// The microarchitecture levels are pinned so that the caller's
		// environment cannot change the binary.
		"GOAMD64=v1", "GOARM64=v8.0",
		"GOFLAGS=-mod=readonly",
	)
	if msg, err := cmd.CombinedOutput(); err != nil {
		return nil, fmt.Errorf("go build cmd/%s for %s/%s: %w\n%s", name, p.OS, p.Architecture, err, msg)
	}
	return os.ReadFile(out)
}
