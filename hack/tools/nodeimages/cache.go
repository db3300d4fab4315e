package nodeimages

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// Image is one built image as images.json lists it.
type Image struct {
	Name      string `json:"name"`
	Reference string `json:"reference"` // repository:tag, what Pods name
	Archive   string `json:"archive"`   // absolute path of the OCI archive
	Digest    string `json:"digest"`    // the manifest's digest
	Key       string `json:"key"`       // the hash of the inputs, also in the archive's name
}

// archiveName holds the key: another input gives another file.
func archiveName(name, key string) string { return name + "-" + key + ".oci.tar" }

// record is written beside the archive, after it: its presence says the
// archive is whole, and it keeps the digest and the inputs.
type record struct {
	Image  Image  `json:"image"`
	Inputs string `json:"inputs"`
}

func recordPath(archive string) string { return strings.TrimSuffix(archive, ".tar") + ".json" }

// cached returns the image built earlier from the same inputs, if any.
func cached(archive string) (Image, bool) {
	data, err := os.ReadFile(recordPath(archive))
	if err != nil {
		return Image{}, false
	}
	var rec record
	if json.Unmarshal(data, &rec) != nil {
		return Image{}, false
	}
	if _, err := os.Stat(archive); err != nil {
		return Image{}, false
	}
	rec.Image.Archive = archive // the directory may have moved
	return rec.Image, true
}

func writeRecord(img Image, in inputs) error {
	data, err := json.MarshalIndent(record{Image: img, Inputs: in.summary()}, "", "  ")
	if err != nil {
		return err
	}
	return writeAtomic(recordPath(img.Archive), append(data, '\n'))
}

// prune removes the archives (and records) of name built from other
// inputs: they are stale and big.
func prune(dir, name, keep string) error {
	matches, err := filepath.Glob(filepath.Join(dir, name+"-*.oci.*"))
	if err != nil {
		return err
	}
	for _, m := range matches {
		base := filepath.Base(m)
		key := strings.TrimPrefix(base, name+"-")
		key, _, _ = strings.Cut(key, ".")
		if key != keep && len(key) == len(keep) {
			if err := os.Remove(m); err != nil {
				return fmt.Errorf("prune %s: %w", m, err)
			}
		}
	}
	return nil
}

// writeAtomic replaces p only once the new content is whole.
func writeAtomic(p string, data []byte) error {
	tmp := p + ".tmp"
	if err := os.WriteFile(tmp, data, 0o644); err != nil {
		return err
	}
	return os.Rename(tmp, p)
}
