// Command nodeimages builds the images of the real test node (what `make
// node-images` runs) into <bin-dir>/images: one OCI archive per image,
// named by the hash of its inputs, and images.json listing them. Images
// whose inputs did not change are not rebuilt.
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"path/filepath"
	"time"

	"github.com/setpoint-dev/setpoint/hack/tools/nodeimages"
)

func main() {
	var o nodeimages.Options
	flag.StringVar(&o.Root, "root", "../..", "the repository's root")
	flag.StringVar(&o.BinDir, "bin-dir", "../../bin", "build directory: archives go to <bin-dir>/images")
	flag.StringVar(&o.CacheDir, "cache-dir", "", "downloads and the private apt state (default <bin-dir>/cache/nodeimages)")
	flag.StringVar(&o.Registry, "registry", "localhost/setpoint", "repository prefix of the image references")
	flag.StringVar(&o.Mirror, "debian-mirror", "http://deb.debian.org/debian", "Debian mirror for trixie's pgbouncer, postgresql-17 and barman-cli-cloud")
	flag.BoolVar(&o.AptUpdate, "apt-update", false, "refresh trixie's package lists (else fetched only once)")
	flag.Parse()
	o.Log = os.Stdout
	if err := run(o); err != nil {
		fmt.Fprintf(os.Stderr, "nodeimages: %v\n", err)
		os.Exit(1)
	}
}

func run(o nodeimages.Options) error {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	var err error
	// Absolute: images.json names archives by path, for any reader.
	if o.Root, err = filepath.Abs(o.Root); err != nil {
		return err
	}
	if o.BinDir, err = filepath.Abs(o.BinDir); err != nil {
		return err
	}
	start := time.Now()
	imgs, err := nodeimages.Build(ctx, o)
	if err != nil {
		return err
	}
	for _, img := range imgs {
		size := "?"
		if fi, err := os.Stat(img.Archive); err == nil {
			size = fmt.Sprintf("%.1f MiB", float64(fi.Size())/(1<<20))
		}
		fmt.Printf("  %-48s %10s  %s\n", img.Reference, size, img.Digest)
	}
	fmt.Printf("nodeimages: %d images in %s (%s)\n", len(imgs), filepath.Join(o.BinDir, "images"),
		time.Since(start).Round(100*time.Millisecond))
	return nil
}
