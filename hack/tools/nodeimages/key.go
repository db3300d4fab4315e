package nodeimages

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"os"
	"sort"
	"strings"
)

// inputs are what an image is made from, by name: a module's go.sum, a
// Debian package's version, the builder's source. Any change gives the
// image another key, and so another archive name.
type inputs map[string]string

// key is a short hash of the inputs, independent of map order.
func (in inputs) key() string {
	names := make([]string, 0, len(in))
	for n := range in {
		names = append(names, n)
	}
	sort.Strings(names)
	h := sha256.New()
	for _, n := range names {
		// Lengths first: no two input sets can give the same byte stream.
		fmt.Fprintf(h, "%d:%s%d:%s", len(n), n, len(in[n]), in[n])
	}
	return hex.EncodeToString(h.Sum(nil))[:16]
}

// addFileHash records the hash of file p's content as input name.
func (in inputs) addFileHash(name, p string) error {
	data, err := os.ReadFile(p)
	if err != nil {
		return fmt.Errorf("input %s: %w", name, err)
	}
	sum := sha256.Sum256(data)
	in[name] = hex.EncodeToString(sum[:])
	return nil
}

// summary lists the inputs, one "name=value" a line, for the record kept
// beside each archive (what changed is then a diff away).
func (in inputs) summary() string {
	lines := make([]string, 0, len(in))
	for n, v := range in {
		lines = append(lines, n+"="+v)
	}
	sort.Strings(lines)
	return strings.Join(lines, "\n") + "\n"
}
