package imagebuild

import (
	"fmt"
	"path/filepath"

	v1 "github.com/google/go-containerregistry/pkg/v1"
)

// OCILayoutName is the directory name of the OCI image layout.
func (o Options) OCILayoutName() string { return "setpoint-" + o.Version + ".oci" }

// OCIArchiveName is the file name of the OCI image-layout archive.
func (o Options) OCIArchiveName() string { return o.OCILayoutName() + ".tar" }

// DockerTarballName is the file name of the `docker load` tarball of p.
func (o Options) DockerTarballName(p v1.Platform) string {
	return fmt.Sprintf("setpoint-%s-%s-%s.docker.tar", o.Version, p.OS, p.Architecture)
}

// WriteArtifacts writes into dir the OCI layout of idx (a directory), the
// same as an archive, and a docker tarball for each of dockerPlatforms; it
// returns the names of the files (not the directory) written.
func WriteArtifacts(dir string, o Options, idx v1.ImageIndex, dockerPlatforms []v1.Platform) ([]string, error) {
	layoutDir := filepath.Join(dir, o.OCILayoutName())
	if err := WriteOCILayout(layoutDir, idx, o.Tag()); err != nil {
		return nil, err
	}
	names := []string{o.OCIArchiveName()}
	if err := WriteOCIArchive(filepath.Join(dir, names[0]), layoutDir, o.Created); err != nil {
		return nil, err
	}
	for _, p := range dockerPlatforms {
		n := o.DockerTarballName(p)
		if err := WriteDockerTarball(filepath.Join(dir, n), idx, p, o.Tag()); err != nil {
			return nil, err
		}
		names = append(names, n)
	}
	return names, nil
}
