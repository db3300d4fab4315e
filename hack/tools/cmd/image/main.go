// Command image builds setpoint's multi-platform container image without a
// container runtime and writes it to a directory (what `make image` runs):
//
//	setpoint-<version>.oci.tar                  OCI image layout, both platforms
//	setpoint-<version>-linux-<arch>.docker.tar  for `docker load`, host platform
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"path/filepath"
	"runtime"
	"time"

	v1 "github.com/google/go-containerregistry/pkg/v1"

	"github.com/setpoint-dev/setpoint/hack/tools/imagebuild"
)

func main() {
	var o imagebuild.Options
	o.Bind(flag.CommandLine)
	out := flag.String("out", "dist", "output directory")
	flag.Parse()
	if err := run(o, *out); err != nil {
		fmt.Fprintf(os.Stderr, "image: %v\n", err)
		os.Exit(1)
	}
}

func run(o imagebuild.Options, out string) error {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	start := time.Now()
	idx, err := imagebuild.Build(ctx, o)
	if err != nil {
		return err
	}
	if err := os.MkdirAll(out, 0o755); err != nil {
		return err
	}
	host := v1.Platform{OS: "linux", Architecture: runtime.GOARCH}
	names, err := imagebuild.WriteArtifacts(out, o, idx, []v1.Platform{host})
	if err != nil {
		return err
	}
	digest, err := imagebuild.Digest(idx)
	if err != nil {
		return err
	}
	fmt.Printf("image: %s@%s (built in %s)\n", o.Tag(), digest, time.Since(start).Round(100*time.Millisecond))
	printFiles(out, names)
	return nil
}

func printFiles(dir string, names []string) {
	for _, n := range names {
		if fi, err := os.Stat(filepath.Join(dir, n)); err == nil {
			fmt.Printf("  %-50s %6.1f MiB\n", filepath.Join(dir, n), float64(fi.Size())/(1<<20))
		}
	}
}
