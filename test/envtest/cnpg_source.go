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

// BarmanCloudReleaseManifest is the pinned barman-cloud plugin's release
// manifest (manifest.yaml at its module's root: the ObjectStore CRD, RBAC,
// the plugin's Service and Deployment, and cert-manager objects for its
// TLS), from its module.
func BarmanCloudReleaseManifest() (string, error) {
	dirs, err := moduleDirs(barmanCloudModule)
	if err != nil {
		return "", fmt.Errorf("barman-cloud plugin source: %w", err)
	}
	return filepath.Join(dirs[0], "manifest.yaml"), nil
}
