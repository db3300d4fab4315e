package testkit

import (
	"archive/tar"
	"compress/gzip"
	"io"
	"strings"
	"testing"

	"github.com/setpoint-dev/setpoint/pkg/naming"
)

// Bundle unpacks the .tar.gz `kubectl setpoint report -f -` printed: each
// file's contents by its path below the bundle's folder.
func Bundle(t *testing.T, archive string) map[string]string {
	t.Helper()
	gz, err := gzip.NewReader(strings.NewReader(archive))
	if err != nil {
		t.Fatalf("report -f - wrote no gzip: %v", err)
	}
	files := map[string]string{}
	tr := tar.NewReader(gz)
	for {
		hdr, err := tr.Next()
		if err == io.EOF {
			return files
		}
		if err != nil {
			t.Fatal(err)
		}
		b, err := io.ReadAll(tr)
		if err != nil {
			t.Fatal(err)
		}
		_, name, _ := strings.Cut(hdr.Name, "/")
		files[name] = string(b)
	}
}

// SecretValuesIn names each value of secrets (six bytes or more, names
// aside, naming.NotSecretKey: what a bundle redacts) that a file of files holds, as
// "file: Secret key"; and how many values it looked for, so that a caller
// can tell a clean bundle from an empty search.
func SecretValuesIn(files map[string]string, secrets map[string]map[string][]byte) (found []string, looked int) {
	for secret, data := range secrets {
		for key, v := range data {
			if naming.NotSecretKey(key) || len(v) < 6 {
				continue
			}
			looked++
			for name, content := range files {
				if strings.Contains(content, string(v)) {
					found = append(found, name+": Secret "+secret+" key "+key)
				}
			}
		}
	}
	return found, looked
}
