// Command release writes a setpoint release into a directory (what `make
// release VERSION=…` runs): the image archives, install.yaml pinned to
// the image by tag and digest, and SHA256SUMS.
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"path/filepath"
	"time"

	"github.com/setpoint-dev/setpoint/hack/tools/imagebuild"
	"github.com/setpoint-dev/setpoint/hack/tools/release"
)

func main() {
	var o imagebuild.Options
	o.Bind(flag.CommandLine)
	out := flag.String("out", "dist", "output directory")
	flag.Parse()
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	start := time.Now()
	res, err := release.Run(ctx, o, *out)
	if err != nil {
		fmt.Fprintf(os.Stderr, "release: %v\n", err)
		os.Exit(1)
	}
	fmt.Printf("release %s: image %s (built in %s)\n", o.Version, res.Image.Ref(), time.Since(start).Round(100*time.Millisecond))
	for _, n := range res.Files {
		if fi, err := os.Stat(filepath.Join(*out, n)); err == nil {
			fmt.Printf("  %-50s %6.1f MiB\n", filepath.Join(*out, n), float64(fi.Size())/(1<<20))
		}
	}
}
