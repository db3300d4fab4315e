package envtest

import (
	"fmt"
	"path/filepath"
)

// CNPGSourceDir is the extracted module of the pinned CloudNativePG (the
// one whose CRDs and webhooks the tests run), downloaded or found in the
// module cache: tests read CNPG's own source there to check that the CNPG
// stand-in reports what CNPG would, word for word.
func CNPGSourceDir() (string, error) {
	dirs, err := moduleDirs(cnpgModule)
	if err != nil {
		return "", fmt.Errorf("CloudNativePG source: %w", err)
	}
	return dirs[0], nil
}

// CNPGReleaseManifest is the pinned CloudNativePG's release manifest (its
// CRDs, RBAC, webhooks and the operator's Deployment), from its module.
func CNPGReleaseManifest() (string, error) {
	dir, err := CNPGSourceDir()
	if err != nil {
		return "", err
	}
	return filepath.Join(dir, "releases", "cnpg-"+cnpgVersion+".yaml"), nil
}
