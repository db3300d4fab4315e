package nodeimages

import (
	"crypto/sha256"
	"embed"
	"encoding/hex"
	"io/fs"
	"sort"
	"strings"
)

// source is this package's own code and its programs' (pause, s3store): the
// builder's version. Embedding it (rather than a hand-bumped number) means
// any change to how an image is laid out rebuilds the images.
//
//go:embed *.go pause/*.go s3store/*.go
var source embed.FS

// builderVersion hashes the non-test Go files of source.
func builderVersion() string {
	var names []string
	_ = fs.WalkDir(source, ".", func(p string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() && !strings.HasSuffix(p, "_test.go") {
			names = append(names, p)
		}
		return err
	})
	sort.Strings(names)
	h := sha256.New()
	for _, n := range names {
		data, _ := source.ReadFile(n) // embedded: cannot fail
		h.Write([]byte(n + "\x00"))
		h.Write(data)
	}
	return hex.EncodeToString(h.Sum(nil))[:16]
}
