package realcnpg

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"

	"github.com/setpoint-dev/setpoint/test/envtest"
	"github.com/setpoint-dev/setpoint/test/node"
)

// Environment variables that point the tier at its inputs; each defaults
// to where the Makefile puts it.
const (
	ImagesEnv  = "SETPOINT_NODE_IMAGES" // images.json of `make node-images`
	ReleaseEnv = "SETPOINT_RELEASE_DIR" // a `make release` directory
	// PreviousEnv is the release of an earlier setpoint that the upgrade
	// test starts from (`make release-previous`).
	PreviousEnv = "SETPOINT_PREVIOUS_RELEASE_DIR"
)

// Setup is what the tier runs on.
type Setup struct {
	BinDir     string
	Images     node.Images // the node's images, setpoint's included
	ReleaseDir string
	// PreviousReleaseDir is the earlier release, "" when it was not built
	// (the upgrade test then fails saying how to build it); its image is
	// among Images as "setpoint-previous".
	PreviousReleaseDir string
}

// FindSetup finds the binaries, images and release, or says what is
// missing and how to get it.
func FindSetup() (Setup, error) {
	var s Setup
	if os.Geteuid() != 0 {
		return s, errors.New("the real node needs root")
	}
	var err error
	if s.BinDir, err = envtest.BinDir(); err != nil {
		return s, err
	}
	if err := node.CheckBinaries(s.BinDir); err != nil {
		return s, err
	}
	if s.Images, err = node.LoadImages(envOr(ImagesEnv, filepath.Join(s.BinDir, "images", "images.json"))); err != nil {
		return s, err
	}
	s.ReleaseDir = envOr(ReleaseEnv, filepath.Join(s.BinDir, "release"))
	img, err := releaseImage(s.ReleaseDir)
	if err != nil {
		return s, err
	}
	s.Images[img.Name] = img
	prev := envOr(PreviousEnv, filepath.Join(s.BinDir, "release-previous", "release"))
	if _, err := os.Stat(filepath.Join(prev, "install.yaml")); err == nil {
		img, err := releaseImage(prev)
		if err != nil {
			return s, fmt.Errorf("previous release: %w", err)
		}
		img.Name = "setpoint-previous"
		s.Images[img.Name] = img
		s.PreviousReleaseDir = prev
	}
	return s, nil
}

// pinned is install.yaml's image: repository, tag and digest.
var pinned = regexp.MustCompile(`image: (\S+/setpoint):(v[^@\s]+)@(sha256:[0-9a-f]{64})`)

// releaseImage reads which image the release's install.yaml pins and
// finds its archive beside it.
func releaseImage(dir string) (node.Image, error) {
	data, err := os.ReadFile(filepath.Join(dir, "install.yaml"))
	if err != nil {
		return node.Image{}, fmt.Errorf("setpoint release: %w (run `make release-test`)", err)
	}
	m := pinned.FindSubmatch(data)
	if m == nil {
		return node.Image{}, fmt.Errorf("%s/install.yaml pins no setpoint image by tag and digest", dir)
	}
	repo, tag, digest := string(m[1]), string(m[2]), string(m[3])
	archive := filepath.Join(dir, "setpoint-"+tag+".oci.tar")
	if _, err := os.Stat(archive); err != nil {
		return node.Image{}, fmt.Errorf("setpoint release: %w", err)
	}
	return node.Image{Name: "setpoint", Ref: repo + ":" + tag, Archive: archive, Digest: digest}, nil
}

func envOr(name, def string) string {
	if v := os.Getenv(name); v != "" {
		return v
	}
	return def
}
