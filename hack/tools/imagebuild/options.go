package imagebuild

import (
	"fmt"
	"time"

	v1 "github.com/google/go-containerregistry/pkg/v1"
)

// Options say what to build.
type Options struct {
	// Root is the operator module's directory (holding cmd/setpoint).
	Root string
	// Repository is the image's name without tag, e.g.
	// ghcr.io/setpoint-dev/setpoint.
	Repository string
	// Version is the image tag and the binary's version, e.g. v0.2.0.
	Version string
	// Commit is the Git commit the image is built from.
	Commit string
	// Created is the commit time: the image's creation time and every
	// file's modification time, so rebuilding later changes nothing.
	Created time.Time
	// Source is the URL of the source repository (an OCI label).
	Source string
	// Platforms to build; linux/amd64 and linux/arm64 by default.
	Platforms []v1.Platform
}

// DefaultPlatforms are the platforms of a release.
var DefaultPlatforms = []v1.Platform{
	{OS: "linux", Architecture: "amd64"},
	{OS: "linux", Architecture: "arm64"},
}

func (o *Options) validate() error {
	switch {
	case o.Root == "":
		return fmt.Errorf("imagebuild: Root is required")
	case o.Repository == "":
		return fmt.Errorf("imagebuild: Repository is required")
	case o.Version == "":
		return fmt.Errorf("imagebuild: Version is required")
	case o.Commit == "":
		return fmt.Errorf("imagebuild: Commit is required")
	case o.Created.IsZero():
		return fmt.Errorf("imagebuild: Created (the commit time) is required")
	}
	if len(o.Platforms) == 0 {
		o.Platforms = DefaultPlatforms
	}
	return nil
}

// Tag is the image reference with the version as its tag.
func (o Options) Tag() string { return o.Repository + ":" + o.Version }
