package release

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"sigs.k8s.io/yaml"

	"github.com/setpoint-dev/setpoint/hack/tools/imagebuild"
)

// KrewFile is the krew plugin manifest of the release.
const KrewFile = "krew-setpoint.yaml"

// krewPlugin is krew's Plugin manifest (krew.googlecontainertools.github.com/v1alpha2),
// only the fields a release fills.
type krewPlugin struct {
	APIVersion string         `json:"apiVersion"`
	Kind       string         `json:"kind"`
	Metadata   map[string]any `json:"metadata"`
	Spec       krewSpec       `json:"spec"`
}

type krewSpec struct {
	Version          string         `json:"version"`
	Homepage         string         `json:"homepage"`
	ShortDescription string         `json:"shortDescription"`
	Description      string         `json:"description"`
	Platforms        []krewPlatform `json:"platforms"`
}

type krewPlatform struct {
	Selector map[string]map[string]string `json:"selector"`
	URI      string                       `json:"uri"`
	SHA256   string                       `json:"sha256"`
	Bin      string                       `json:"bin"`
}

// WriteKrewManifest writes the krew manifest for the plugin archives in
// out: each platform's download URL on the source repository's release
// page and the archive's SHA-256.
func WriteKrewManifest(o imagebuild.Options, out string) error {
	m := krewPlugin{
		APIVersion: "krew.googlecontainertools.github.com/v1alpha2",
		Kind:       "Plugin",
		Metadata:   map[string]any{"name": "setpoint"},
		Spec: krewSpec{
			Version:          o.Version,
			Homepage:         o.Source,
			ShortDescription: "Inspect and operate setpoint's Postgres clusters and databases",
			Description: "status, explain (why a PostgresDatabase is not Ready), conn, psql through a port-forward, " +
				"password rotation, on-demand backups and restores, support bundles (report), logs, rolling restarts " +
				"and switchovers for the setpoint operator.",
		},
	}
	for _, p := range platformsOf(o) {
		name := PluginArchiveName(o, p)
		sum, err := fileSHA256(filepath.Join(out, name))
		if err != nil {
			return err
		}
		m.Spec.Platforms = append(m.Spec.Platforms, krewPlatform{
			Selector: map[string]map[string]string{"matchLabels": {"os": p.OS, "arch": p.Architecture}},
			URI:      fmt.Sprintf("%s/releases/download/%s/%s", strings.TrimSuffix(o.Source, "/"), o.Version, name),
			SHA256:   sum,
			Bin:      PluginBinary,
		})
	}
	b, err := yaml.Marshal(m)
	if err != nil {
		return fmt.Errorf("encode krew manifest: %w", err)
	}
	return os.WriteFile(filepath.Join(out, KrewFile), b, 0o644)
}
