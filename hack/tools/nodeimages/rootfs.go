package nodeimages

import (
	"fmt"
	"path"
	"strings"
)

// kind says what a rootfs entry is.
type kind int

const (
	dirEntry kind = iota
	fileEntry
	linkEntry // a symbolic link
)

// entry is one file of an image's only layer.
type entry struct {
	kind     kind
	mode     int64
	uid, gid int
	data     []byte // a file's content
	target   string // a link's target
}

// rootFS is an image's file tree, keyed by clean absolute paths. Adding a
// path adds its missing parents as root-owned 0755 directories, so callers
// name only what matters.
type rootFS struct {
	entries map[string]*entry
}

func newRootFS() *rootFS { return &rootFS{entries: map[string]*entry{}} }

// Dir adds a directory.
func (r *rootFS) Dir(p string, mode int64, uid, gid int) {
	r.put(p, &entry{kind: dirEntry, mode: mode, uid: uid, gid: gid})
}

// File adds a root-owned regular file.
func (r *rootFS) File(p string, mode int64, data []byte) {
	r.put(p, &entry{kind: fileEntry, mode: mode, data: data})
}

// Symlink adds a symbolic link to target.
func (r *rootFS) Symlink(p, target string) {
	r.put(p, &entry{kind: linkEntry, mode: 0o777, target: target})
}

// Chown gives p to uid:gid.
func (r *rootFS) Chown(p string, uid, gid int) error {
	e, ok := r.entries[clean(p)]
	if !ok {
		return fmt.Errorf("chown %s: not in the image", p)
	}
	e.uid, e.gid = uid, gid
	return nil
}

// Has says whether p is in the image.
func (r *rootFS) Has(p string) bool { _, ok := r.entries[clean(p)]; return ok }

func (r *rootFS) put(p string, e *entry) {
	p = clean(p)
	for dir := path.Dir(p); dir != "/"; dir = path.Dir(dir) {
		if _, ok := r.entries[dir]; !ok {
			r.entries[dir] = &entry{kind: dirEntry, mode: 0o755}
		}
	}
	r.entries[p] = e
}

func clean(p string) string { return path.Clean("/" + strings.TrimPrefix(p, "/")) }
