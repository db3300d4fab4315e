package chart

import (
	"crypto/sha256"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"time"

	"helm.sh/helm/v4/pkg/chart/common"
	chartv2 "helm.sh/helm/v4/pkg/chart/v2"
	chartutil "helm.sh/helm/v4/pkg/chart/v2/util"
	"sigs.k8s.io/yaml"
)

// Release is what a packaged chart is pinned to.
type Release struct {
	Version    string // the release's, v0.2.0: the chart's version is 0.2.0
	Repository string // the image without tag
	Digest     string // sha256:…, the image index's digest
	Created    time.Time
}

// Package writes the chart in dir as <name>-<version>.tgz into out, its
// version, appVersion and default image set to r's (so `helm install` of
// the package runs exactly the released image), every file stamped with
// r.Created so one commit packages to the same bytes. It returns the
// file's name.
func Package(dir, out string, r Release) (string, error) {
	c, err := Load(dir)
	if err != nil {
		return "", err
	}
	c.Metadata.Version = strings.TrimPrefix(r.Version, "v")
	c.Metadata.AppVersion = r.Version
	if err := pinValues(c, r); err != nil {
		return "", err
	}
	stamp(c, r.Created)
	if err := c.Validate(); err != nil {
		return "", fmt.Errorf("chart %s: %w", c.Metadata.Version, err)
	}
	path, err := chartutil.Save(c, out)
	if err != nil {
		return "", fmt.Errorf("package chart: %w", err)
	}
	return filepath.Base(path), nil
}

var (
	imageRepository = regexp.MustCompile(`(?m)^  repository: .*$`)
	imageTag        = regexp.MustCompile(`(?m)^  tag: ""$`)
	imageDigest     = regexp.MustCompile(`(?m)^  digest: ""$`)
)

// pinValues sets the image in values.yaml as text, so its comments stay
// for `helm show values`, then checks the result parses to what was meant.
func pinValues(c *chartv2.Chart, r Release) error {
	for _, f := range c.Raw {
		if f.Name != chartutil.ValuesfileName {
			continue
		}
		s := string(f.Data)
		s = imageRepository.ReplaceAllLiteralString(s, "  repository: "+r.Repository)
		s = imageTag.ReplaceAllLiteralString(s, fmt.Sprintf("  tag: %q", r.Version))
		s = imageDigest.ReplaceAllLiteralString(s, fmt.Sprintf("  digest: %q", r.Digest))
		vals, err := common.ReadValues([]byte(s))
		if err != nil {
			return fmt.Errorf("pinned values.yaml: %w", err)
		}
		img, _ := vals["image"].(map[string]any)
		if img["repository"] != r.Repository || img["tag"] != r.Version || img["digest"] != r.Digest {
			return fmt.Errorf("values.yaml: image not pinned (got %v): its image block changed shape", img)
		}
		f.Data, c.Values = []byte(s), vals
		return nil
	}
	return fmt.Errorf("chart has no %s", chartutil.ValuesfileName)
}

// stamp sets every file's modification time, which the archive records.
func stamp(c *chartv2.Chart, t time.Time) {
	c.ModTime, c.SchemaModTime = t, t
	for _, fs := range [][]*common.File{c.Raw, c.Templates, c.Files} {
		for _, f := range fs {
			f.ModTime = t
		}
	}
	if c.Lock != nil {
		c.Lock.Generated = t
	}
}

// Index writes index.yaml into out for the packaged chart file, in the
// format `helm repo index` writes; the chart's URL is relative, so the
// directory can be served from wherever the release is published. (Helm's
// repo package would do the same but brings its registry and plugin
// clients into the build.)
func Index(out, file string, created time.Time) error {
	c, err := Load(filepath.Join(out, file))
	if err != nil {
		return err
	}
	data, err := os.ReadFile(filepath.Join(out, file))
	if err != nil {
		return err
	}
	entry := chartVersion{Metadata: c.Metadata, URLs: []string{file}, Created: created,
		Digest: fmt.Sprintf("%x", sha256.Sum256(data))}
	idx := indexFile{APIVersion: "v1", Generated: created,
		Entries: map[string][]chartVersion{c.Metadata.Name: {entry}}}
	body, err := yaml.Marshal(idx)
	if err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(out, IndexFile), body, 0o644); err != nil {
		return fmt.Errorf("write %s: %w", IndexFile, err)
	}
	return nil
}

// IndexFile is the chart repository's index.
const IndexFile = "index.yaml"

// indexFile and chartVersion are a chart repository index as Helm reads
// it (helm.sh/helm/v4/pkg/repo/v1).
type indexFile struct {
	APIVersion string                    `json:"apiVersion"`
	Entries    map[string][]chartVersion `json:"entries"`
	Generated  time.Time                 `json:"generated"`
}

type chartVersion struct {
	*chartv2.Metadata
	URLs    []string  `json:"urls"`
	Created time.Time `json:"created"`
	Digest  string    `json:"digest"`
}
